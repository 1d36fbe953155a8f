"""The API key sent to a remote server: ``$PAGEWISE_API_KEY``, else the OS keyring, else none.

A shared vLLM or llama.cpp server is usually started with ``--api-key``; the remote engine
sends the key as ``Authorization: Bearer KEY``. Where it comes from, first to last:

- ``PAGEWISE_API_KEY``: sent to whichever server is used (a shell, a script, a headless box).
- The OS keyring (the ``keyring`` package: Keychain, Windows Credential Locker, Secret Service),
  service ``pagewise``, username the server's base address as the engine writes it
  (``http://host:8080``: no ``/v1``, no trailing slash). One entry per server, so a key is only
  ever sent to the server it was stored for, never to another ``--remote`` URL. The settings
  dialog stores it there; so does ``keyring set pagewise http://host:8080``.
- None: no ``Authorization`` header.

Never in settings.json, and never a command-line flag (it would sit in the shell's history).

``keyring`` is imported only when a key is looked up (it loads its backends on import). With
no usable keyring (a headless Linux without a Secret Service), reading gives None and storing
raises ``KeyringUnavailable``, which says to use ``PAGEWISE_API_KEY``. No Qt here.
"""

from __future__ import annotations

import os
from enum import Enum
from typing import Any

from summarizer.errors import SettingsError

ENV_API_KEY = "PAGEWISE_API_KEY"
SERVICE = "pagewise"


class KeyringUnavailable(SettingsError):
    """The OS keyring cannot store (or remove) a key: none is available, or it refused."""


class KeySource(Enum):
    """Where ``api_key(url)`` would come from (what the settings dialog shows)."""

    ENVIRONMENT = "environment"
    KEYRING = "keyring"
    NONE = "none"  # a keyring is there, with no key for this server
    NO_KEYRING = "no keyring"  # none usable: only the environment variable can give a key


def keyring_username(url: str) -> str:
    """The keyring entry's username for a server: its base address (as the engine writes it)."""
    from inference.engines.remote_http import server_address
    from inference.errors import EngineError

    try:
        return server_address(url)
    except EngineError:
        return url.strip()


def api_key(url: str) -> str | None:
    """The key to send to the server at ``url``, or None (see the module's docstring)."""
    from_env = os.environ.get(ENV_API_KEY, "").strip()
    if from_env:
        return from_env
    return stored_key(url)


def key_source(url: str) -> KeySource:
    if os.environ.get(ENV_API_KEY, "").strip():
        return KeySource.ENVIRONMENT
    backend = _keyring()
    if backend is None:
        return KeySource.NO_KEYRING
    return KeySource.KEYRING if stored_key(url) else KeySource.NONE


def stored_key(url: str) -> str | None:
    """The key in the keyring for ``url``; None when there is none, or no keyring to ask."""
    backend = _keyring()
    if backend is None or not url.strip():
        return None
    try:
        key = backend.get_password(SERVICE, keyring_username(url))
    except Exception:  # a backend may raise anything (D-Bus errors, a locked store): no key, then
        return None
    return str(key) if key else None


def store_key(url: str, key: str) -> None:
    """Keep ``key`` for the server at ``url`` in the keyring (``""``: remove the one kept)."""
    name = keyring_username(url)
    backend = _keyring()
    if backend is None:
        raise KeyringUnavailable(
            "This system has no keyring to keep the API key in (on Linux, a Secret Service such as "
            f"GNOME Keyring or KWallet). Set the {ENV_API_KEY} environment variable instead."
        )
    from keyring.errors import KeyringError, PasswordDeleteError

    try:
        if key:
            backend.set_password(SERVICE, name, key)
        else:
            backend.delete_password(SERVICE, name)
    except PasswordDeleteError:
        pass  # there was none
    except (KeyringError, OSError) as error:
        raise KeyringUnavailable(
            f"The keyring refused to {'store' if key else 'remove'} the API key for {name} ({error}). "
            f"Unlock it and try again, or set the {ENV_API_KEY} environment variable instead.",
            detail=f"keyring backend: {type(backend).__module__}.{type(backend).__name__}",
        ) from None


def _keyring() -> Any | None:
    """The keyring backend, or None when the package is missing or no backend is usable (keyring
    chose its "fail" backend, or was told to use its "null" one)."""
    try:
        import keyring
        from keyring.backends import fail, null
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:  # a broken keyring configuration: no keyring
        return None
    return None if isinstance(backend, (fail.Keyring, null.Keyring)) else backend
