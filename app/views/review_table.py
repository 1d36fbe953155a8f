"""The Review as a table of contracts (issue 46): one row per contract, one column per checklist
item, sorted by a click on a column's header and filtered by what the reviewer types
(``summarizer.review.contract_table``: "has Change of Control", "Governing Law = New York",
"probably absent").

A ``QAbstractTableModel`` holds the rows, each cell's text, colour and sort key computed once
when its contract's review arrives; a ``QSortFilterProxyModel`` sorts and filters them, so a
data room of 449 contracts x 41 items sorts and filters without building 18,000 widgets
(``lab/bench/review_table.py`` measures it); ``ContractTableView`` shows them, one line a
contract, in the Review tab (``review_view.ReviewPanel``, beside the grid of a few contracts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QTableView, QWidget

from app.views.review_cells import FLAG_COLOURS, cell_text, cell_tip, text_colour
from summarizer.review.checklist import ChecklistItem
from summarizer.review.contract_table import (
    NOT_REVIEWED,
    Condition,
    TableColumn,
    TableRow,
    cell_state,
    row_matches,
    state_sort_key,
    table_columns,
    table_row,
)
from summarizer.review.evidence import DocumentReview, ItemResult
from summarizer.review.export import count_unverified, flag_word

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
AnyIndex = QModelIndex | QPersistentModelIndex


@dataclass(slots=True)
class ContractRow:
    """One contract's row: what each cell shows, its sort key and its colour, computed once."""

    title: str
    folder: str
    review: DocumentReview | None
    shown: list[str]
    sort_keys: list[str]
    colours: list[QBrush | None]
    filter_row: TableRow


def _sort_key(state: str, text: str) -> str:
    order, rest = state_sort_key(state, text.lower())
    return f"{order}{rest}"


