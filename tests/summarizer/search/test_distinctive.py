from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from summarizer.search import distinctive
from summarizer.search.distinctive import common_english, distinctive_terms, lexicon_words


def shares_of(known: dict[str, float]) -> Callable[[Sequence[str]], dict[str, float]]:
    def shares(words: Sequence[str]) -> dict[str, float]:
        return {w: known.get(w, 0.0) for w in words}

    return shares


def test_the_words_that_name_a_category_are_the_lexicons() -> None:
    assert lexicon_words("Is there a non-compete?") == {"non", "compete"}  # the pattern matches "non-compet"
    assert lexicon_words("third party IP infringement indemnity") == {"third", "party", "indemnity"}
    assert lexicon_words("product warranty of shelf life") == {"warranty"}


def test_common_english_words_come_from_the_shipped_vocabulary() -> None:
    common = common_english()
    assert common is not None
    assert {"get", "deal", "someone", "happens", "york"} <= common
    assert not {"misconduct", "merchantability", "escrow", "fraud", "ucc"} & common


def test_a_distinctive_term_is_rare_held_and_uncommon() -> None:
    query = "fraud or willful misconduct carveout to liability cap, in New York if we get a deal"
    shares = shares_of({"fraud": 0.01, "misconduct": 0.2, "willful": 0.0, "york": 0.01, "get": 0.01, "deal": 0.01})
    # misconduct: in 20% of passages; willful: in none; york, get, deal: common English
    assert distinctive_terms(query, shares) == ["fraud"]
    assert distinctive_terms(query, shares, max_share=0.25) == ["fraud", "misconduct"]
    assert distinctive_terms("Can we walk away from this deal at any time?", shares) == []


def test_without_the_vocabulary_no_choice_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(distinctive, "assets_dir", lambda: tmp_path)
    monkeypatch.setattr(distinctive, "_common", None)
    monkeypatch.setattr(distinctive, "_warned", False)
    with caplog.at_level(logging.WARNING, logger="pagewise.search"):
        assert distinctive_terms("fraud carveout", shares_of({"fraud": 0.01})) is None
    assert "tokenizer.json" in caplog.text and "reinstall Pagewise" in caplog.text
