"""lab.eval.docx_prompt_labels --review: one item's review prompts over a Word contract, before
("[Page N]" and the paragraph on the next line) and after ("[¶ N] " and the paragraph)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab.eval.docx_prompt_labels import review_costs, summarize_review
from tests.summarizer.review.test_word_answers import services_docx


def test_the_review_prompts_are_counted_before_and_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGEWISE_HOME", str(tmp_path / "home"))
    services_docx(tmp_path)
    seen: list[str] = []

    def count(text: str) -> int:
        seen.append(text)
        return len(text.split())

    (row,) = review_costs(tmp_path, ["services"], count)
    assert row["paragraphs"] == 4 and row["readings_before"] == row["readings_after"] == 1
    # Each of the 4 paragraphs: "[Page N]" is one word, "[¶ N]" two; the Word system message is longer.
    assert row["tokens_after"] > row["tokens_before"]
    assert any("[Page 4]\n1.3 Jurisdiction." in text for text in seen)
    assert any("\n[¶ 4] 1.3 Jurisdiction." in text for text in seen)
    summary = summarize_review([row])["development"]
    assert summary["contracts"] == 1 and summary["share_added"] > 0
