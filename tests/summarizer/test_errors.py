"""Document, library and settings errors live in the summarizer; one base still catches all."""

from __future__ import annotations

import pytest

import inference.errors
from inference.errors import PagewiseError
from summarizer.errors import DocumentError, DocumentNotFound, LibraryError, PasswordRequired, SettingsError


@pytest.mark.parametrize("error", [DocumentError, PasswordRequired, LibraryError, DocumentNotFound, SettingsError])
def test_moved_errors_are_pagewise_errors_and_not_inference_ones(error: type[PagewiseError]) -> None:
    with pytest.raises(PagewiseError, match=r"contract\.pdf"):
        raise error("contract.pdf is damaged.", path="contract.pdf")
    assert not hasattr(inference.errors, error.__name__)
