"""The review scene's picture shows a finished review: the scene waits for the review the Review
button started (several contracts with the model: the data room's job) and refuses to save a
window whose grid still has contracts not reviewed or items pending."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scripts.screenshots.review import review_all, review_window, save_reviewed, unreviewed_cells

CUAD = Path(__file__).resolve().parents[2] / "summarizer" / "review" / "checklists" / "cuad.csv"
ITEMS = ("parties", "governing-law", "anti-assignment")  # CUAD's own rows: the scene's fake model knows them


@pytest.fixture
def shown_window(pagewise_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The review scenes' window, offscreen, with two of the bundled contracts read."""
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    pagewise_home.mkdir(parents=True, exist_ok=True)
    _app, window, _engine, _session = review_window(
        pagewise_home, ("endorsement-8p.pdf", "supply-16p.pdf"), piece_delay_s=0.0, ingest_timeout_s=180
    )
    window.confirm_close = lambda _running: True
    yield window
    window.close()


def test_the_review_scene_saves_the_grid_only_when_the_model_review_of_both_contracts_is_shown(
    shown_window: Any, tmp_path: Path
) -> None:
    window = shown_window
    window.tabs.setCurrentWidget(window.review)
    assert len(window.library.documents()) == 2
    lines = CUAD.read_text(encoding="utf-8").splitlines()
    checklist = tmp_path / "three.csv"
    checklist.write_text("\n".join([lines[0], *(line for line in lines if line.split(",")[0] in ITEMS)]) + "\n")
    assert window.reviews.use_checklist(str(checklist))  # three items: seconds, not the 41 of CUAD
    picture = tmp_path / "review-tab.png"
    for record in window.library.documents():
        window.review.set_checked(record.doc_id)
    unfinished = unreviewed_cells(window.review)
    assert len(unfinished) == 2 and all(line.endswith(": not reviewed") for line in unfinished)
    with pytest.raises(SystemExit, match=r"review-tab\.png not taken, the review is not finished: .*not reviewed"):
        save_reviewed(window, picture)
    assert not picture.exists()

    review_all(window, evidence_only=False, timeout_s=300)
    assert unreviewed_cells(window.review) == []
    statuses = {item.status for review in window.review.columns for item in review.items}
    assert "answered" in statuses  # the model's answers, not only evidence
    save_reviewed(window, picture)
    assert picture.stat().st_size > 0
