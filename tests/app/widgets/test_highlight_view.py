"""The page view: fitting the width of the text (the page's margins left out), scrolled sideways
to its left edge, for the versions of a comparison; the page's width where a page has no text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QRectF

from app.widgets.pdf_viewer import PdfViewer
from tests.pdf_factory import make_pdf

LINE = "The Supplier shall deliver the Products within thirty (30) days of each purchase order received."


def _viewer(qtbot: Any, fit_text: bool) -> PdfViewer:
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.view.fit_text = fit_text
    viewer.resize(420, 600)
    viewer.show()
    return viewer


def test_the_text_width_fills_the_view_and_its_left_edge_is_shown(qtbot: Any, tmp_path: Path) -> None:
    """Walk 2026-12-06 finding 6: the versions side by side opened at 27-30 % (the page's width),
    the text a grey band; fitted to the text, the same pane shows it larger, from its left edge."""
    path = make_pdf(tmp_path / "contract.pdf", [[LINE] * 30, [LINE] * 30])
    page_fit = _viewer(qtbot, fit_text=False)
    assert page_fit.open(path)
    text_fit = _viewer(qtbot, fit_text=True)
    assert text_fit.open(path)
    view = text_fit.view
    left, right = view.text_extent() or (0.0, 0.0)
    assert 60 < left < 80 and right > 400  # the text starts at 72 pt, Helvetica 11 runs past 400 pt
    qtbot.waitUntil(lambda: view.zoomFactor() > page_fit.view.zoomFactor() * 1.2, timeout=3000)
    text = view.viewport_rect(0, QRectF(left, 100, right - left, 10))
    assert 0 <= text.left() <= 20 and text.right() <= view.viewport().width()  # the whole line in sight
    # A change scrolled to keeps the text's left edge in sight.
    assert text_fit.highlight_passage([(2, "thirty (30) days", 0.5)])
    qtbot.waitUntil(lambda: 0 <= view.viewport_rect(1, QRectF(left, 100, 10, 10)).left() <= 20, timeout=3000)
    # Fit width again after a zoom by hand: the text's width again.
    text_fit.zoom_by(1)
    text_fit.fit_to_width()
    assert 0 <= view.viewport_rect(0, QRectF(left, 100, 10, 10)).left() <= 20


def test_a_page_without_text_is_fitted_by_its_width(qtbot: Any, tmp_path: Path) -> None:
    """A scan (no text layer): no text to measure, the page's width is fitted as before."""
    scan = make_pdf(tmp_path / "scan.pdf", [None, None])
    text_fit, page_fit = _viewer(qtbot, fit_text=True), _viewer(qtbot, fit_text=False)
    assert text_fit.open(scan) and page_fit.open(scan)
    assert text_fit.view.text_extent() is None
    assert abs(text_fit.view.zoomFactor() - page_fit.view.zoomFactor()) < 0.01
    # Another file in the same viewer: its text is measured anew.
    assert text_fit.open(make_pdf(tmp_path / "text.pdf", [[LINE] * 10]))
    assert text_fit.view.text_extent() is not None
