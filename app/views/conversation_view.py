"""The conversation with the selected document: turns rendered as Markdown, citations as
links, a question box (Ctrl+Enter asks), the answer streaming in, and export. The scope box above
the question asks the whole library instead (issue 46): that conversation lists, per question,
the contracts found with the best passage of each, and the answer naming its contracts."""

from __future__ import annotations

import re

from PySide6.QtCore import QTimer, QUrl, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.services.answering import AnswerView, CitationView, cited_units, page_run_label, read_whole
from app.services.library_question import ContractHit, LibraryTurn
from app.widgets.job_progress import JobProgress
from summarizer.page_labels import pages_list_label
from summarizer.search.by_contract import CONTRACTS_SHOWN
from summarizer.search.matched_words import excerpt, marked

RENDER_INTERVAL_MS = 80  # a streamed answer is re-rendered at most ~12 times a second

MODE_NOTES = {"passages": "Answered from passages; the document summary is still being made."}
"""The line under an answer of that mode (none for retrieval and whole-document answers)."""


def linkify(text: str, turn: int, citations: list[CitationView]) -> str:
    """Markdown with each citation in ``text`` turned into links (by its place in the answer);
    a citation of a page the model was not given is struck through and flagged."""
    groups: dict[tuple[int, int], list[CitationView]] = {}
    for c in citations:
        if 0 <= c.answer_start < c.answer_end <= len(text):
            groups.setdefault((c.answer_start, c.answer_end), []).append(c)
    out: list[str] = []
    last = 0
    for (start, end), group in sorted(groups.items()):
        if start < last:
            continue
        links = [f"[{c.where}](cite:{turn}/{c.number})" if c.valid else f"~~{c.where}~~\u00a0⚠" for c in group]
        out += [text[last:start], "[" + ", ".join(links) + "]"]
        last = end
    out.append(text[last:])
    return "".join(out)


def source_chips(turn: int, sources: list[CitationView], mode: str = "") -> str:
    """A line of page links (``src:TURN/NUMBER``) to what the model was given: the passages, or
    in whole-document mode the runs of pages read ("Read: the whole document, pp. 1–8")."""
    if not sources:
        return ""
    if mode == "whole-document":
        runs = [f"[{page_run_label(s)}](src:{turn}/{s.number})" for s in sources]
        return "*Read: the whole document,* " + ", ".join(runs)
    chips = [f"[{s.where}](src:{turn}/{s.number})" for s in sources]
    return "*Passages given to the model:* " + " · ".join(chips)


def checks(index: int, turn: AnswerView, pages: int | None = None, word: bool = False) -> list[str]:
    """The lines under an answer that say what its citations rest on, the same in every mode:
    pages cited that the model was not given (those past the document's ``pages`` said to be
    pages it does not have), "cites no page" when it cites none, "none of the pages it cites…"
    when it cites only pages it was not given, and links to what it was given. ``word``: a Word
    document's answer, whose citations name paragraphs (and clauses), never pages."""
    units = cited_units(word)
    given = read_whole(units) if turn.mode == "whole-document" else "the passages given to the model"
    lines = []
    invalid = list(dict.fromkeys((c.page, c.label) for c in turn.citations if not c.valid))
    missing = [(page, label) for page, label in invalid if pages is not None and page > pages]
    unsupported = [(page, label) for page, label in invalid if (page, label) not in missing]
    if unsupported:
        if word:  # a clause citation that matched no clause is named as written ("§ 99")
            named = ", ".join(label or units.name(page) for page, label in unsupported)
        else:
            named = pages_list_label(page for page, _ in unsupported)
        lines.append(f"*⚠ Not supported by {given}: {named}.*")
    if missing:
        numbers = pages_list_label((page for page, _ in missing), word=word)
        verb = "is" if len(missing) == 1 else "are"
        lines.append(f"*⚠ {numbers} {verb} not in the document: it has {pages} {units.many}.*")
    if turn.sources and not turn.citations:
        lines.append(f"*⚠ This answer cites no {units.one}: check it against {given} below.*")
    elif turn.sources and not any(c.valid for c in turn.citations):
        lines.append(f"*⚠ None of the {units.many} this answer cites is among {given}: check it against them below.*")
    if turn.sources:
        lines.append(source_chips(index, turn.sources, turn.mode))
    return lines


