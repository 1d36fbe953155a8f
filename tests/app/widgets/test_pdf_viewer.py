"""The viewer between documents (findings of a new user): a document opens on its first page,
without the last one's search; Enter right after typing finds the match."""

from __future__ import annotations

import itertools
from typing import Any

from PySide6.QtCore import QModelIndex

from app.widgets.pdf_viewer import PdfViewer
from tests.conftest import CONTRACTS


def test_a_new_document_starts_clean(qtbot: Any) -> None:
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.resize(800, 900)
    viewer.show()
    assert viewer.open(CONTRACTS / "license-17p.pdf")
    viewer.go_to_page(9)
    qtbot.waitUntil(lambda: viewer.page_box.value() == 9, timeout=5000)
    viewer.find_box.setText("License")
    qtbot.waitUntil(lambda: viewer.search_model.rowCount(QModelIndex()) > 0, timeout=10000)
    viewer.find_next()
    assert " of " in viewer.find_status.text()
    assert viewer.open(CONTRACTS / "supply-16p.pdf")
    assert viewer.page_box.value() == 1 and viewer.current_page() == 1
    assert viewer.find_box.text() == "" and viewer.find_status.text() == ""


def test_enter_right_after_typing_waits_for_the_search(qtbot: Any) -> None:
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.resize(800, 900)
    viewer.show()
    assert viewer.open(CONTRACTS / "supply-16p.pdf")
    viewer.find_box.setText("Supplier")
    viewer.find_next()  # at once: QtPdf has not searched yet
    qtbot.waitUntil(lambda: " of " in viewer.find_status.text(), timeout=10000)
    viewer.find_box.setText("zzqxj-not-in-the-text")
    viewer.find_next()
    qtbot.waitUntil(lambda: viewer.find_status.text() == "no match", timeout=10000)


def test_after_a_restart_the_page_box_names_the_page_shown(qtbot: Any, make_window: Any) -> None:
    """Issue 24: after a restart the page box said 3 while page 1 was shown."""
    from tests.app.conftest import wait_for_document
    from tests.conftest import CONTRACTS

    window = make_window()
    window.add_paths([CONTRACTS / "license-17p.pdf"])
    wait_for_document(qtbot, window)
    window.close()
    again = make_window()
    qtbot.waitExposed(again)
    qtbot.wait(300)  # the fit-width zoom settles once the window has its size
    assert again.viewer.path is not None
    assert again.viewer.view.verticalScrollBar().value() < 60  # the first page is at the top
    assert again.viewer.page_box.value() == again.viewer.current_page() == 1


def test_the_viewer_toolbar_never_overlaps_when_the_review_tab_narrows_it(qtbot: Any, make_window: Any) -> None:
    """Walk 2026-12-05, finding 22: with the Review tab open (the viewer at its narrowest) the find
    box covered the page count: "/ 8mmencement"."""
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    viewer = window.viewer
    for width in (1360, 900):
        window.resize(width, 700)
        window.tabs.setCurrentWidget(window.review)
        qtbot.wait(50)
        for status in ("searching…", "no match", "999 of 999"):
            viewer.page_count.setText("/ 154")
            viewer.find_box.setText("Commencement")
            viewer.find_status.setText(status)
            viewer.layout().activate()
            row = [viewer.page_box, viewer.page_count, viewer.find_box]
            for left, right in itertools.pairwise(row):
                assert left.geometry().right() < right.geometry().left(), (width, status)
            label = viewer.page_count
            assert label.width() >= label.fontMetrics().horizontalAdvance(label.text()), width
            assert viewer.find_box.geometry().right() < viewer.width()
            inside = viewer.find_status.geometry()  # the status, inside the find box at its end
            assert viewer.find_status.isVisible() and inside.left() >= 0 and inside.right() < viewer.find_box.width()
            assert inside.width() >= viewer.find_status.fontMetrics().horizontalAdvance(status)
            assert viewer.find_box.textMargins().right() >= inside.width()  # the typed text stops before it
        window.tabs.setCurrentIndex(0)
        qtbot.wait(50)


def test_a_highlight_low_on_a_tall_page_is_scrolled_into_view(qtbot: Any, tmp_path: Any) -> None:
    """Seen on a Word contract's LibreOffice pages (issue 43): the citation was at the foot of a
    page taller than the view; the view scrolled to it, then the page box's update of QtPdf's page
    navigator made QPdfView jump to the page's top, and the highlight stayed below the view."""
    from tests.pdf_factory import make_pdf

    filler = [f"Filler line {n} of the first page." for n in range(45)]
    low = [f"Line {n} of the second page, before the cited words." for n in range(44)] + ["Cited words here."]
    pdf = make_pdf(tmp_path / "tall.pdf", [filler, low, filler])
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.resize(700, 620)
    viewer.show()
    qtbot.waitExposed(viewer)
    assert viewer.open(pdf)
    qtbot.wait(100)  # the fit-width zoom settles: a page is taller than the view
    (highlight,) = viewer.highlight_passage([(2, "Cited words here.", 0.9)], focus_page=2)
    shown = viewer.view.viewport_rect(highlight.page, highlight.rects[0])
    assert shown.top() >= 0 and shown.bottom() <= viewer.view.viewport().height()
    assert viewer.page_box.value() == 2
