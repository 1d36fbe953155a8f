"""Asking: streamed answers with citations that jump to the page and highlight the passage."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QColor

from app.services.answering import AnswerView, CitationView
from inference.engines.fake import FakeEngine
from inference.errors import EngineError
from inference.progress import Stage
from tests.app.conftest import DocumentFake, wait_for_document
from tests.conftest import CONTRACTS
from tests.pdf_factory import make_pdf, page_stream, scanned_copy, text_pages
from tests.prose import prose

QUESTION = "Who pays the endorsement fee?"


def first_passage_page(prompt: str) -> int:
    """The last page of the first passage in an answer prompt ("Passage 1 (pp. 3-4):")."""
    match = re.search(r"Passage 1 \(pp?\. (\d+)(?:-(\d+))?\)", prompt)
    assert match, prompt[-800:]
    return int(match.group(2) or match.group(1))


def ingest(qtbot: Any, window: Any, name: str = "license-17p.pdf") -> str:
    window.add_paths([CONTRACTS / name])
    return wait_for_document(qtbot, window)


def test_ask_streams_an_answer_and_a_citation_highlights_the_passage(
    qtbot: Any, make_window: Any, fake_engine: FakeEngine
) -> None:
    window = make_window()
    ingest(qtbot, window)
    fake_engine.queue(
        lambda prompt: (
            f"The licensee pays it, see the fee clause [p. {first_passage_page(prompt)}]. An invented one [p. 99]."
        )
    )
    pieces: list[str] = []
    job = window.ask(QUESTION)
    job.piece.connect(pieces.append)
    with qtbot.waitSignal(job.finished, timeout=20_000):
        pass
    assert len(pieces) >= 2 and "".join(pieces).startswith("The licensee")  # streamed, not all at once
    answer: AnswerView = window.conversation.turns[-1]
    assert answer.mode == "passages"  # 17 pages do not fit the fake's 8K context; no summary stored
    cited, invalid = answer.citations
    page = cited.page
    passage = next(p for p in answer.raw.passages if p.passage_id == cited.passage_id)
    assert cited.valid and page == passage.page_end
    assert invalid.page == 99 and not invalid.valid
    markdown = window.conversation.markdown()
    assert f"(cite:0/{cited.number})" in markdown and "~~p.\u00a099~~" in markdown
    assert window.status.last_rate is not None or window.status.speed_label.text() == ""

    # Click the citation: the viewer scrolls to the page and paints the passage.
    window.conversation.browser.anchorClicked.emit(QUrl(f"cite:0/{cited.number}"))
    highlights = window.viewer.view.highlights
    assert {h.page + 1 for h in highlights} == {s[0] for s in passage.spans}  # one per page crossed
    focus = next(h for h in highlights if h.page == page - 1)
    qtbot.waitUntil(lambda: window.viewer.page_box.value() == page, timeout=3000)
    rect = window.viewer.view.viewport_rect(focus.page, focus.rects[0])
    assert window.viewer.view.viewport().rect().intersects(rect.toRect())
    image = window.viewer.view.viewport().grab().toImage()
    centre = rect.center().toPoint() * image.devicePixelRatio()
    color = QColor(image.pixel(centre))
    assert color.blue() < color.red() - 40, f"no highlight painted at {centre}: {color.name()}"

    # An invalid citation says so and goes to the page.
    window.conversation.browser.anchorClicked.emit(QUrl(f"cite:0/{invalid.number}"))  # not a link: ignored
    window.show_citation(invalid)
    assert "not in the passages" in window.messages.history[-1].text


def test_a_passage_across_a_page_break_is_highlighted_without_the_footer_and_header(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    """Issue 24, finding 23: the highlight covered the running footer and page number at the
    foot of one page and the running header at the top of the next."""
    pages: list[list[str] | bytes | None] = []
    for n, lines in enumerate(text_pages(3, words_per_page=200), start=1):
        body = lines[1:]  # a clause starting mid-page: passages run from one to the next, across the page break
        body.insert(len(body) // 2, f"{n}. Delivery Terms. The parties agree as follows.")
        footer = ("Acme Corp. - Confidential", f"Page {n} of 3")
        pages.append(page_stream(body, header="Acme Corp. Supply Agreement", footer=footer))
    # In page points from the top: the header near 16, the body from 52 to about 300, the footer below 740.
    window = make_window()
    window.add_paths([make_pdf(tmp_path / "footers.pdf", pages)])
    doc_id = wait_for_document(qtbot, window)
    rows = window.library.db.execute("SELECT passage_id, text, spans FROM passages WHERE doc_id = ?", [doc_id])
    passage_id, text, spans = next((pid, text, spans) for pid, text, spans in rows if len(json.loads(spans)) == 2)
    assert "Page 1 of 3" in text or "Page 2 of 3" in text  # the stored passage crosses the footer
    spans = tuple(tuple(span) for span in json.loads(spans))
    window.show_citation(CitationView(1, doc_id, spans[-1][0], passage_id, text, True, spans))
    highlights = window.viewer.view.highlights
    assert {h.page + 1 for h in highlights} == {page for page, _, _ in spans}
    for highlight in highlights:
        for rect in highlight.rects:
            assert rect.top() > 30 and rect.bottom() < 700, (highlight.page + 1, rect)


PASSAGES_NOTE = "Answered from passages; the document summary is still being made."
SUMMARY_STAGES = {Stage.COUNT_TOKENS, Stage.SUMMARIZE_SEGMENTS, Stage.REDUCE, Stage.SUMMARIZED}


def test_a_first_question_is_answered_from_the_passages_without_summarizing(
    qtbot: Any, make_window: Any, fake_engine: Any
) -> None:
    """Issue 25: the first question about a long document waited minutes for its summary."""
    window = make_window()
    doc_id = ingest(qtbot, window)
    fake_engine.queue(lambda prompt: f"The licensee pays it [p. {first_passage_page(prompt)}].")
    stages: list[Stage] = []
    labels: list[str] = []
    job = window.ask(QUESTION)
    job.progressed.connect(lambda progress: stages.append(progress.stage))
    job.progressed.connect(lambda _progress: labels.append(window.conversation.progress.label.text()))
    with qtbot.waitSignal(job.finished, timeout=20_000):
        pass
    answer: AnswerView = window.conversation.turns[-1]
    assert answer.mode == "passages" and answer.citations[0].valid  # 17 pages do not fit the fake's 8K context
    assert len(fake_engine.calls) == 1, "the answer is the only model call: nothing was summarized"
    assert not SUMMARY_STAGES & set(stages) and Stage.READ_PASSAGES in stages
    assert not [label for label in labels if "ummariz" in label]
    assert PASSAGES_NOTE in window.conversation.browser.toPlainText()
    assert window.conversation.markdown().count(PASSAGES_NOTE) == 1

    # Once the summary is made, the next answer uses it and says nothing of passages.
    window.tabs.setCurrentIndex(1)
    with qtbot.waitSignal(window.summarize().finished, timeout=30_000):
        pass
    fake_engine.queue(lambda prompt: f"Again [p. {first_passage_page(prompt)}].")
    with qtbot.waitSignal(window.ask(QUESTION).finished, timeout=20_000):
        pass
    assert window.conversation.turns[-1].mode == "retrieval"
    assert window.conversation.markdown().count(PASSAGES_NOTE) == 1  # only under the first answer
    window.select_document(None)  # the stored turns keep their mode
    window.select_document(doc_id)
    assert [t.mode for t in window.conversation.turns] == ["passages", "retrieval"]


def test_the_conversation_survives_a_restart(qtbot: Any, make_window: Any, fake_engine: FakeEngine) -> None:
    window = make_window()
    doc_id = ingest(qtbot, window)
    fake_engine.queue("First answer [p. 1].")
    with qtbot.waitSignal(window.ask("First question?").finished, timeout=20_000):
        pass
    window.close()
    again = make_window()
    assert again.doc_id == doc_id  # the selected document is restored
    assert [t.question for t in again.conversation.turns] == ["First question?"]
    assert "First answer" in again.conversation.browser.toPlainText()


def test_esc_cancels_an_answer(qtbot: Any, make_window: Any, fake_engine: FakeEngine) -> None:
    fake_engine.piece_delay_s = 0.05
    fake_engine.queue(prose(400))
    window = make_window()
    ingest(qtbot, window)
    job = window.ask("Long answer please?")
    qtbot.waitUntil(lambda: len(window.conversation.pending_text) > 20, timeout=20_000)
    window.activateWindow()
    window.conversation.question.setFocus()
    with qtbot.waitSignal(job.cancelled, timeout=3000):
        qtbot.keyClick(window.conversation.question, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.answer_job is None, timeout=3000)
    assert window.conversation.turns == []
    assert "Stopped." in window.conversation.markdown()
    assert window.conversation.ask_button.isEnabled()


def crashing_engine() -> Any:
    """A fake whose worker "dies" on request, like LocalEngine after a segfault."""
    engine = DocumentFake.make()
    engine.crash_next = False
    engine.restarts = 0
    generate = engine.generate

    def crashing_generate(prompt: Any, **kwargs: Any) -> Any:
        if engine.crash_next:
            engine.crash_next = False
            engine.unload()
            raise EngineError("The model worker for fake.gguf stopped while working: it crashed (SIGSEGV).")
        return generate(prompt, **kwargs)

    def restart(progress: Any = None, cancel: Any = None) -> Any:
        engine.restarts += 1
        return engine.load()

    engine.generate = crashing_generate
    engine.restart = restart
    return engine


def test_a_worker_crash_is_reported_and_the_model_restarted(qtbot: Any, make_window: Any) -> None:
    engine = crashing_engine()
    engine.queue("Before the crash [p. 1].", "After the restart [p. 2].")
    window = make_window(engine)
    ingest(qtbot, window)
    with qtbot.waitSignal(window.ask("One?").finished, timeout=20_000):
        pass
    engine.crash_next = True
    with qtbot.waitSignal(window.ask("Two?").finished, timeout=20_000):
        pass
    qtbot.waitUntil(lambda: engine.restarts == 1 and window.model_setup.activity_job is None, timeout=10_000)
    texts = [m.text for m in window.messages.history]
    banner = next(t for t in texts if "stopped while working" in t)
    # one message, sentences apart: what happens (the app restarts the model), then the error
    assert banner.startswith("The model is being restarted; your conversation is kept. The model worker")
    assert "restart the model" not in banner.lower()
    assert [t.question for t in window.conversation.turns] == ["One?"]  # kept
    with qtbot.waitSignal(window.ask("Three?").finished, timeout=20_000):
        pass
    assert [t.question for t in window.conversation.turns] == ["One?", "Three?"]
    shown = window.conversation.markdown()  # the interrupted turn stays in view, in its place
    assert shown.index("One?") < shown.index("Two?") < shown.index("Three?")
    assert "It is being restarted" in shown
    bar = window.conversation.browser.verticalScrollBar()
    assert bar.value() == bar.maximum()  # scrolled to the latest answer


@pytest.mark.parametrize("configured", [False])
def test_first_run_without_a_model_explains_what_is_needed(qtbot: Any, make_window: Any, configured: bool) -> None:
    window = make_window(real_planner=True)
    assert window.welcome.isVisible()
    assert "No model configured" in window.status.plan_label.text()
    ingest(qtbot, window)  # documents can be added without a model
    assert window.ask("Anything?") is None
    assert "needs a language model" in window.messages.history[-1].text
    assert "needs a language model" in window.conversation.markdown()


def test_ctrl_enter_asks(qtbot: Any, make_window: Any, fake_engine: FakeEngine) -> None:
    window = make_window()
    ingest(qtbot, window)
    fake_engine.queue("Yes [p. 1].")
    window.activateWindow()
    window.conversation.question.setFocus()
    qtbot.keyClicks(window.conversation.question, "Is it signed?")
    qtbot.keyClick(window.conversation.question, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(window.conversation.turns) == 1, timeout=20_000)
    assert window.conversation.turns[0].question == "Is it signed?"
    assert window.conversation.question.toPlainText() == ""


def test_summarize_shows_the_summary_with_page_links(qtbot: Any, make_window: Any, fake_engine: Any) -> None:
    window = make_window()
    doc_id = ingest(qtbot, window)
    window.tabs.setCurrentIndex(1)
    job = window.summarize()
    states: list[str] = []
    job.progressed.connect(lambda _p: states.append(window.library_panel.state_of(doc_id) or ""))
    with qtbot.waitSignal(job.finished, timeout=30_000):
        pass
    summary = window.summary.summary
    assert summary is not None and summary.super_summary and len(summary.segments) >= 2
    assert any(s.startswith("summarizing") for s in states)
    markdown = window.summary.markdown()
    assert "## Summary" in markdown and f"pp.\u00a0{summary.segments[0].page_start}" in markdown
    last = summary.segments[-1]
    window.summary.browser.anchorClicked.emit(QUrl(f"page:{last.page_start}"))
    qtbot.waitUntil(lambda: window.viewer.page_box.value() == last.page_start, timeout=3000)
    # Selecting the document again shows the stored summary without calling the model.
    calls = len(fake_engine.calls)
    window.select_document(None)
    window.select_document(doc_id)
    assert window.summary.summary == summary and len(fake_engine.calls) == calls


def test_an_answer_without_citations_shows_the_passages_it_was_given(
    qtbot: Any, make_window: Any, fake_engine: FakeEngine
) -> None:
    """Finding: SmolLM2 wrote no [p. N] at all, and the answer showed nothing to check it against."""
    window = make_window()
    doc_id = ingest(qtbot, window)
    fake_engine.queue("The licensee pays the fee.")  # no citation at all
    with qtbot.waitSignal(window.ask(QUESTION).finished, timeout=20_000):
        pass
    answer: AnswerView = window.conversation.turns[-1]
    assert answer.citations == [] and answer.mode == "passages"
    given = answer.raw.passages
    assert [s.passage_id for s in answer.sources] == [p.passage_id for p in given]
    markdown = window.conversation.markdown()
    assert "Passages given to the model" in markdown and f"(src:0/{answer.sources[0].number})" in markdown
    first = answer.sources[0]
    window.conversation.browser.anchorClicked.emit(QUrl(f"src:0/{first.number}"))  # a chip jumps and highlights
    assert {h.page + 1 for h in window.viewer.view.highlights} == {s[0] for s in given[0].spans}
    qtbot.waitUntil(lambda: window.viewer.page_box.value() == first.page, timeout=3000)
    window.select_document(None)  # the chips come back with the stored conversation
    window.select_document(doc_id)
    assert [s.page for s in window.conversation.turns[-1].sources] == [s.page for s in answer.sources]


def test_a_stopped_answer_keeps_its_citation_links(qtbot: Any, make_window: Any, fake_engine: FakeEngine) -> None:
    """Finding: a stopped answer lost its citation links (its text was shown as plain text)."""
    fake_engine.piece_delay_s = 0.03
    fake_engine.queue(lambda prompt: f"It is in the fee clause [p. {first_passage_page(prompt)}]. more " + prose(400))
    window = make_window()
    ingest(qtbot, window)
    job = window.ask(QUESTION)
    qtbot.waitUntil(lambda: "]. more" in window.conversation.pending_text, timeout=20_000)
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        window.answers.cancel()
    qtbot.waitUntil(lambda: window.answer_job is None, timeout=5000)
    markdown = window.conversation.markdown()
    assert "Stopped." in markdown and "(cite:0/1)" in markdown and "(src:0/1)" in markdown
    assert window.conversation.turns == []  # not kept as an answer
    window.conversation.browser.anchorClicked.emit(QUrl("cite:0/1"))
    assert window.viewer.view.highlights  # the link jumps and highlights, as in a finished answer


def test_a_scanned_pdf_gets_a_notice_instead_of_an_answer(
    qtbot: Any, make_window: Any, fake_engine: Any, tmp_path: Path
) -> None:
    """Issue 24: a question about a no-text document got an ungrounded answer, with no warning."""
    from tests.pdf_factory import make_pdf

    window = make_window()
    window.add_paths([make_pdf(tmp_path / "scan.pdf", [None, None])])
    wait_for_document(qtbot, window)
    assert window.answers.ask("What is this agreement about?") is None
    text = window.conversation.browser.toPlainText()
    assert "scan.pdf has no text to answer from" in text and "…" not in text
    assert window.conversation.question.toPlainText() == "What is this agreement about?"  # to ask again later
    assert not fake_engine.calls


def test_an_answer_without_a_valid_citation_says_so_above_its_sources(
    qtbot: Any, make_window: Any, fake_engine: FakeEngine
) -> None:
    """Walk 2026-12-05, finding 20: "This answer cites no page" under an answer that cited 14
    pages, and "Not supported by the passages given: p. 18, 19, … 31" for a 17-page document."""
    window = make_window()
    doc_id = ingest(qtbot, window)
    pages = window.library.document(doc_id).pages
    fake_engine.queue("The licensee pays the fee [p. 999].")  # a page outside the passages given
    with qtbot.waitSignal(window.ask(QUESTION).finished, timeout=20_000):
        pass
    markdown = window.conversation.markdown()
    warning = markdown.index("None of the pages this answer cites is among the passages given to the model")
    assert warning < markdown.index("Passages given to the model")
    assert f"p.\u00a0999 is not in the document: it has {pages} pages." in markdown
    assert "cites no page" not in markdown and "Not supported" not in markdown
    fake_engine.queue(lambda prompt: f"It is in the fee clause [p. {first_passage_page(prompt)}].")
    with qtbot.waitSignal(window.ask(QUESTION).finished, timeout=20_000):
        pass
    assert window.conversation.markdown().count("None of the pages this answer cites") == 1  # the cited one has none
    fake_engine.queue("The fee is due in advance.")  # no page at all
    with qtbot.waitSignal(window.ask(QUESTION).finished, timeout=20_000):
        pass
    assert window.conversation.markdown().count("This answer cites no page") == 1


def test_a_whole_document_answer_without_a_valid_page_says_so_and_shows_what_was_read(
    qtbot: Any, make_window: Any, fake_engine: FakeEngine
) -> None:
    """Walk 2026-12-05, finding 2: an answer made from the whole document ("Reading the
    document") showed no page, no "cites no page" line and no list of what was read."""
    window = make_window()
    doc_id = ingest(qtbot, window, "endorsement-8p.pdf")
    fake_engine.queue("The commencement date of the Agreement is 2014-08-08.")  # no citation
    with qtbot.waitSignal(window.ask("When does the agreement start?").finished, timeout=20_000):
        pass
    answer: AnswerView = window.conversation.turns[-1]
    assert answer.mode == "whole-document" and answer.citations == []
    assert [(s.page, s.page_end) for s in answer.sources] == [(1, 8)]
    markdown = window.conversation.markdown()
    assert "⚠ This answer cites no page" in markdown
    assert "*Read: the whole document,* [pp.\u00a01–8](src:0/1)" in markdown
    assert markdown.index("This answer cites no page") < markdown.index("Read: the whole document")
    window.viewer.go_to_page(5)
    window.conversation.browser.anchorClicked.emit(QUrl("src:0/1"))  # the link shows the pages read
    qtbot.waitUntil(lambda: window.viewer.page_box.value() == 1, timeout=3000)
    fake_engine.queue("It starts on 1 January 2013 [p. 99].")  # a page the document does not have
    with qtbot.waitSignal(window.ask("When does the agreement start?").finished, timeout=20_000):
        pass
    cited = window.conversation.turns[-1].citations
    assert [(c.page, c.valid) for c in cited] == [(99, False)]
    fake_engine.queue("It starts on 1 January 2013 [p. 1].")
    with qtbot.waitSignal(window.ask("When does the agreement start?").finished, timeout=20_000):
        pass
    markdown = window.conversation.markdown()
    assert markdown.count("This answer cites no page") == 1  # the valid [p. 1] has none
    assert markdown.count("None of the pages this answer cites is among the pages read") == 1  # [p. 99]
    assert "p.\u00a099 is not in the document: it has 8 pages." in markdown
    window.select_document(None)  # kept with the stored conversation
    window.select_document(doc_id)
    assert [(s.page, s.page_end) for s in window.conversation.turns[0].sources] == [(1, 8)]
    assert window.conversation.markdown().count("This answer cites no page") == 1
    assert "p.\u00a099 is not in the document: it has 8 pages." in window.conversation.markdown()


def test_the_conversation_export_keeps_the_cited_passages_and_the_passages_given(
    qtbot: Any, make_window: Any, fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Issue 24: the conversation's Markdown export dropped the cited pages' passages."""
    window = make_window()
    ingest(qtbot, window)
    fake_engine.queue(lambda prompt: f"It is in the fee clause [p. {first_passage_page(prompt)}].")
    with qtbot.waitSignal(window.ask(QUESTION).finished, timeout=20_000):
        pass
    answer: AnswerView = window.conversation.turns[-1]
    cited = next(c for c in answer.citations if c.valid)
    window.export.choose_path = lambda suggested: str(tmp_path / suggested)
    window.conversation.export_button.click()
    (exported,) = tmp_path.glob("*.md")
    text = exported.read_text()
    first_words = " ".join(cited.text.split()[:8])
    assert f"p.\u00a0{cited.page}: “{first_words}" in text
    assert "Passages given to the model:" in text
    assert text.count("\n- p.\u00a0") >= len(answer.sources)


def test_a_citation_on_a_scanned_page_highlights_the_words_ocr_read(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    """Issue 27: the window's ingest reads a scan with the real OCR engine; a citation of one of
    its passages highlights the words' boxes from the library, since QtPdf has no text there."""
    scan = scanned_copy(CONTRACTS / "supply-16p.pdf", [2], tmp_path / "scan.pdf", dpi=150)
    window = make_window()
    window.add_paths([scan])
    doc_id = wait_for_document(qtbot, window, timeout=180_000)
    record = window.library.document(doc_id)
    assert record.status == "indexed" and record.passages > 0
    assert any("read by OCR" in w for w in record.warnings)
    rows = window.library.db.execute("SELECT passage_id, text, spans FROM passages WHERE doc_id = ?", [doc_id])
    passage_id, text, spans = next(iter(rows.fetchall()))
    spans = tuple(tuple(span) for span in json.loads(spans))
    window.show_citation(CitationView(1, doc_id, 1, passage_id, text, True, spans))
    highlights = window.viewer.view.highlights
    assert [h.page for h in highlights] == [0] and highlights[0].rects
    for rect in highlights[0].rects:  # on the page (595 x 842 points), one box per line of text
        assert 0 <= rect.left() < rect.right() <= 596 and 0 <= rect.top() < rect.bottom() <= 843
        assert rect.height() < 30


def test_a_stopped_answer_stays_after_switching_documents_and_back(
    qtbot: Any, make_window: Any, fake_engine: FakeEngine
) -> None:
    """Walk 2026-12-05, finding 16: a stopped answer vanished with its question when the user
    switched to another document and back; one stopped while another document was shown too."""
    fake_engine.piece_delay_s = 0.03
    fake_engine.queue("The fee is paid monthly. " + prose(400), "The term is five years. " + prose(400))
    window = make_window()
    first = ingest(qtbot, window)
    ingest(qtbot, window, "endorsement-8p.pdf")
    second = next(r.doc_id for r in window.library.documents() if r.doc_id != first)
    window.select_document(first)
    job = window.ask(QUESTION)
    qtbot.waitUntil(lambda: "paid monthly" in window.conversation.pending_text, timeout=20_000)
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        window.answers.cancel()
    qtbot.waitUntil(lambda: window.answer_job is None, timeout=5000)
    window.select_document(second)
    assert QUESTION not in window.conversation.markdown()
    window.select_document(first)
    shown = window.conversation.markdown()
    assert QUESTION in shown and "paid monthly" in shown and "Stopped." in shown
    # an answer stopped while another document is shown is there when its document is shown again
    job = window.ask("How long is the term?")
    qtbot.waitUntil(lambda: "five years" in window.conversation.pending_text, timeout=20_000)
    window.select_document(second)
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        window.answers.cancel()
    qtbot.waitUntil(lambda: window.answer_job is None, timeout=5000)
    window.select_document(first)
    shown = window.conversation.markdown()
    assert shown.index(QUESTION) < shown.index("How long is the term?") < shown.index("five years")
    assert shown.count("Stopped.") == 2


def test_the_conversation_export_says_when_by_which_model_and_that_it_is_machine_generated(
    qtbot: Any, make_window: Any, fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Walk 2026-12-05, finding 17: the conversation export had no date, no model, no
    "machine-generated" line and no confidentiality header, unlike the review memo; the model
    and time of each answer are stored with it, so an export after a restart has them too."""
    window = make_window()
    ingest(qtbot, window)
    fake_engine.queue("The fee is paid monthly [p. 1].")
    with qtbot.waitSignal(window.ask(QUESTION).finished, timeout=20_000):
        pass
    window.close()
    again = make_window()
    again.export.choose_path = lambda suggested: str(tmp_path / suggested)
    again.conversation.export_button.click()
    (exported,) = tmp_path.glob("*.md")
    text = exported.read_text()
    assert text.startswith("**CONFIDENTIAL")
    assert re.search(r"- exported \d{1,2} \w+ 20\d\d, \d\d:\d\d UTC", text)
    assert "- answered by fake-model" in text
    assert "Machine-generated: verify every answer" in text
    stamp = r"\d{1,2} \w+ 20\d\d, \d\d:\d\d UTC"
    assert re.search(rf"## {re.escape(QUESTION)}\n\n\*Answered by fake-model, {stamp}\*", text)


def test_find_in_document_finds_the_words_ocr_read_on_a_scanned_page(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    """Walk 2026-12-05, finding 8: on a scan, Ctrl+F "Commencement" said "no match" although the
    word is on page 1 and was read by OCR (QtPdf searches only a text layer)."""
    import re

    scan = scanned_copy(CONTRACTS / "supply-16p.pdf", [2], tmp_path / "scan.pdf", dpi=150)
    window = make_window()
    window.add_paths([scan])
    doc_id = wait_for_document(qtbot, window, timeout=180_000)
    page_text = window.library.page_text(doc_id, 1)
    long_words = [w for w in re.findall(r"[A-Za-z]{9,}", page_text)]
    word = long_words[len(long_words) // 2]
    expected = len(re.findall(re.escape(word), page_text, re.IGNORECASE))
    viewer = window.viewer
    viewer.find_box.setText(word.upper())  # case is ignored, as QtPdf's own find does
    viewer.find_next()
    assert viewer.find_status.text() == f"1 of {expected}"
    (highlight,) = viewer.view.highlights
    assert highlight.page == 0 and highlight.rects
    for rect in highlight.rects:  # on the page (595 x 842 points)
        assert 0 <= rect.left() < rect.right() <= 596 and 0 <= rect.top() < rect.bottom() <= 843
    viewer.find_box.setText("zzqx nowhere in this contract")
    viewer.find_next()
    qtbot.waitUntil(lambda: viewer.find_status.text() == "no match", timeout=5000)


def test_a_citation_of_a_word_document_shows_its_clause_and_copies_its_words(
    qtbot: Any, make_window: Any, fake_engine: FakeEngine, tmp_path: Path
) -> None:
    from PySide6.QtGui import QGuiApplication

    from tests.docx_factory import para, write_heading_clauses_docx

    body = para("Payment", style="Heading1") + para("Invoices. The buyer pays every month by wire.", num=(1, 1))
    path = write_heading_clauses_docx(tmp_path / "supply.docx", body)
    window = make_window()
    window.add_paths([path])
    doc_id = wait_for_document(qtbot, window)
    assert window.viewer.word.isVisible()  # selected: shown as rich text, not "PDFs only"
    fake_engine.queue("The buyer pays every month [¶ 2].")
    job = window.ask("When does the buyer pay?")
    with qtbot.waitSignal(job.finished, timeout=20_000):
        pass
    assert "[§\u00a01.1,\u00a0¶\u00a02](cite:" in window.conversation.markdown()  # not "p. 2": a paragraph
    window.show_citation(CitationView(1, doc_id, 2, None, "[¶ 2]", True))
    shown = window.viewer.word
    assert shown.isVisible() and shown.title.text() == "§ 1.1 Invoices, ¶ 2 — supply.docx"
    assert "1.1 Invoices. The buyer pays every month by wire." in shown.browser.toPlainText()
    shown.copy_words.click()
    clipboard = QGuiApplication.clipboard()
    assert clipboard is not None and clipboard.text() == "1.1 Invoices. The buyer pays every month by wire."
    shown.copy_reference.click()
    assert clipboard.text() == "§ 1.1 Invoices, ¶ 2"
    window.show_citation(CitationView(2, doc_id, 9, None, "[p. 9]", False))
    assert window.messages.history[-1].text.startswith("¶ 9 was cited, but it is not in the passages")


def _hits(count: int) -> list[Any]:
    from app.services.library_question import ContractHit
    from summarizer.search.retrieval import SearchResult

    hits = []
    for n in range(count):
        passage = SearchResult(n, f"doc{n}", f"Change of control clause {n}.", 2, 2, 1.0, [(2, 0, 10)])
        view = CitationView(n + 1, f"doc{n}", 2, n, passage.text, True, tuple(passage.spans))
        hits.append(ContractHit(f"doc{n}", f"Contract {n}", view, 1, passage))
    return hits


def test_a_full_list_of_contracts_says_more_may_have_the_clause_and_where_to_find_them_all() -> None:
    from app.views.conversation_view import contract_lines
    from summarizer.search.by_contract import CONTRACTS_SHOWN

    few = "\n".join(contract_lines(0, _hits(3)))
    assert "3 contracts with a matching passage" in few and "Review tab" not in few
    full = "\n".join(contract_lines(0, _hits(CONTRACTS_SHOWN)))
    assert f"The {CONTRACTS_SHOWN} contracts whose passages match best" in full
    assert "contracts with a matching passage" not in full  # not "only these have one"
    assert "Review tab" in full and "has Change of Control" in full


def test_each_contract_shows_the_words_of_its_clause_that_match_the_question_highlighted() -> None:
    """Issue 58, Build 3: a reviewer sees why a contract was listed ("New York" in its governing-law
    clause), in the window highlighted and in an exported conversation in bold."""
    from app.services.library_question import ContractHit, LibraryTurn
    from app.views.conversation_view import MATCH_COLOUR, contract_lines, library_turns_markdown
    from summarizer.search.retrieval import SearchResult

    clause = "This Agreement is governed by the laws of New York & <NY>."
    text = "Notices go by mail to the addresses above. " * 8 + clause
    passage = SearchResult(1, "doc1", text, 4, 4, 1.0, [(4, 0, len(text))])
    view = CitationView(1, "doc1", 4, 1, text, True, tuple(passage.spans))
    hit = ContractHit("doc1", "Supply Agreement", view, 1, passage)
    (line,) = [ln for ln in contract_lines(0, [hit], "New York governing law") if "Supply Agreement" in ln]
    mark = f'<span style="background-color:{MATCH_COLOUR}">'
    assert f"{mark}New York</span>" in line and f"{mark}governed</span>" in line and f"{mark}laws</span>" in line
    assert "&amp; &lt;NY>" in line  # the passage's own markup characters are text, not HTML
    assert "Notices go by mail to the addresses above. Notices" not in line  # the part that matched is shown
    exported = library_turns_markdown([LibraryTurn("New York governing law", [hit])])
    assert "**New York**" in exported and "<span" not in exported and "& <NY>" in exported
    # no question (or no word of it in the passage): the passage's first lines, nothing marked
    (plain,) = [ln for ln in contract_lines(0, [hit]) if "Supply Agreement" in ln]
    assert "<span" not in plain and "“Notices go by mail" in plain


def test_a_word_passage_given_is_named_highlighted_and_copied_by_the_clause_that_matched(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    """Issue 56, item 1: a passage link named and highlighted the passage's first clause ("§ 1.1")
    where the clause holding the question's words (1.2 Governing Law) sat lower in it."""
    from PySide6.QtGui import QGuiApplication

    from app.services.answering import _given_views
    from summarizer.library.storage.queries import passage_ids_of, passages_by_id
    from tests.docx_factory import para, write_heading_clauses_docx

    body = para("General", style="Heading1")
    body += para("Invoices. The buyer pays every month by wire.", num=(1, 1))
    body += para("Governing Law. This Agreement is governed by the laws of the State of New York.", num=(1, 1))
    body += para("Counterparts. This Agreement may be signed in counterparts.", num=(1, 1))
    path = write_heading_clauses_docx(tmp_path / "supply.docx", body)
    window = make_window()
    window.add_paths([path])
    doc_id = wait_for_document(qtbot, window)
    question = "Which state's laws govern this agreement?"
    stored = passages_by_id(window.library, passage_ids_of(window.library, [doc_id]))
    found = next(p for p in stored.values() if p.page_start <= 3 <= p.page_end)
    assert found.page_start < 3 < found.page_end  # one passage holds all three clauses
    # A short document is read whole: the passage a longer one would give the model, as stored.
    given = {"passages": [{"passage_id": found.passage_id, "doc_id": doc_id, "page_start": found.page_start,
                           "page_end": found.page_end, "spans": found.spans}]}  # fmt: skip
    first = _given_views(window.library, doc_id, "retrieval", given, question)[0]
    assert (first.page, first.label) == (3, "§ 1.2, ¶ 3")
    window.show_citation(first)
    shown = window.viewer.word
    assert shown.title.text().startswith("§ 1.2 Governing Law, ¶ 3 —")
    shown.copy_words.click()
    clipboard = QGuiApplication.clipboard()
    assert clipboard is not None
    assert clipboard.text() == "1.2 Governing Law. This Agreement is governed by the laws of the State of New York."
    # The Review grid's cell opens its evidence the same way (app/controllers/review.py).
    from summarizer.review.checklist import ChecklistItem
    from summarizer.review.evidence import ItemResult, item_evidence

    item = ChecklistItem("law", "Governing Law", question, ("governing law",), "excerpt")
    evidence, _ = item_evidence(window.library, doc_id, item)
    result = ItemResult("law", "Governing Law", question, "excerpt", "evidence", evidence, 1)
    cell = window.reviews.cell_citation(doc_id, result)
    assert cell is not None
    window.show_citation(cell)
    assert shown.title.text().startswith("§ 1.2 Governing Law, ¶ 3 —")
