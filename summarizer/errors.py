"""The errors of documents, the library and settings: typed, with messages written for the user.

They subclass ``inference.errors.PagewiseError``, so one ``except PagewiseError`` still catches
every error Pagewise reports; the inference errors (model, plan, engine) stay on their floor.
"""

from __future__ import annotations

from pathlib import Path

from inference.errors import PagewiseError


class DocumentError(PagewiseError):
    """A PDF could not be read (missing, not a PDF, broken, encrypted...)."""


class PasswordRequired(DocumentError):
    """The PDF is encrypted and no password (or a wrong one) was given."""

    def __init__(self, message: str, *, path: Path | str | None = None, wrong_password: bool = False) -> None:
        super().__init__(message, path=path)
        self.wrong_password = wrong_password


class NoText(DocumentError):
    """The document has no text to answer from (a scanned PDF, until OCR reads it)."""


class LibraryError(PagewiseError):
    """The document library (database, index, data folder) has a problem."""


class DiskFull(LibraryError):
    """The disk holding the library has no space left: nothing is damaged, space must be freed."""


class DocumentNotFound(LibraryError):
    """No document with that id is in the library."""


class SettingsError(PagewiseError):
    """A setting has an invalid value."""
