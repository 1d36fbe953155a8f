"""The Compare tab: two versions of a contract, their differences grouped by article (kind, both
clause labels, the material mark with its reason), filters, next/previous change from the
keyboard, the selected change's word diff coloured, and save, reopen and export. It only shows
state and says what was asked for; the compare controller (``app.controllers.compare``) does the
work, and opens both versions side by side (``app.views.compare_versions``)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.widgets.job_progress import JobProgress
from app.widgets.word_view import DELETED, INSERTED
from summarizer.compare.comparison import IDENTICAL, VERSIONS, Comparison
from summarizer.compare.differences import ADDED, CHANGED, FORMATTING, MERGED, MOVED, REMOVED, RENUMBERED, SPLIT, Change
from summarizer.compare.report import KIND_WORDS, location, readable
from summarizer.library.cutting.clauses import PREAMBLE

CHANGE_ROLE = Qt.ItemDataRole.UserRole  # the change's index in the comparison, on a change's row
KIND_FILTERS = (  # the kind filter's entries: (label, kinds shown); the first shows every kind
    ("All kinds", ()),
    ("Changed", (CHANGED,)),
    ("Added", (ADDED,)),
    ("Removed", (REMOVED,)),
    ("Moved", (MOVED,)),
    ("Renumbered only", (RENUMBERED,)),
    ("Split or merged", (SPLIT, MERGED)),
    ("Formatting only", (FORMATTING,)),
)
KIND_COLOURS = {ADDED: "#1a7f37", REMOVED: DELETED, MOVED: "#8250df", CHANGED: "#9a6700", RENUMBERED: "#57606a"}
NEXT_KEYS = "F8, or N in the list"
PREVIOUS_KEYS = "Shift+F8, or P in the list"
MATERIAL_BASIS = "a fixed rule, no model"
CONTEXT_WORDS = 8  # unchanged words kept on each side of a change in the diff shown


_BARE_NUMBER = re.compile(r"(\d+)(?:\.\d+)*\.?(?=\s|$)")


def article_of(change: Change) -> str:
    """The article (top-level heading) a change is listed under: its heading path's first part,
    or "§ N" where that part is a bare number or a numbered sub-clause ("5", "5.5 Survival": the
    heading path of a Word section, or of a clause whose article heading was not found)."""
    clause = change.new or change.old
    if clause is None or not clause.path:
        return PREAMBLE
    top = clause.path[0]
    number = _BARE_NUMBER.match(top)
    if number is not None and ("." in number.group(0).rstrip(".") or top == number.group(0)):
        return f"§ {number.group(1)}"
    return top


def listable(comparison: Comparison) -> bool:
    """Identical but for formatting: its formatting-only changes can be listed."""
    return comparison.verdict == IDENTICAL and bool(comparison.changes)


def kind_text(change: Change) -> str:
    text = KIND_WORDS.get(change.kind, change.kind)
    if change.moved:
        text += ", moved"
    if change.note:
        text += f" ({change.note})"
    return text


def _label(clause_label: str | None) -> str:
    return clause_label or "—"


def _shortened(text: str, keep_head: bool, keep_tail: bool) -> str:
    """An unchanged run of the diff, cut to the words next to the changes around it."""
    found = text.split()
    if len(found) <= 2 * CONTEXT_WORDS + 2:
        return text
    head = found[:CONTEXT_WORDS] if keep_head else []
    tail = found[-CONTEXT_WORDS:] if keep_tail else []
    return " ".join([*head, "…", *tail])


def diff_html(change: Change, units: tuple[str, str] = ("p.", "p.")) -> str:
    """The change as HTML: kind, both clauses and where they are, the material mark with the rule
    that fired, and the word diff (deletions struck through in red, insertions underlined)."""
    lines = [
        f"<b>{html.escape(kind_text(change))}</b>: {html.escape(location(change.old, units[0]))} → "
        f"{html.escape(location(change.new, units[1]))}"
    ]
    if change.material:
        lines.append(
            f'<span style="color:{DELETED}"><b>Material</b></span>: {html.escape("; ".join(change.reasons))} '
            f'<span style="color:#6e7781">({MATERIAL_BASIS})</span>'
        )
    elif change.kind == CHANGED:
        lines.append(f'<span style="color:#6e7781">Not marked material ({MATERIAL_BASIS}).</span>')
    deleted = f'<s style="color:{DELETED}; background-color:#ffebe9">{{}}</s>'
    inserted = f'<u style="color:{INSERTED}; background-color:#ddf4ff">{{}}</u>'
    if change.edits:
        parts: list[str] = []
        for n, edit in enumerate(change.edits):
            if edit.op == "equal":
                short = _shortened(edit.old, keep_head=n > 0, keep_tail=n < len(change.edits) - 1)
                text = html.escape(readable(short))
                if parts and text[:1] in ",;:.)]%":  # no space between a change and the comma after it
                    parts[-1] += text
                else:
                    parts.append(text)
                continue
            if edit.old:
                parts.append(deleted.format(html.escape(readable(edit.old))))
            if edit.new:
                parts.append(inserted.format(html.escape(readable(edit.new))))
        lines.append(" ".join(parts))
    elif change.new is not None and change.kind in (ADDED, SPLIT):
        lines.append(inserted.format(html.escape(change.new.text)))
    elif change.old is not None and change.kind in (REMOVED, MERGED):
        lines.append(deleted.format(html.escape(change.old.text)))
    elif change.kind == RENUMBERED and change.old is not None and change.new is not None:
        lines.append(f"{deleted.format(html.escape(change.old.label))} {inserted.format(html.escape(change.new.label))}"
                     " — the text is the same.")  # fmt: skip
    elif change.kind == MOVED:
        lines.append("The same text, in another place.")
    return "<p>" + "</p><p>".join(lines) + "</p>"


class ComparePanel(QWidget):
    change_selected = Signal(int)  # the change's index in the comparison shown
    swap_requested = Signal()
    save_requested = Signal()
    saved_chosen = Signal(int)  # a saved comparison's id
    export_requested = Signal(str)  # "md" or "docx"
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparison: Comparison | None = None
        self.verdict_message = ""
        self.units: tuple[str, str] = ("p.", "p.")
        self.old_title = QLabel("")
        self.new_title = QLabel("")
        for label in (self.old_title, self.new_title):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.swap_button = QToolButton()
        self.swap_button.setText("⇄ Swap")
        self.swap_button.setToolTip("Swap the old and the new version, and compare again")
        self.swap_button.clicked.connect(self.swap_requested)
        self.saved = QComboBox()
        self.saved.setToolTip("Reopen a comparison saved before")
        self.saved.activated.connect(self._saved_activated)
        self.save_button = QPushButton("Save")
        self.save_button.setToolTip("Keep this comparison in the library, to reopen it later")
        self.save_button.clicked.connect(self.save_requested)
        self.export_button = QPushButton("Export Markdown…")
        self.export_button.setToolTip(
            "Write the list of changes as a Markdown file (as `pagewise compare --format md`)"
        )
        self.export_button.clicked.connect(lambda: self.export_requested.emit("md"))
        self.redline_button = QPushButton("Word redline…")
        self.redline_button.setToolTip(
            "Write a Word file with each difference as a tracked change, after a table of the material changes"
            " (as `pagewise compare --format docx`)"
        )
        self.redline_button.clicked.connect(lambda: self.export_requested.emit("docx"))
        self.progress = JobProgress("Stop the comparison")
        self.progress.cancel_button.setText("Stop")
        self.progress.cancel_requested.connect(self.cancel_requested)
        self.message = QLabel(
            "Select two documents in the library and choose Compare (or right-click one → Compare with…)."
        )
        self.message.setWordWrap(True)
        self.message.setObjectName("compare-message")
        self.material_only = QCheckBox("Material only")
        self.material_only.setToolTip("Only the changes a fixed rule marks as usually mattering")
        self.kind = QComboBox()
        for text, kinds in KIND_FILTERS:
            self.kind.addItem(text, list(kinds))
        self.kind.setToolTip("Show one kind of change")
        self.show_formatting = QCheckBox("Formatting-only")
        self.show_formatting.setToolTip("Also list changes of quotes, dashes and spacing only (hidden by default)")
        for box in (self.material_only, self.show_formatting):
            box.toggled.connect(self.apply_filters)
        self.kind.currentIndexChanged.connect(self.apply_filters)
        self.previous_button = QToolButton()
        self.previous_button.setText("▲ Previous")
        self.previous_button.setToolTip(f"Previous change ({PREVIOUS_KEYS})")
        self.previous_button.clicked.connect(self.previous_change)
        self.next_button = QToolButton()
        self.next_button.setText("▼ Next")
        self.next_button.setToolTip(f"Next change ({NEXT_KEYS})")
        self.next_button.clicked.connect(self.next_change)
        self.tree = QTreeWidget()
        self.tree.setObjectName("compare-changes")
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels(["Change", "Old", "New", "Material"])
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(True)
        for column, width in ((0, 150), (1, 115), (2, 115)):
            header.resizeSection(column, width)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)  # "Renumbered only" whole
        self.tree.currentItemChanged.connect(self._current_changed)
        self.tree.installEventFilter(self)
        self.detail = QTextBrowser()
        self.detail.setObjectName("compare-detail")
        self.detail.setOpenLinks(False)
        self.detail.setPlaceholderText("Select a change to see its words and both versions side by side.")
        self._lay_out()
        self.set_comparison(None)

    def _lay_out(self) -> None:
        pair = QHBoxLayout()
        pair.addWidget(QLabel("<b>Old</b>"))
        pair.addWidget(self.old_title, 1)
        pair.addWidget(self.swap_button)
        pair.addWidget(QLabel("<b>New</b>"))
        pair.addWidget(self.new_title, 1)
        actions = QHBoxLayout()
        actions.addWidget(QLabel("Saved:"))
        actions.addWidget(self.saved, 1)
        actions.addWidget(self.save_button)
        actions.addWidget(self.export_button)
        actions.addWidget(self.redline_button)
        filters = QHBoxLayout()
        filters.addWidget(self.material_only)
        filters.addWidget(self.kind)
        filters.addWidget(self.show_formatting)
        filters.addStretch(1)
        filters.addWidget(self.previous_button)
        filters.addWidget(self.next_button)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(pair)
        layout.addLayout(actions)
        layout.addWidget(self.progress)
        layout.addWidget(self.message)
        layout.addLayout(filters)
        layout.addWidget(split, 1)

    # --- what is shown --------------------------------------------------------------------

    def set_pair(self, old_title: str, new_title: str, units: tuple[str, str] = ("p.", "p.")) -> None:
        self.old_title.setText(old_title)
        self.new_title.setText(new_title)
        self.old_title.setToolTip(old_title)
        self.new_title.setToolTip(new_title)
        self.units = units

    def set_comparison(self, comparison: Comparison | None, message: str | None = None) -> None:
        """Show ``comparison``'s verdict and, for two versions, its changes (None: nothing yet);
        ``message``: what to say instead of its own (a saved comparison's, as it was saved)."""
        self.comparison = comparison
        self.verdict_message = message or (comparison.message if comparison is not None else "")
        has_pair = comparison is not None
        self.swap_button.setEnabled(has_pair)
        self.save_button.setEnabled(has_pair)
        self.export_button.setEnabled(has_pair)
        self.redline_button.setEnabled(has_pair)
        # Identical but for formatting: those changes can still be listed.
        versions = comparison is not None and (comparison.verdict == VERSIONS or listable(comparison))
        for widget in (self.material_only, self.kind, self.show_formatting, self.previous_button, self.next_button):
            widget.setEnabled(versions)
        if comparison is not None:
            self.message.setText(self.verdict_message)
            big = comparison.verdict != VERSIONS
            self.message.setStyleSheet("font-size: 14pt; padding: 12px;" if big else "")
        self.detail.clear()
        self._fill()

    def _fill(self) -> None:
        blocker = QSignalBlocker(self.tree)
        self.tree.clear()
        comparison = self.comparison
        if comparison is not None and (comparison.verdict == VERSIONS or listable(comparison)):
            group: QTreeWidgetItem | None = None
            for index, change in enumerate(comparison.changes):
                article = article_of(change)
                if group is None or group.text(0) != article:
                    group = QTreeWidgetItem([article])
                    group.setFirstColumnSpanned(True)
                    group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                    font = group.font(0)
                    font.setBold(True)
                    group.setFont(0, font)
                    self.tree.addTopLevelItem(group)
                group.addChild(self._row(index, change))
            self.tree.expandAll()
            self.tree.setFirstColumnSpanned(0, self.tree.rootIndex(), True)
        del blocker
        self.apply_filters()

    def _row(self, index: int, change: Change) -> QTreeWidgetItem:
        old = change.old.display_label if change.old else None
        new = change.new.display_label if change.new else None
        mark = "; ".join(change.reasons) if change.material else ""
        row = QTreeWidgetItem([kind_text(change), _label(old), _label(new), mark])
        row.setData(0, CHANGE_ROLE, index)
        row.setForeground(0, QBrush(QColor(KIND_COLOURS.get(change.kind, "#57606a"))))
        if change.material:
            font = row.font(3)
            font.setBold(True)
            row.setFont(3, font)
            row.setForeground(3, QBrush(QColor(DELETED)))
        tip = f"{kind_text(change)}: {location(change.old, self.units[0])} → {location(change.new, self.units[1])}"
        if change.material:
            tip += f"\nMaterial ({MATERIAL_BASIS}): {mark}"
        for column in range(4):
            row.setToolTip(column, tip)
        return row

    def _groups(self) -> list[QTreeWidgetItem]:
        """The articles' rows."""
        found = (self.tree.topLevelItem(g) for g in range(self.tree.topLevelItemCount()))
        return [group for group in found if group is not None]

    @staticmethod
    def _children(group: QTreeWidgetItem) -> list[QTreeWidgetItem]:
        found = (group.child(c) for c in range(group.childCount()))
        return [row for row in found if row is not None]

    def _change_rows(self) -> list[QTreeWidgetItem]:
        return [row for group in self._groups() for row in self._children(group)]

    def shown(self, change: Change) -> bool:
        """Whether the filters let ``change`` through."""
        kinds: Sequence[str] = self.kind.currentData() or ()
        if change.hidden and not self.show_formatting.isChecked() and FORMATTING not in kinds:
            return False
        if kinds and change.kind not in kinds:
            return False
        return not (self.material_only.isChecked() and not change.material)

    def apply_filters(self) -> None:
        if self.comparison is None:
            return
        changes = self.comparison.changes
        for group in self._groups():
            visible = 0
            for row in self._children(group):
                hidden = not self.shown(changes[int(row.data(0, CHANGE_ROLE))])
                row.setHidden(hidden)
                visible += not hidden
            group.setHidden(visible == 0)
        count = len(self.visible_changes())
        total = self.verdict_message
        if self.comparison.verdict == VERSIONS:
            unfiltered = count == len([c for c in changes if not c.hidden])
            self.message.setText(total if unfiltered else f"{total} Shown: {count}.")
            if count == 0:
                self.detail.setHtml("<p>No change passes the filters.</p>")
        elif listable(self.comparison):
            formatting = sum(1 for c in changes if c.hidden)
            self.message.setText(
                f"{total} {formatting} formatting-only change{'s' if formatting != 1 else ''} (quotes, dashes, spacing)"
                + (" listed." if count else ": check Formatting-only to list them.")
            )

    def visible_changes(self) -> list[int]:
        """The indices of the changes listed now, in order."""
        return [int(row.data(0, CHANGE_ROLE)) for row in self._change_rows() if not row.isHidden()]

    def current_change(self) -> int | None:
        item = self.tree.currentItem()
        value = item.data(0, CHANGE_ROLE) if item is not None else None
        return int(value) if value is not None else None

    def select_change(self, index: int) -> None:
        for row in self._change_rows():
            if int(row.data(0, CHANGE_ROLE)) == index:
                self.tree.setCurrentItem(row)
                self.tree.scrollToItem(row)
                return

    def _step(self, direction: int) -> None:
        visible = self.visible_changes()
        if not visible:
            return
        current = self.current_change()
        if current is None or current not in visible:
            target = visible[0] if direction > 0 else visible[-1]
        else:
            position = visible.index(current) + direction
            if not 0 <= position < len(visible):
                return  # at the first or last change: stays
            target = visible[position]
        self.select_change(target)

    def next_change(self) -> None:
        self._step(1)

    def previous_change(self) -> None:
        self._step(-1)

    def _current_changed(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        index = current.data(0, CHANGE_ROLE) if current is not None else None
        if index is None or self.comparison is None:
            return
        self.detail.setHtml(diff_html(self.comparison.changes[int(index)], self.units))
        self.change_selected.emit(int(index))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.tree
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and event.modifiers() == Qt.KeyboardModifier.NoModifier
            and event.key() in (Qt.Key.Key_N, Qt.Key.Key_P)
        ):
            self._step(1 if event.key() == Qt.Key.Key_N else -1)
            return True
        return super().eventFilter(watched, event)

    # --- saved comparisons ----------------------------------------------------------------

    def set_saved(self, saved: list[tuple[int, str]]) -> None:
        """The saved comparisons' ids and names, the latest first."""
        blocker = QSignalBlocker(self.saved)
        self.saved.clear()
        self.saved.addItem(
            f"{len(saved)} saved comparison{'s' if len(saved) != 1 else ''}…" if saved else "none saved yet", None
        )
        for comparison_id, name in saved:
            self.saved.addItem(name, comparison_id)
        self.saved.setEnabled(bool(saved))
        del blocker

    def _saved_activated(self, index: int) -> None:
        comparison_id = self.saved.itemData(index)
        self.saved.setCurrentIndex(0)
        if comparison_id is not None:
            self.saved_chosen.emit(int(comparison_id))

    def set_busy(self, busy: bool) -> None:
        """While a comparison runs, nothing that would start another or save the one shown."""
        for widget in (self.swap_button, self.save_button, self.export_button, self.redline_button):
            widget.setEnabled(not busy and self.comparison is not None)
        self.saved.setEnabled(not busy and self.saved.count() > 1)
