"""The Review tab: contracts and a checklist to run, the answers as a grid for a few contracts
(``review_grid``: rows = items, columns = contracts, cells coloured by their playbook flag) or a
table of contracts for many (``review_table``), the reviewer's correction of the selected cell,
the exports, and the data room's model review (``room_review_bar``). It only shows state and says
what was asked for; the controllers (``app.controllers.review``, ``room_review``) do the work."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.views.library_panel import PdfDropTarget
from app.views.review_cells import legend_html, panel_text
from app.views.review_grid import ReviewGrid
from app.views.review_table import ContractTableView
from app.views.room_review_bar import RoomReviewBar
from app.widgets.job_progress import JobProgress
from summarizer.review.checklist import ChecklistItem
from summarizer.review.contract_table import HAS_CANDIDATES_NOTE, TableFilterError, parse_filter
from summarizer.review.evidence import DocumentReview, ItemResult

DOC_ROLE = Qt.ItemDataRole.UserRole
CHOOSE_FILE = "Choose a checklist file…"
TABLE_FROM = 6  # contracts: from this many the review is a table of contracts (rows), unless the user chose
FILTER_HINT = "Filter: has Change of Control (or a candidate passage); Governing Law = New York; probably absent"


class ReviewPanel(PdfDropTarget, QWidget):
    review_requested = Signal()
    cancel_requested = Signal()
    selection_changed = Signal()  # the checked contracts, the checklist or the side changed
    checklist_file_requested = Signal()
    checklist_chosen = Signal(str)  # "cuad" or a file path
    cell_clicked = Signal(int, int)  # row (item), column (contract)
    contract_open_requested = Signal(int)  # the contract's place among the checked ones
    correction_submitted = Signal(int, int, str, bool, str)  # row, column, value, accepted, note
    export_requested = Signal(str)  # md | csv | xlsx | docx
    files_dropped = Signal(list)  # list[Path]

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.columns: list[DocumentReview | None] = []
        self.items: list[ChecklistItem] = []
        self._filling = False
        self.editing: tuple[int, int] | None = None  # the cell the correction panel names
        self.contracts = QListWidget()
        self.contracts.setObjectName("review-contracts")
        self.contracts.setMinimumHeight(48)
        self.contracts.setToolTip("The contracts to review: check them, or drop PDF files on this tab")
        self.contracts.itemChanged.connect(self._contract_toggled)
        self.checklist = QComboBox()
        self.checklist.addItem("CUAD (41 clause categories)", "cuad")
        self.checklist.addItem(CHOOSE_FILE, "")
        self.checklist.activated.connect(self._checklist_activated)
        self.side = QLineEdit()
        self.side.setPlaceholderText("e.g. Distributor")
        self.side.setToolTip(
            "The party you represent, as the contract names it (several names with '/'): a non-compete "
            "binding your side is a deviation, binding the other party a match"
        )
        self.side.editingFinished.connect(self.selection_changed)
        self.evidence_only = QCheckBox("Evidence only (no model)")
        self.evidence_only.setToolTip("Find where each clause is, without a language model: fast, on any computer")
        self.review_button = QPushButton("Review")
        self.review_button.setToolTip("Run the checklist over the checked contracts")
        self.review_button.clicked.connect(self.review_requested)
        self.progress = JobProgress("Stop the review", keep_space=True)
        self.progress.cancel_button.setText("Stop")
        self.progress.cancel_requested.connect(self.cancel_requested)
        self.room = RoomReviewBar()  # the data room's model review: its button, progress and notices
        self.hint = QLabel("Check contracts (or drop PDF files here), choose a checklist and press Review.")
        self.hint.setWordWrap(True)
        self.deviations_only = QCheckBox("Deviations only")
        self.deviations_only.toggled.connect(self._apply_filter)
        self.empty_note = QLabel("")
        self.empty_note.setWordWrap(True)
        self.empty_note.hide()
        legend = QLabel(legend_html())  # the playbook's colours, and the evidence-only cells' grey text
        legend.setWordWrap(True)  # a narrow tab wraps it rather than widening the tab
        legend.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.grid = ReviewGrid()
        self.grid.cellClicked.connect(self._cell_clicked)
        self.grid.currentCellChanged.connect(self._current_changed)
        self.grid.installEventFilter(self)
        self._build_table()
        self._build_editor()
        self.export_buttons = {}
        exports = QHBoxLayout()
        for fmt, text in (("md", "Markdown…"), ("csv", "CSV…"), ("xlsx", "Excel…"), ("docx", "Word memo…")):
            button = QPushButton(text)
            button.setToolTip(f"Export the review as {text.rstrip('…')}")
            button.clicked.connect(lambda _checked=False, f=fmt: self.export_requested.emit(f))
            exports.addWidget(button)
            self.export_buttons[fmt] = button
        exports.addStretch(1)
        self._lay_out(legend, exports)
        self.set_grid([], [])

    def _build_table(self) -> None:
        """The table of contracts (rows) and items (columns), its filter box and the toggle."""
        self.titles: list[str] = []
        self.folders: list[str] = []
        self.rows_chosen = False  # the user chose the layout: no more switching by the number of contracts
        self.contracts_as_rows = QCheckBox("Contracts as rows")
        self.contracts_as_rows.setObjectName("review-contracts-as-rows")
        self.contracts_as_rows.setToolTip(
            f"One row per contract and one column per item, to sort and filter (the default from {TABLE_FROM} "
            "contracts); unchecked: one column per contract"
        )
        self.contracts_as_rows.toggled.connect(self._layout_toggled)
        self.filter_box = QLineEdit()
        self.filter_box.setObjectName("review-filter")
        self.filter_box.setPlaceholderText(FILTER_HINT)
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.setToolTip(
            "Conditions separated by ';': has ITEM (the clause was found; evidence only: a candidate passage, "
            "not checked that the clause is there), no ITEM (probably absent or not found), model has ITEM / "
            "evidence has ITEM (only the model's verdicts, or only the evidence's), ITEM = TEXT (in its value "
            "or passage), ITEM != TEXT, or any words (in any cell)"
        )
        self.filter_box.textChanged.connect(self._apply_filter)
        self.table = ContractTableView()
        self.table_model, self.table_filter = self.table.contract_rows, self.table.contract_filter
        self.table.clicked.connect(self._table_clicked)
        self.table.selectionModel().currentChanged.connect(self._table_current_changed)
        self.table.installEventFilter(self)
        self.views = QStackedWidget()
        self.views.addWidget(self.grid)
        self.views.addWidget(self.table)

    def _build_editor(self) -> None:
        self.cell_label = QLabel("")
        self.cell_label.setTextFormat(Qt.TextFormat.PlainText)
        self.cell_label.setWordWrap(True)
        self.value_edit = QLineEdit()
        self.value_edit.setPlaceholderText("corrected value (empty: the model's)")
        self.accepted = QCheckBox("Accepted")
        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText("note")
        self.save_button = QPushButton("Save")
        self.save_button.clicked.connect(self._save_correction)
        self.note_edit.returnPressed.connect(self._save_correction)
        self.value_edit.returnPressed.connect(self._save_correction)
        self._set_editor(None)

    def _lay_out(self, legend: QLabel, exports: QHBoxLayout) -> None:
        """Controls in rows that fit a narrow tab; the contract list and the grid share a splitter."""
        choose = QGridLayout()
        choose.addWidget(QLabel("Checklist"), 0, 0)
        choose.addWidget(self.checklist, 0, 1)
        choose.addWidget(QLabel("We represent"), 1, 0)
        choose.addWidget(self.side, 1, 1)
        choose.setColumnStretch(1, 1)
        run = QHBoxLayout()
        run.addWidget(self.evidence_only)
        run.addStretch(1)
        run.addWidget(self.review_button)
        run.addWidget(self.room.button)
        contracts = QWidget()
        top = QVBoxLayout(contracts)
        top.setContentsMargins(0, 0, 0, 0)
        heading = QHBoxLayout()
        heading.addWidget(QLabel("Contracts to review"), 1)
        for text, checked in (("All", True), ("None", False)):
            button = QPushButton(text)
            button.setObjectName(f"review-check-{text.lower()}")
            button.setToolTip(f"{'Check' if checked else 'Uncheck'} every contract of the library")
            button.clicked.connect(lambda _checked=False, c=checked: self.check_all(c))
            heading.addWidget(button)
        top.addLayout(heading)
        top.addWidget(self.contracts, 1)
        filters = QHBoxLayout()
        filters.addWidget(self.contracts_as_rows)
        filters.addWidget(self.deviations_only)
        filters.addWidget(legend, 1)
        results = QWidget()
        middle = QVBoxLayout(results)
        middle.setContentsMargins(0, 0, 0, 0)
        middle.addWidget(self.hint)
        middle.addLayout(filters)
        middle.addWidget(self.filter_box)
        middle.addWidget(self.empty_note)
        middle.addWidget(self.views, 1)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setObjectName("review-split")
        self.split.addWidget(contracts)
        self.split.addWidget(results)
        self.split.setStretchFactor(0, 1)
        self.split.setStretchFactor(1, 4)
        self.split.setChildrenCollapsible(False)
        self.split.setSizes([110, 440])  # about five contracts, then the grid
        editor = QGridLayout()
        editor.addWidget(self.value_edit, 0, 0, 1, 3)
        editor.addWidget(self.accepted, 1, 0)
        editor.addWidget(self.note_edit, 1, 1)
        editor.addWidget(self.save_button, 1, 2)
        editor.setColumnStretch(1, 1)
        inner = QWidget()
        layout = QVBoxLayout(inner)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(choose)
        layout.addLayout(run)
        layout.addWidget(self.progress)
        layout.addWidget(self.room)
        layout.addWidget(self.split, 1)
        layout.addWidget(self.cell_label)
        layout.addLayout(editor)
        layout.addLayout(exports)
        # A short window scrolls the tab instead of squeezing the grid to nothing.
        self.views.setMinimumHeight(160)
        scroll = QScrollArea()
        scroll.setObjectName("review-scroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        scroll.setWidget(inner)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """The item names' column takes at most a third of a narrow tab."""
        super().resizeEvent(event)
        self.grid.verticalHeader().setMaximumWidth(max(110, min(190, self.width() // 3)))

    # --- contracts and checklist ---------------------------------------------------------

    def set_documents(self, documents: list[tuple[str, str, str]], checked: set[str]) -> None:
        """``documents``: (doc_id, title, state) rows; ``checked``: the doc_ids to tick."""
        self._filling = True
        self.contracts.clear()
        for doc_id, title, state in documents:
            row = QListWidgetItem(f"{title} — {state}" if state else title)
            row.setToolTip(f"{title} — {state}" if state else title)
            row.setData(DOC_ROLE, doc_id)
            row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            row.setCheckState(Qt.CheckState.Checked if doc_id in checked else Qt.CheckState.Unchecked)
            self.contracts.addItem(row)
        self._filling = False

    def check_all(self, checked: bool) -> None:
        """Check (or uncheck) every contract, then say once that the choice changed."""
        self._filling = True
        state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
        for n in range(self.contracts.count()):
            self.contracts.item(n).setCheckState(state)
        self._filling = False
        self.selection_changed.emit()

    def check_only(self, doc_ids: list[str]) -> None:
        """Check ``doc_ids`` (and no other contract), then say once that the choice changed."""
        self._filling = True
        for n in range(self.contracts.count()):
            row = self.contracts.item(n)
            row.setCheckState(Qt.CheckState.Checked if row.data(DOC_ROLE) in doc_ids else Qt.CheckState.Unchecked)
        self._filling = False
        self.selection_changed.emit()

    def checked_doc_ids(self) -> list[str]:
        rows = (self.contracts.item(n) for n in range(self.contracts.count()))
        return [str(r.data(DOC_ROLE)) for r in rows if r.checkState() == Qt.CheckState.Checked]

    def set_checked(self, doc_id: str, checked: bool = True) -> None:
        for n in range(self.contracts.count()):
            row = self.contracts.item(n)
            if row.data(DOC_ROLE) == doc_id:
                row.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def _contract_toggled(self, _item: QListWidgetItem) -> None:
        if not self._filling:
            self.selection_changed.emit()

    def show_checklist_file(self, path: Path) -> None:
        """Add ``path`` to the checklist choices and select it."""
        index = self.checklist.findData(str(path))
        if index < 0:
            index = self.checklist.count() - 1  # before "Choose a checklist file…"
            self.checklist.insertItem(index, path.name, str(path))
        self.checklist.setCurrentIndex(index)

    def _checklist_activated(self, index: int) -> None:
        data = self.checklist.itemData(index)
        if data:
            self.checklist_chosen.emit(str(data))
        else:
            self.checklist_file_requested.emit()

    def side_text(self) -> str:
        return self.side.text().strip()

    def set_busy(self, busy: bool) -> None:
        self.review_button.setEnabled(not busy)

    # --- the grid ------------------------------------------------------------------------

    def set_grid(
        self,
        items: list[ChecklistItem],
        columns: list[tuple[str, DocumentReview | None]],
        folders: list[str] | None = None,
    ) -> None:
        """The contracts (title, its review or None when not reviewed yet) against ``items``: a
        grid (rows = items) for a few, a table (rows = contracts) for many or when chosen."""
        self.items = list(items)
        self.columns = [review for _, review in columns]
        self.titles = [title for title, _ in columns]
        self.folders = list(folders) if folders is not None else [""] * len(columns)
        if not self.rows_chosen:
            self.contracts_as_rows.blockSignals(True)
            self.contracts_as_rows.setChecked(len(columns) >= TABLE_FROM)
            self.contracts_as_rows.blockSignals(False)
        self._fill()

    def table_mode(self) -> bool:
        return self.contracts_as_rows.isChecked()

    def _layout_toggled(self, _checked: bool) -> None:
        self.rows_chosen = True
        self._fill()

    def _fill(self) -> None:
        """Show the contracts in the chosen layout (the other is left empty: 449 columns of widgets
        would take seconds to build)."""
        table = self.table_mode()
        self.views.setCurrentWidget(self.table if table else self.grid)
        self.filter_box.setVisible(table)
        if table:
            self.grid.fill([], [])
            self.table.show_contracts(self.items, list(zip(self.titles, self.folders, self.columns, strict=True)))
            self._set_editor(None)
        else:
            self.table_model.set_contracts(self.items, [])
            self._fill_grid()  # the selected cell stays selected, its editor with it
        self._enable_exports()
        self._apply_filter()

    def _fill_grid(self) -> None:
        selected = (self.grid.currentRow(), self.grid.currentColumn())
        self.grid.fill(self.items, list(zip(self.titles, self.columns, strict=True)))
        if 0 <= selected[0] < len(self.items) and 0 <= selected[1] < len(self.columns):
            self.grid.setCurrentCell(*selected)
            self._set_editor(self.result_at(*selected), selected)
        else:
            self._set_editor(None)

    def set_cell(self, row: int, column: int, review: DocumentReview) -> None:
        """Show ``review`` in ``column`` with its item ``row`` (just finished) in its cell; the
        other cells stay as they are (a review running fills the grid one cell at a time)."""
        if not 0 <= column < len(self.columns) or not 0 <= row < len(review.items):
            return
        if self.table_mode():
            self.columns[column] = review
            self.table_model.set_review(column, review)
            self._enable_exports()
            return
        if not self.grid.set_result(row, column, review):
            return
        self.columns[column] = review
        self._enable_exports()
        self._apply_filter()

    def _enable_exports(self) -> None:
        reviewed = any(review is not None for review in self.columns)
        for button in self.export_buttons.values():
            button.setEnabled(reviewed)

    def result_at(self, row: int, column: int) -> ItemResult | None:
        if not 0 <= column < len(self.columns):
            return None
        review = self.columns[column]
        return review.items[row] if review is not None and 0 <= row < len(review.items) else None

    def row_hidden(self, row: int) -> bool:
        return self.grid.isRowHidden(row)

    def _apply_filter(self) -> None:
        only = self.deviations_only.isChecked()
        if self.table_mode():
            try:
                conditions = parse_filter(self.filter_box.text(), self.table_model.columns)
            except TableFilterError as error:
                self.empty_note.setText(str(error))
                self.empty_note.show()
                return
            self.table_filter.set_conditions(conditions, only)
            self._explain_empty()
            return
        self.grid.show_deviations_only(self.columns, only)
        self._explain_empty()

    def shown_contracts(self) -> int:
        """How many contracts the table shows after its filter (all of them in the grid)."""
        return self.table_filter.rowCount() if self.table_mode() else len(self.columns)

    def _explain_empty(self) -> None:
        """Say why "Deviations only" or the filter leaves the grid empty, or how many rows are shown."""
        answered = any(i.status not in ("evidence", "absent", "pending") for r in self.columns if r for i in r.items)
        no_flags = "an evidence-only review has no flags (review with the model for them)"
        if self.table_mode():
            shown, total = self.table_filter.rowCount(), len(self.columns)
            if shown == 0 and total and self.deviations_only.isChecked() and not answered:
                self.empty_note.setText(f"No deviations to show: {no_flags}.")
            elif shown == total:
                self.empty_note.setText("")
            else:
                has = any(c.kind == "has" for c in self.table_filter.conditions) and not answered
                self.empty_note.setText(f"{shown} of {total} contracts match." + (f" {HAS_CANDIDATES_NOTE}" * has))
            self.empty_note.setVisible(bool(self.empty_note.text()))
            return
        rows = range(self.grid.rowCount())
        if self.deviations_only.isChecked() and rows and all(self.grid.isRowHidden(r) for r in rows):
            self.empty_note.setText(
                "No deviations in these contracts." if answered else f"No deviations to show: {no_flags}."
            )
            self.empty_note.show()
        else:
            self.empty_note.hide()

    def _table_clicked(self, index: QModelIndex) -> None:
        cell = self.table.cell_at(index)
        if cell is None:
            return
        item, contract = cell
        if item < 0:
            self.contract_open_requested.emit(contract)
            return
        self._set_editor(self.result_at(item, contract), (item, contract))
        self.cell_clicked.emit(item, contract)

    def _table_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        cell = self.table.cell_at(current)
        if cell is not None and cell[0] >= 0:
            self._set_editor(self.result_at(*cell), cell)

    def _cell_clicked(self, row: int, column: int) -> None:
        self._set_editor(self.result_at(row, column), (row, column))
        self.cell_clicked.emit(row, column)

    def _current_changed(self, row: int, column: int, _old_row: int, _old_column: int) -> None:
        self._set_editor(self.result_at(row, column), (row, column))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Enter or Space on a grid cell opens its passage, as a click does."""
        keys = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
        key = event.key() if isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress else None
        if watched is self.table and key in keys and self.table.currentIndex().isValid():
            self._table_clicked(self.table.currentIndex())
            return True
        if watched is self.grid and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
            row, column = self.grid.currentRow(), self.grid.currentColumn()
            if event.key() in keys and self.result_at(row, column) is not None:
                self.cell_clicked.emit(row, column)
                return True
        return super().eventFilter(watched, event)

    # --- the reviewer's correction -------------------------------------------------------

    def _set_editor(self, result: ItemResult | None, cell: tuple[int, int] | None = None) -> None:
        """The panel for ``result``, the item at ``cell`` (row, column): Save writes there."""
        self.editing = cell if result is not None else None
        enabled = result is not None
        for widget in (self.value_edit, self.accepted, self.note_edit, self.save_button):
            widget.setEnabled(enabled)
        correction = result.correction if result is not None else None
        self.value_edit.setText(correction.value or "" if correction is not None else "")
        self.accepted.setChecked(correction is not None and correction.accepted)
        self.note_edit.setText(correction.note if correction is not None else "")
        if result is None:
            self.cell_label.setText("Select a cell to correct its value, accept it or add a note.")
        else:
            self.cell_label.setText(panel_text(result))

    def _save_correction(self) -> None:
        if self.editing is None or self.result_at(*self.editing) is None:
            return
        row, column = self.editing
        value, note = self.value_edit.text().strip(), self.note_edit.text().strip()
        self.correction_submitted.emit(row, column, value, self.accepted.isChecked(), note)