SNIPPET_CHARS = 220  # of a contract's best passage in a library-wide answer: the part with the query's words
THIS_DOCUMENT, ALL_DOCUMENTS = "document", "library"
MATCH_COLOUR = "#fff176"  # the background of a passage's words that match the question (issue 58)
_MATCH = re.compile(r'<span style="background-color:[^"]*">(.*?)</span>')


def highlighted(text: str, question: str) -> str:
    """The part of ``text`` that holds the most of ``question``'s words, those words highlighted
    (inline HTML in the Markdown the browser shows; the passage's own ``<`` escaped)."""
    part = excerpt(text, question, SNIPPET_CHARS)
    return marked(part, lambda words: f'<span style="background-color:{MATCH_COLOUR}">{words}</span>', _escaped)


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")


def contract_lines(turn: int, contracts: list[ContractHit], question: str = "") -> list[str]:
    """A library-wide answer's contracts, best first: each named, its best passage's page as a
    link (``hit:TURN/NUMBER``) and the part of the passage that holds the question's words, those
    words highlighted, so the reader sees why it was listed (issue 58)."""
    if not contracts:
        return ["*No contract has a passage that matches.*"]
    full = len(contracts) >= CONTRACTS_SHOWN
    heading = (
        f"**The {len(contracts)} contracts whose passages match best**"
        if full
        else f"**{len(contracts)} contracts with a matching passage**"
    )
    lines = [f"{heading} (the best passage of each, best first):", ""]
    for n, hit in enumerate(contracts, start=1):
        snippet = highlighted(hit.best.text, question)
        lines.append(f"{n}. **{hit.title}** — [{hit.best.where}](hit:{turn}/{n}): “{snippet}”")
    if full:
        # In a data room a common clause is in far more contracts than a list can hold: of the
        # 107 of 449 CUAD contracts with a change-of-control clause, 21% are among the 25 listed
        # (docs/data/dataroom-quality). The review gives every contract its candidate passage, which
        # is not a finding that the clause is there (issue 56 item 3: 53% were, docs/checklists.md).
        lines += [
            "",
            "*More contracts may have one: this list stops at the best "
            f"{CONTRACTS_SHOWN}. To see each contract's candidate passage, review them all on the Review tab "
            "(Evidence only) and filter the table, e.g. “has Change of Control”, then read the passages.*",
        ]
    return lines


def library_markdown(index: int, turn: LibraryTurn, pending_text: str = "") -> str:
    """One library-wide question as the conversation shows it."""
    block = [f"**You (all documents):** {turn.question}"]
    if turn.answer is not None:
        block.append(linkify(turn.answer.text, index, turn.answer.citations).replace("](cite:", "](lcite:"))
    elif pending_text:
        block.append(pending_text)
    if turn.note:
        block.append(f"*{turn.note}*")
    if turn.contracts or turn.answer is not None or turn.note:
        block.append("\n".join(contract_lines(index, turn.contracts, turn.question)))
    elif not pending_text:
        block.append("…")
    return "\n\n".join(block)


_APP_LINK = re.compile(r"\]\((?:hit|lcite|cite):[^)]*\)")


def library_turns_markdown(turns: list[LibraryTurn]) -> str:
    """This session's library-wide questions for an exported conversation: as shown, the window's
    own links made plain text ("[p. 4]"): a file has nothing for them to open (the walk of
    2026-12-06, finding 14: the export left them out, and with them the list of contracts)."""
    if not turns:
        return ""
    blocks = [_plain(_APP_LINK.sub("]", library_markdown(n, turn))) for n, turn in enumerate(turns)]
    return "## Questions asked of all documents\n\n" + "\n\n".join(blocks) + "\n"


