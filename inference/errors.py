"""Typed errors whose messages are written for the person using Pagewise.

Each message says what failed, on which file, and what to do next. ``app`` shows
``str(error)`` as is; the CLI prints it as one line.
"""

from __future__ import annotations

from pathlib import Path


class PagewiseError(Exception):
    """Base of every error Pagewise reports to a user."""

    exit_code = 1

    def __init__(self, message: str, *, path: Path | str | None = None) -> None:
        super().__init__(message)
        self.path = Path(path) if path is not None else None

    @property
    def message(self) -> str:
        return str(self)


class DocumentError(PagewiseError):
    """A PDF could not be read (missing, not a PDF, broken, encrypted...)."""


class PasswordRequired(DocumentError):
    """The PDF is encrypted and no password (or a wrong one) was given."""

    def __init__(self, message: str, *, path: Path | str | None = None, wrong_password: bool = False) -> None:
        super().__init__(message, path=path)
        self.wrong_password = wrong_password


class LibraryError(PagewiseError):
    """The document library (database, index, data folder) has a problem."""


class DocumentNotFound(LibraryError):
    """No document with that id is in the library."""


class ModelError(PagewiseError):
    """A model file is missing, damaged or unusable."""


class PlanError(PagewiseError):
    """The model cannot be fitted into the memory budget as asked."""


class EngineError(PagewiseError):
    """The inference engine failed (worker crashed, out of memory, server down)."""


class SettingsError(PagewiseError):
    """A setting has an invalid value."""
