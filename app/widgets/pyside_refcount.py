"""Work around PySide6 6.12 dropping references to ``None``/``True``/``False`` on Python < 3.12.

With PySide6 6.12.0 (abi3 wheel) on CPython 3.11, every call of a method that returns
``void`` (``QTimer.start``, ``QObject.setObjectName``, ``QCoreApplication.processEvents``...)
drops one reference to ``None`` that it never took, and some bool results do the same to
``True``/``False``: apparently code that relies on PEP 683's immortal singletons of Python
3.12+. After a few thousand calls the count reaches zero and the interpreter aborts with
"Fatal Python error: none_dealloc: deallocating None" (reproduce:
``for _ in range(6000): QTimer().stop()``). A desktop app makes that many calls in minutes.

``apply()`` gives those three singletons a reference count so large that no session can
exhaust it, i.e. makes them immortal the way Python 3.12 does. It does nothing on 3.12+ or
other PySide6 versions. Remove it once PySide6 is fixed, or when Pagewise requires 3.12.
"""

from __future__ import annotations

import ctypes
import sys

_APPLIED = False
_EXTRA = 1 << 40  # ~10^12 references: far more than any session could drop


def needed() -> bool:
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    try:
        import PySide6
    except ImportError:
        return False
    return str(PySide6.__version__).startswith("6.12")


def apply() -> bool:
    """Make None, True and False immortal (once). True if it was applied."""
    global _APPLIED
    if _APPLIED or not needed():
        return _APPLIED
    for singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += _EXTRA
    _APPLIED = True
    return True
