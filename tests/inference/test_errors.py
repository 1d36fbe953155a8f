"""Texts quoted in messages are shortened at a word boundary, never mid-word (issue 24, item 3:
"…please unset the HF_HUB_OFFLINE environme")."""

from __future__ import annotations

import pytest

from inference.errors import error_cause, shorten_message

HUB_OFFLINE = (
    "Cannot reach https://huggingface.co/bartowski/Qwen2.5-7B-Instruct-GGUF/resolve/main/"
    "Qwen2.5-7B-Instruct-Q4_K_M.gguf: offline mode is enabled. To disable it, please unset the "
    "`HF_HUB_OFFLINE` environment variable."
)


def _is_word_boundary_cut(original: str, shortened: str) -> bool:
    kept = shortened.removesuffix("…")
    inside_a_word = original[len(kept) - 1].isalnum() and original[len(kept)].isalnum()
    return original.startswith(kept) and not inside_a_word


@pytest.mark.parametrize("limit", [200, 120, 60, 20, 13])
def test_a_long_text_is_cut_between_words_and_ends_in_an_ellipsis(limit: int) -> None:
    shortened = shorten_message(HUB_OFFLINE, limit)
    assert len(shortened) <= limit and shortened.endswith("…")
    assert _is_word_boundary_cut(HUB_OFFLINE, shortened), shortened
    assert "environme…" not in shortened


def test_a_text_that_fits_is_kept_whole() -> None:
    assert shorten_message(HUB_OFFLINE, len(HUB_OFFLINE)) == HUB_OFFLINE
    assert shorten_message("hello world", 6) == "hello…"


def test_one_word_longer_than_the_room_is_cut_after_a_separator() -> None:
    url = "https://example.org/a-rather/long/path/to/some-file.gguf"
    shortened = shorten_message(url, 30)
    assert len(shortened) <= 30 and shortened.endswith("/…") and url.startswith(shortened[:-1])


def test_an_errors_cause_is_its_first_line_whole() -> None:
    assert error_cause(OSError(HUB_OFFLINE + "\nTraceback follows")) == HUB_OFFLINE.removesuffix(".")
    assert error_cause(ValueError("")) == "ValueError"
    long_error = RuntimeError("word " * 200)
    assert error_cause(long_error).endswith("word…") and len(error_cause(long_error)) <= 300
