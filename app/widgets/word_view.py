"""A Word document shown as rich text, built from what the library stored of it: each paragraph
with the number Word displays, headings set as headings, tracked insertions and deletions
coloured, comments beside their paragraph, the cited paragraph scrolled to with the cited words
highlighted. Pagewise never needs Word or LibreOffice to show it; "Open in Word" hands the file to
the program the system opens .docx files with."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication, QTextCursor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QTextBrowser, QToolButton, QVBoxLayout, QWidget

from app.widgets.elided_label import ElidedLabel
from summarizer.library.reading.docx_document import PARAGRAPH_MARK, Comment, DocxParagraph, TrackedChange
from summarizer.library.reading.docx_locator import title_like
from summarizer.page_labels import paragraph_label

INSERTED = "#1f5fbf"
DELETED = "#b3261e"
HIGHLIGHT = "#fff1a8"


def _marked(text: str, inserted: Sequence[str], ranges: Sequence[tuple[int, int]]) -> str:
    """``text`` as HTML, its inserted pieces underlined in blue and each of ``ranges`` (offsets) highlighted."""
    marks = [0] * (len(text) + 1)  # 1: inserted, 2: cited, per character
    for piece in inserted:
        start = text.find(piece) if piece.strip() else -1
        if start >= 0:
            for i in range(start, start + len(piece)):
                marks[i] |= 1
    for first, last in ranges:
        for i in range(max(0, first), min(len(text), last)):
            marks[i] |= 2
    out: list[str] = []
    run_start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or marks[i] != marks[run_start]:
            piece = html.escape(text[run_start:i])
            if marks[run_start] & 1:
                piece = f'<u style="color:{INSERTED}">{piece}</u>'
            if marks[run_start] & 2:
                piece = f'<span style="background-color:{HIGHLIGHT}">{piece}</span>'
            out.append(piece)
            run_start = i
    return "".join(out)


def word_html(
    paragraphs: Sequence[DocxParagraph],
    changes: Sequence[TrackedChange],
    comments: Sequence[Comment],
    focus: int | None = None,
    words: tuple[int, int] | None = None,
    highlights: Mapping[int, Sequence[tuple[int, int]]] | None = None,
) -> str:
    """The document as HTML: one block per paragraph (anchor ``p<N>``); ``focus``: the cited
    paragraph, with ``words`` (offsets in its text as stored, number included) highlighted;
    ``highlights``: more ranges to highlight, by paragraph (a comparison's changed words)."""
    blocks: list[str] = []
    for paragraph in paragraphs:
        number = paragraph.number or ""
        full = f"{number} {paragraph.text}".strip() if number else paragraph.text
        inserted = [c.text for c in changes if c.paragraph == paragraph.index and c.kind == "insertion"]
        deleted = [c for c in changes if c.paragraph == paragraph.index and c.kind == "deletion" and c.text.strip()]
        cited = paragraph.index == focus
        ranges = [words] if cited and words is not None else []
        body = _marked(full, inserted, [*ranges, *(highlights or {}).get(paragraph.index, ())])
        if _is_title(paragraph):
            body = f"<b>{body}</b>"
        indent = 18 * (paragraph.list_level or 0)
        style = f"margin-left:{indent}px;" + ("background-color:#fbf6da;" if cited else "")
        extra = "".join(_deletion(c) for c in deleted)
        # A comment is marked by a word: a pictograph (💬) is an empty box where the desktop's
        # fonts lack it (walk 2026-12-06 finding 19, Debian's DejaVu set).
        notes = "".join(
            f'<div style="margin-left:{indent + 24}px; color:#6b5900; font-size:small">'
            f"<b>Comment</b> · {html.escape(c.author or 'someone')}: {html.escape(c.text)}</div>"
            for c in comments
            if c.paragraph == paragraph.index
        )
        tag = paragraph_label(paragraph.index)
        blocks.append(
            f'<a name="p{paragraph.index}"></a><p style="{style}">'
            f'<span style="color:#8a8a8a; font-size:small">{tag}&nbsp;&nbsp;</span>{body}{extra}</p>{notes}'
        )
    return "<html><body>" + "\n".join(blocks) + "</body></html>"


def _is_title(paragraph: DocxParagraph) -> bool:
    """A heading set as one: a paragraph of a heading style whose whole text is its title
    ("Definitions"), not a clause's body that a form styles as a heading (Common Paper's 5.2(c))."""
    if paragraph.heading_level is None:
        return False
    return title_like(paragraph.text.strip().rstrip(".:"))


def _deletion(change: TrackedChange) -> str:
    """A tracked deletion after its paragraph: the words struck through, or for a deleted paragraph
    mark (the paragraph joined to the next), what it was, not a bare "¶"."""
    who = html.escape(change.author or "someone")
    if change.text == PARAGRAPH_MARK:
        return f' <span style="color:{DELETED}; font-size:small">(paragraph break deleted by {who})</span>'
    return (
        f' <s style="color:{DELETED}">{html.escape(change.text)}</s>'
        f' <span style="color:{DELETED}; font-size:small">(deleted by {who})</span>'
    )


class WordView(QWidget):
    """The rich-text view with its buttons: Open in Word, Copy reference (the clause), Copy words."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path: Path | None = None
        self.reference = ""
        self.words = ""
        self.title = ElidedLabel("")  # the reference first: a narrow viewer cuts the file name, not it
        self.open_button = self._button(
            "Open in Word", "Open the file in the program that opens .docx files", self.open_in_word
        )
        self.copy_reference = self._button(
            "Copy reference", "Copy the clause reference: where the cited words are", lambda: _copy(self.reference)
        )
        self.copy_words = self._button(
            "Copy words", "Copy the cited words, to find them with Ctrl+F in Word", lambda: _copy(self.words)
        )
        # What the view is waiting for or fell back from: "Laying out the pages with LibreOffice…"
        self.status = QLabel("")
        self.status.setObjectName("word-status")
        self.status.setEnabled(False)  # drawn in the disabled text colour: a remark, not a title
        # The bar stands apart from the text: the viewer puts it above whichever view shows the
        # document, the text here or its pages as LibreOffice lays them out (pdf_viewer.py).
        # Where the bar is too narrow for the reference beside the buttons, the reference goes on
        # a line of its own above them (``_fit_bar``): it was cut to "§ 6.3 From…" (walk
        # 2026-12-06 finding 24).
        self.bar = QWidget()
        rows = QVBoxLayout(self.bar)
        rows.setContentsMargins(4, 2, 4, 2)
        rows.setSpacing(0)
        self.title_row = QHBoxLayout()
        bar = QHBoxLayout()
        rows.addLayout(self.title_row)
        rows.addLayout(bar)
        self.buttons_row = bar
        bar.addWidget(self.title, 1)
        bar.addStretch(0)  # the buttons' row without the reference: the buttons keep to the right
        bar.addWidget(self.status)
        # Between LibreOffice's pages and the text (its comments, its ¶ numbers), once the pages
        # are made: the viewer connects and shows it (pdf_viewer.PdfViewer.show_word_pages).
        self.switch_view = QToolButton()
        self.switch_view.setAutoRaise(True)
        self.switch_view.hide()
        bar.addWidget(self.switch_view)
        for button in (self.copy_reference, self.copy_words, self.open_button):
            bar.addWidget(button)
        self.browser = QTextBrowser(self)
        self.browser.setOpenLinks(False)
        self.focus: int | None = None
        # A new width reflows the text: the cited paragraph is put back at the top (the window
        # lays a view just shown out after it was filled, and the paragraph drifted away).
        self.browser.viewport().installEventFilter(self)
        self.bar.installEventFilter(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.bar)
        layout.addWidget(self.browser, 1)

    def _button(self, text: str, tip: str, slot: object) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def show_document(
        self, path: Path, document_html: str, focus: int | None = None, reference: str = "", words: str = ""
    ) -> None:
        self.path = path
        self.reference, self.words = reference, words
        self.title.setText(f"{reference} — {path.name}" if reference else path.name)
        self._fit_bar()
        self.copy_reference.setEnabled(bool(reference))
        self.copy_words.setEnabled(bool(words))
        self.browser.setHtml(document_html)
        self.focus = focus
        if focus is not None:
            self.scroll_to(focus)
            # Again once the view has its size: a view just shown lays the text out later, and the
            # first scroll then lands paragraphs away from the cited one.
            QTimer.singleShot(0, lambda: self.scroll_to(focus))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.bar:
            if event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest, QEvent.Type.Show):
                self._fit_bar()
            return super().eventFilter(watched, event)
        if event.type() == QEvent.Type.Resize and self.focus is not None:
            focus = self.focus
            QTimer.singleShot(0, lambda: self.scroll_to(focus))
        return super().eventFilter(watched, event)

    @property
    def reference_on_own_line(self) -> bool:
        return self.title_row.indexOf(self.title) >= 0

    def _fit_bar(self) -> None:
        """The reference beside the buttons where the whole of it fits there (the file name after
        it may be cut), else on its own line above them."""
        margins = self.bar.contentsMargins()
        shown = [w for w in (self.status, self.switch_view, self.copy_reference, self.copy_words, self.open_button)
                 if not w.isHidden()]  # fmt: skip
        spacing = max(0, self.buttons_row.spacing())
        buttons = sum(w.sizeHint().width() + spacing for w in shown)
        metrics = self.title.fontMetrics()
        needed = metrics.horizontalAdvance(f"{self.reference} …" if self.reference else "…") + buttons
        own_line = needed > self.bar.width() - margins.left() - margins.right()
        if own_line == self.reference_on_own_line:
            return
        if own_line:
            self.buttons_row.removeWidget(self.title)
            self.title_row.addWidget(self.title, 1)
        else:
            self.title_row.removeWidget(self.title)
            self.buttons_row.insertWidget(0, self.title, 1)

    def scroll_to(self, paragraph: int) -> None:
        """Put paragraph ``paragraph`` at the top of the view (found by its "¶ N" tag)."""
        document = self.browser.document()
        tag = f"{paragraph_label(paragraph)}\u00a0"
        block = document.begin()
        while block.isValid() and not block.text().startswith(tag):
            block = block.next()
        if block.isValid():
            # From the end, the smallest scroll that shows the block puts it at the top (the
            # layout of a long text is made lazily: a block's rectangle is not known in advance).
            bar = self.browser.verticalScrollBar()
            bar.setValue(bar.maximum())
            self.browser.setTextCursor(QTextCursor(block))
            self.browser.ensureCursorVisible()

    def find_text(self, text: str) -> tuple[int, int]:
        """Select the next occurrence of ``text`` after the cursor, wrapping round (case
        ignored): (its place among all of them, 1-based; how many there are), (0, 0) if none."""
        if not text:
            return 0, 0
        document = self.browser.document()
        matches = []
        cursor = document.find(text, 0)
        while not cursor.isNull():
            matches.append(cursor)
            cursor = document.find(text, cursor)
        if not matches:
            return 0, 0
        current = self.browser.textCursor()
        after = current.selectionStart() if current.hasSelection() else current.position() - 1
        index = next((i for i, match in enumerate(matches) if match.selectionStart() > after), 0)
        self.browser.setTextCursor(matches[index])
        self.browser.ensureCursorVisible()
        self._raise_cursor()
        return index + 1, len(matches)

    def _raise_cursor(self) -> None:
        """A match scrolled to sits a third of the way down the view, with the lines after it in
        sight, not on the bottom line where ``ensureCursorVisible`` leaves it (walk finding 25)."""
        viewport = self.browser.viewport()
        if viewport is None:
            return
        top = self.browser.cursorRect().top()
        height = viewport.height()
        if not 0 <= top <= height * 2 // 3:
            bar = self.browser.verticalScrollBar()
            bar.setValue(bar.value() + top - height // 3)

    def open_in_word(self) -> bool:
        return self.path is not None and QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.path)))


def _copy(text: str) -> None:
    QGuiApplication.clipboard().setText(text)