def _plain(markdown: str) -> str:
    """The window's highlighted words as bold, its escapes undone: what a Markdown file shows."""
    return _MATCH.sub(r"**\1**", markdown).replace("&lt;", "<").replace("&amp;", "&")


class ConversationView(QWidget):
    ask_requested = Signal(str)
    scope_changed = Signal()
    cancel_requested = Signal()
    citation_clicked = Signal(object)  # CitationView
    export_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.turns: list[AnswerView] = []
        self.pages: int | None = None  # the document's page count: a citation past it names no page
        self.word = False
        self.pending_question: str | None = None
        self.pending_text = ""
        self.note = ""
        self.partial: AnswerView | None = None  # a stopped answer, its citations checked
        self.browser = QTextBrowser()
        self.browser.setObjectName("conversation")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._anchor)
        self.library_turns: list[LibraryTurn] = []  # this session's library-wide questions
        self.library_pending: LibraryTurn | None = None
        self.library_text = ""  # the library-wide answer being written
        self.has_document = False
        self.busy = False
        self.scope = QComboBox()
        self.scope.setObjectName("conversation-scope")
        self.scope.addItem("This document", THIS_DOCUMENT)
        self.scope.addItem("All documents", ALL_DOCUMENTS)
        self.scope.setToolTip(
            "Ask the selected document, or every document of the library: the contracts that match are "
            "listed with the best passage of each"
        )
        self.scope.currentIndexChanged.connect(self._scope_toggled)
        self.question = QPlainTextEdit()
        self.question.setPlaceholderText("Ask about this document…  (Ctrl+Enter)")
        self.question.setMaximumHeight(84)
        self.ask_button = QPushButton("Ask")
        self.ask_button.setDefault(True)
        self.ask_button.setToolTip("Ask (Ctrl+Enter)")
        self.ask_button.clicked.connect(self.ask_from_box)
        self.copy_button = QPushButton("Copy answer")
        self.copy_button.setToolTip("Copy the last answer as Markdown, with its citations")
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Save the conversation as a Markdown file")
        self.export_button.clicked.connect(self.export_requested)
        self.progress = JobProgress("Stop the answer (Esc)", keep_space=True)
        self.progress.cancel_requested.connect(self.cancel_requested)
        # Ctrl+Enter is the window's Model → Ask action (one shortcut: two would be ambiguous).
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("Ask"))
        buttons.addWidget(self.scope)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        buttons.addWidget(self.ask_button)
        self.hint = QLabel("")
        self.hint.setWordWrap(True)
        self.hint.setObjectName("conversation-hint")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.hint)
        layout.addWidget(self.browser, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.question)
        layout.addLayout(buttons)
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_INTERVAL_MS)
        self._render_timer.timeout.connect(self.render_conversation)
        self.set_document(None)

    # State

    def set_document(
        self,
        title: str | None,
        turns: list[AnswerView] | None = None,
        stopped: list[tuple[int, str]] | None = None,
        pages: int | None = None,
        word: bool = False,
    ) -> None:
        """Show ``title``'s conversation (None: no document selected; ``pages`` pages): its
        ``turns`` and the answers ``stopped`` earlier in this session (``stopped_answers()`` of
        when it was last shown)."""
        self.pages = pages
        self.word = word  # a Word document: its citations name paragraphs, not pages
        self.turns = list(turns or [])
        self.interrupted: list[tuple[int, str]] = list(stopped or [])  # (turns before it, its Markdown)
        self.pending_question = None
        self.pending_text = ""
        self.partial = None
        self.note = ""
        self.has_document = title is not None
        self._enable()
        self.render_conversation()

    def library_scope(self) -> bool:
        """Whether a question goes to every document of the library."""
        return bool(self.scope.currentData() == ALL_DOCUMENTS)

    def set_scope(self, library: bool) -> None:
        self.scope.setCurrentIndex(self.scope.findData(ALL_DOCUMENTS if library else THIS_DOCUMENT))

    def _scope_toggled(self, _index: int) -> None:
        self._enable()
        self.render_conversation(to_end=True)
        self.scope_changed.emit()

    def _enable(self) -> None:
        library = self.library_scope()
        enabled = self.has_document or library
        self.question.setEnabled(enabled)
        self.ask_button.setEnabled(enabled and not self.busy)
        self.copy_button.setEnabled(self.has_document and not library and bool(self.turns))
        self.export_button.setEnabled(self.has_document and not library and bool(self.turns))
        self.question.setPlaceholderText(
            "Ask every document, e.g. which contracts have a change-of-control clause?  (Ctrl+Enter)"
            if library
            else "Ask about this document…  (Ctrl+Enter)"
        )
        self.hint.setText("" if enabled else "Select a document in the library to ask about it.")
        self.hint.setVisible(not enabled)

    # A library-wide question

    def begin_library_answer(self, question: str) -> None:
        self.library_pending = LibraryTurn(question)
        self.library_text = ""
        self.progress.start("Searching every document…")
        self.set_busy(True)
        self.render_conversation(to_end=True)

    def show_contracts(self, contracts: list[ContractHit]) -> None:
        """The contracts found for the pending library-wide question, before the model answers."""
        if self.library_pending is not None:
            self.library_pending.contracts = list(contracts)
            self.render_conversation(to_end=True)

    def add_library_piece(self, text: str) -> None:
        self.library_text += text
        if not self._render_timer.isActive():
            self._render_timer.start()

    def finish_library_answer(self, answer: AnswerView | None, note: str = "") -> None:
        """The library-wide question is done: with the model's ``answer``, or without (``note`` says why)."""
        self._render_timer.stop()
        if self.library_pending is not None:
            turn = self.library_pending
            turn.answer, turn.note = answer, note
            if answer is None and self.library_text and not note.startswith("No answer"):
                turn.note = f"{note} What was written: {self.library_text}".strip()
            self.library_turns.append(turn)
        self.library_pending = None
        self.library_text = ""
        self.progress.stop()
        self.set_busy(False)
        self.render_conversation()

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.ask_button.setEnabled(not busy and self.question.isEnabled())

    def library_markdown(self) -> str:
        parts = [library_markdown(n, turn) for n, turn in enumerate(self.library_turns)]
        if self.library_pending is not None:
            parts.append(library_markdown(len(self.library_turns), self.library_pending, self.library_text))
        if not parts:
            return "*Ask a question of every document: the contracts that match are listed, best first.*"
        return "\n\n---\n\n".join(parts)

    def begin_answer(self, question: str) -> None:
        if self.pending_question is not None:  # a stopped answer stays in view, with its note
            self.interrupted.append((len(self.turns), self._pending_markdown(linked=False)))
        self.pending_question = question
        self.pending_text = ""
        self.partial = None
        self.note = ""
        self.progress.start("Finding passages…")
        self.set_busy(True)
        self.render_conversation(to_end=True)  # the new question is in view

    def add_piece(self, text: str) -> None:
        self.pending_text += text
        if not self._render_timer.isActive():
            self._render_timer.start()

    def finish_answer(self, answer: AnswerView | None, note: str = "", partial: AnswerView | None = None) -> None:
        """End the streamed answer: ``answer`` is kept; ``None`` keeps the partial text, marked
        with ``note`` (and with its citation links when ``partial`` is given)."""
        self._render_timer.stop()
        if answer is not None:
            self.turns.append(answer)
        elif self.pending_question is not None:
            self.note = note
            self.partial = partial
        if answer is not None:
            self.pending_question = None
            self.pending_text = ""
            self.partial = None
        self.progress.stop()
        self.set_busy(False)
        self.copy_button.setEnabled(bool(self.turns))
        self.export_button.setEnabled(bool(self.turns))
        self.render_conversation()

    def stopped_answers(self, with_pending: bool = True) -> list[tuple[int, str]]:
        """The stopped answers in view (and the question not answered), each with the number of
        turns before it, as ``set_document`` takes them back; ``with_pending=False`` leaves out
        an answer still being written."""
        kept = list(self.interrupted)
        if with_pending and self.pending_question is not None:
            kept.append((len(self.turns), self._pending_markdown(linked=False)))
        return kept

    def not_asked(self, question: str, note: str) -> None:
        """``question`` was not put to the model (``note`` says why): shown with the note, and
        back in the box to ask again once the cause is fixed."""
        self.begin_answer(question)
        self.finish_answer(None, note)
        if not self.question.toPlainText().strip():
            self.question.setPlainText(question)

    # Rendering

    def markdown(self) -> str:
        parts: list[str] = []
        interrupted = list(self.interrupted)
        for index, turn in enumerate(self.turns):
            while interrupted and interrupted[0][0] <= index:
                parts.append(interrupted.pop(0)[1])
            block = [f"**You:** {turn.question}", linkify(turn.text, index, turn.citations)]
            if turn.mode in MODE_NOTES:
                block.append(f"*{MODE_NOTES[turn.mode]}*")
            block += checks(index, turn, self.pages, self.word)
            parts.append("\n\n".join(block))
        parts += [markdown for _, markdown in interrupted]
        if self.pending_question is not None:
            parts.append(self._pending_markdown())
        if not parts:
            return ""
        return "\n\n---\n\n".join(parts)

    def _pending_markdown(self, linked: bool = True) -> str:
        """The answer being written (or stopped, with its note); ``linked=False``: without the
        citation links, for a stopped answer kept in view (its links would name a later turn)."""
        body = self.pending_text or ("" if self.note else "…")
        if self.partial is not None and not linked:
            body = self.partial.text
        elif self.partial is not None:
            body = linkify(self.partial.text, len(self.turns), self.partial.citations)
            if self.partial.sources:
                body += "\n\n" + source_chips(len(self.turns), self.partial.sources, self.partial.mode)
        text = f"**You:** {self.pending_question}" + (f"\n\n{body}" if body else "")
        return text + (f"\n\n*{self.note}*" if self.note else "")

    def render_conversation(self, to_end: bool = False) -> None:
        bar = self.browser.verticalScrollBar()
        at_bottom = to_end or bar.value() >= bar.maximum() - 4
        self.browser.setMarkdown(self.library_markdown() if self.library_scope() else self.markdown())
        if at_bottom:
            bar.setValue(bar.maximum())

    # Actions

    def ask_from_box(self) -> None:
        text = self.question.toPlainText().strip()
        if text and self.ask_button.isEnabled():
            self.question.clear()
            self.ask_requested.emit(text)

    def _anchor(self, url: QUrl) -> None:
        if url.scheme() in ("hit", "lcite"):
            self._library_anchor(url)
            return
        if url.scheme() not in ("cite", "src"):
            return
        try:
            turn_text, number_text = url.path().split("/")
            turn = [*self.turns, *([self.partial] if self.partial is not None else [])][int(turn_text)]
            links = turn.citations if url.scheme() == "cite" else turn.sources
            citation = next(c for c in links if c.number == int(number_text))
        except (ValueError, IndexError, StopIteration):
            return
        self.citation_clicked.emit(citation)

    def _library_anchor(self, url: QUrl) -> None:
        """A contract's best passage (``hit:``) or a library-wide answer's citation (``lcite:``)."""
        turns = [*self.library_turns, *([self.library_pending] if self.library_pending is not None else [])]
        try:
            turn_text, number_text = url.path().split("/")
            turn, number = turns[int(turn_text)], int(number_text)
            if url.scheme() == "hit":
                citation = turn.contracts[number - 1].best
            else:
                citations = turn.answer.citations if turn.answer is not None else []
                citation = next(c for c in citations if c.number == number)
        except (ValueError, IndexError, StopIteration):
            return
        self.citation_clicked.emit(citation)