class ContractTable(QAbstractTableModel):
    """Rows = contracts, columns = the contract's title (and folder), then the checklist items."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.items: list[ChecklistItem] = []
        self.columns: list[TableColumn] = table_columns([])
        self.rows: list[ContractRow] = []

    def set_contracts(
        self, items: Sequence[ChecklistItem], contracts: Sequence[tuple[str, str, DocumentReview | None]]
    ) -> None:
        """``contracts``: (title, folder, its review or None when not reviewed yet)."""
        self.beginResetModel()
        self.items = list(items)
        self.columns = table_columns(self.items, folders=any(folder for _, folder, _ in contracts))
        self.rows = [self._row(title, folder, review) for title, folder, review in contracts]
        self.endResetModel()

    def set_review(self, row: int, review: DocumentReview) -> None:
        """A contract's review arrived (or one of its items did): its row shows it."""
        if not 0 <= row < len(self.rows):
            return
        old = self.rows[row]
        new = self.rows[row] = self._row(old.title, old.folder, review)
        changed = [n for n, column in enumerate(self.columns) if self._cell_changed(old, new, n, column.item_index)]
        if changed:  # only the cells that changed: the view repaints them, not the row (an item at a time)
            self.dataChanged.emit(self.index(row, changed[0]), self.index(row, changed[-1]))

    def _cell_changed(self, old: ContractRow, new: ContractRow, column: int, index: int) -> bool:
        if old.sort_keys[column] != new.sort_keys[column] or old.colours[column] != new.colours[column]:
            return True
        if index < 0:
            return old.title != new.title or old.folder != new.folder
        before, after = self._result(old.review, index), self._result(new.review, index)
        return before is not after and before != after  # the tooltip, the text's colour and font

    def _row(self, title: str, folder: str, review: DocumentReview | None) -> ContractRow:
        results = [self._result(review, n) for n in range(len(self.items))]
        shown = [cell_text(result) if review is not None else "not reviewed" for result in results]
        unverified = count_unverified(review) if review is not None else 0
        label = f"{title} · {unverified} unverified" if unverified else title
        sort_keys: list[str] = []
        colours: list[QBrush | None] = []
        for column in self.columns:
            if column.key == "contract":
                sort_keys.append(title.lower())
                colours.append(None)
            elif column.key == "folder":
                sort_keys.append(folder.lower())
                colours.append(None)
            else:
                result = results[column.item_index]
                state = cell_state(result) if review is not None else NOT_REVIEWED
                sort_keys.append(_sort_key(state, shown[column.item_index]))
                colour = FLAG_COLOURS.get(flag_word(result)) if result is not None else None
                colours.append(QBrush(QColor(colour)) if colour else None)
        return ContractRow(
            label, folder, review, shown, sort_keys, colours, table_row(review, title, folder, shown, self.columns)
        )

    @staticmethod
    def _result(review: DocumentReview | None, index: int) -> ItemResult | None:
        return review.items[index] if review is not None and index < len(review.items) else None

    def result_at(self, row: int, column: int) -> ItemResult | None:
        """The item result in the cell (None for the title and folder columns)."""
        if not 0 <= row < len(self.rows) or not 0 <= column < len(self.columns):
            return None
        index = self.columns[column].item_index
        return self._result(self.rows[row].review, index) if index >= 0 else None

    # --- QAbstractTableModel --------------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row, column = self.rows[index.row()], self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            if column.key == "contract":
                return row.title
            if column.key == "folder":
                return row.folder
            return row.shown[column.item_index]
        if role == SORT_ROLE:
            return row.sort_keys[index.column()]
        if role == Qt.ItemDataRole.BackgroundRole:
            return row.colours[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            result = self._result(row.review, column.item_index) if column.item_index >= 0 else None
            if result is not None:
                return cell_tip(result)
            return "Click to open the contract." if column.key == "contract" else None
        if role == Qt.ItemDataRole.ForegroundRole and column.item_index >= 0:
            colour = text_colour(self._result(row.review, column.item_index))
            return QBrush(QColor(colour)) if colour else None
        if role == Qt.ItemDataRole.FontRole and column.item_index >= 0:
            result = self._result(row.review, column.item_index)
            if result is not None and result.unverified:
                font = QFont()
                font.setItalic(True)
                return font
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.columns[section].title if 0 <= section < len(self.columns) else None
        return str(section + 1)


class ContractFilter(QSortFilterProxyModel):
    """The table's rows that meet the typed conditions (and "deviations only"), sorted by a column."""

    def __init__(self, table: ContractTable, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.conditions: list[Condition] = []
        self.deviations_only = False
        self.setSourceModel(table)
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    def set_conditions(self, conditions: list[Condition], deviations_only: bool) -> None:
        self.beginFilterChange()
        self.conditions, self.deviations_only = conditions, deviations_only
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, _parent: AnyIndex) -> bool:
        row = self.table.rows[source_row]
        if self.deviations_only and (
            row.review is None or not any(item.flag == "deviation" for item in row.review.items)
        ):
            return False
        return row_matches(row.filter_row, self.conditions, self.table.columns)


class ContractTableView(QTableView):
    """The table of contracts (``contract_rows``) as ``contract_filter`` sorts and filters it, in the
    library's order until a header is clicked; read-only, one cell selected at a time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.contract_rows = ContractTable(self)
        self.contract_filter = ContractFilter(self.contract_rows, self)
        self.setObjectName("review-table")
        self.setModel(self.contract_filter)
        self.setSortingEnabled(True)
        self.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the library's order until a header is clicked
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setTabKeyNavigation(False)
        self.setWordWrap(False)  # one line a contract: hundreds of rows stay scannable
        self.horizontalHeader().setDefaultSectionSize(130)
        self.horizontalHeader().setMinimumSectionSize(60)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)

    def show_contracts(
        self, items: Sequence[ChecklistItem], contracts: Sequence[tuple[str, str, DocumentReview | None]]
    ) -> None:
        """``contracts`` (title, folder, review or None) against ``items``, the title column at most
        320 pixels wide."""
        self.contract_rows.set_contracts(items, contracts)
        self.resizeColumnToContents(0)
        self.setColumnWidth(0, min(self.columnWidth(0), 320))

    def cell_at(self, index: QModelIndex) -> tuple[int, int] | None:
        """The (item, contract) of a cell; the item is -1 on the title and folder columns."""
        if not index.isValid():
            return None
        source = self.contract_filter.mapToSource(index)
        return self.contract_rows.columns[source.column()].item_index, source.row()
