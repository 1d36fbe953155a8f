"""Both versions of a comparison: beside each other where each has room, one above the other
in a narrower pane; a PDF's pages fitted to their text's width, readable at the window's first
size (walk 2026-12-06 finding 6)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.app.controllers.test_compare import EDITS, _pdf, add, compare_selected


def test_the_versions_are_stacked_in_a_narrow_pane_and_beside_each_other_in_a_wide_one(qtbot: Any) -> None:
    from app.views.compare_versions import SIDE_BY_SIDE_MIN, CompareVersions

    versions = CompareVersions()
    qtbot.addWidget(versions)
    versions.resize(2 * SIDE_BY_SIDE_MIN - 100, 700)
    versions.show()
    qtbot.waitUntil(lambda: versions.stacked, timeout=3000)
    assert versions.old.geometry().bottom() < versions.new.geometry().top()  # old above new
    assert versions.old.width() > 2 * SIDE_BY_SIDE_MIN - 120  # each the pane's whole width
    versions.resize(2 * SIDE_BY_SIDE_MIN + 100, 700)
    qtbot.waitUntil(lambda: not versions.stacked, timeout=3000)
    assert versions.old.geometry().right() < versions.new.geometry().left()
    assert abs(versions.old.width() - versions.new.width()) < 20
    assert versions.old.viewer.view.fit_text and versions.new.viewer.view.fit_text


def test_two_pdfs_compared_at_the_windows_first_size_are_readable(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    """At 1360×860 the two PDFs opened side by side at 27-30 % zoom and the viewers' buttons were
    cut ("F…h"): they open one above the other at a zoom their text can be read at."""
    window = make_window()
    window.resize(*window.DEFAULT_SIZE)
    ids = add(window, _pdf(tmp_path / "old.pdf"), _pdf(tmp_path / "new.pdf", EDITS))
    panel = compare_selected(qtbot, window, ids)
    panel.select_change(panel.visible_changes()[0])
    versions = window.compare_versions
    for pane in (versions.old, versions.new):

        def readable(pane: Any = pane) -> None:
            assert pane.viewer.view.zoomFactor() >= 0.6, f"{pane.side} at {pane.viewer.view.zoomFactor():.0%}"

        qtbot.waitUntil(readable, timeout=3000)
        fit = pane.viewer.fit
        assert fit.width() >= fit.sizeHint().width()  # "Fit width", not "F…h"
        assert pane.viewer.view.highlights
    assert versions.stacked  # one above the other: the window's first size is too narrow for both beside
