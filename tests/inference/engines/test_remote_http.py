"""A warning before an API key or documents' text goes over plain http to another computer
(shared/reports/hostile-inputs-2026-12-06.md, section 5)."""

from __future__ import annotations

import pytest

from inference.engines.remote_http import cleartext_warning


@pytest.mark.parametrize("url", ["http://10.0.0.5:8080", "http://llm.example.com/v1", "HTTP://192.168.1.20:8000"])
def test_plain_http_to_another_computer_is_warned_of(url: str) -> None:
    warning = cleartext_warning(url)
    assert warning is not None and "unencrypted" in warning and "https://" in warning


@pytest.mark.parametrize(
    "url", ["https://llm.example.com", "http://localhost:8080", "http://127.0.0.1:8080/v1", "http://[::1]:8080", ""]
)
def test_https_or_this_computer_is_not(url: str) -> None:
    assert cleartext_warning(url) is None
