"""A menu's entry: an action with its shortcut that calls a slot (the window's menus and the
controllers that add a menu of their own, as the Compare menu)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu


def add_action(parent: QObject, menu: QMenu, text: str, shortcut: Any, slot: Callable[[], Any]) -> QAction:
    """An entry ``text`` at the end of ``menu`` (``shortcut``: a key sequence, or None) that calls
    ``slot`` without the checked flag Qt passes."""
    action = QAction(text, parent)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    action.triggered.connect(lambda _checked=False: slot())
    menu.addAction(action)
    return action
