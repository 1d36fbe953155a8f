"""The Review's grid for a few contracts: one row per checklist item, one column per contract,
each cell the item's answer coloured by its playbook flag (italic while unverified), each column
header the contract's title with how many of its values are unverified. The Review tab
(``review_view.ReviewPanel``) fills it, selects in it and edits the selected cell's correction;
many contracts are shown as a table of contracts instead (``review_table``)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from app.views.review_cells import FLAG_COLOURS, cell_text, cell_tip, text_colour
from summarizer.review.checklist import ChecklistItem
from summarizer.review.evidence import DocumentReview, ItemResult
from summarizer.review.export import count_unverified, flag_word


def _paint(cell: QTableWidgetItem, result: ItemResult | None, reviewed: bool) -> None:
    """A grid cell's text, tip and playbook colour for ``result`` (``reviewed``: its contract has a review)."""
    cell.setText(cell_text(result) if reviewed else "not reviewed")
    cell.setToolTip(cell_tip(result) if result is not None else "")
    colour = FLAG_COLOURS.get(flag_word(result)) if result is not None else None
    cell.setData(Qt.ItemDataRole.BackgroundRole, QBrush(QColor(colour)) if colour else None)
    grey = text_colour(result)  # evidence only: nobody read the contract for this item
    cell.setData(Qt.ItemDataRole.ForegroundRole, QBrush(QColor(grey)) if grey else None)
    font = cell.font()
    font.setItalic(result is not None and result.unverified)
    cell.setFont(font)


def column_title(title: str, review: DocumentReview | None) -> str:
    """A contract's column header: its title, and how many of its values are unverified."""
    unverified = count_unverified(review) if review is not None else 0
    return f"{title}\n{unverified} unverified" if unverified else title


class ReviewGrid(QTableWidget):
    """Checklist items (rows) by contracts (columns); read-only, one cell selected at a time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("review-grid")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setWordWrap(True)
        self.setTabKeyNavigation(False)  # Tab leaves the grid; the arrows move in it
        self.horizontalHeader().setDefaultSectionSize(170)
        self.horizontalHeader().setMinimumSectionSize(90)
        self.verticalHeader().setMaximumWidth(190)  # the item names; the contracts get the room
        self.verticalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)

    def fill(self, items: list[ChecklistItem], columns: list[tuple[str, DocumentReview | None]]) -> None:
        """Every cell anew: ``columns`` are the contracts (title, its review or None when not
        reviewed yet) against ``items``."""
        self.clear()
        self.setRowCount(len(items))
        self.setColumnCount(len(columns))
        self.setHorizontalHeaderLabels([column_title(title, review) for title, review in columns])
        self.setVerticalHeaderLabels([item.category for item in items])
        few = len(columns) <= 3  # side by side across the tab; more scroll sideways
        mode = QHeaderView.ResizeMode.Stretch if few else QHeaderView.ResizeMode.Interactive
        self.horizontalHeader().setSectionResizeMode(mode)
        for column, (_, review) in enumerate(columns):
            for row in range(len(items)):
                result = review.items[row] if review is not None and row < len(review.items) else None
                cell = QTableWidgetItem()
                _paint(cell, result, review is not None)
                self.setItem(row, column, cell)
        self.resizeRowsToContents()

    def set_result(self, row: int, column: int, review: DocumentReview) -> bool:
        """``review``'s item ``row`` (just finished) in its cell, the column's header counting the
        review's unverified values; False when there is no such cell."""
        cell = self.item(row, column)
        if cell is None:
            return False
        _paint(cell, review.items[row], True)
        header = self.horizontalHeaderItem(column)
        if header is not None:
            header.setText(column_title(header.text().split("\n")[0], review))
        self.resizeRowToContents(row)
        return True

    def show_deviations_only(self, columns: list[DocumentReview | None], only: bool) -> None:
        """With ``only``, hide the items that no contract of ``columns`` deviates on."""
        for row in range(self.rowCount()):
            flags = {r.items[row].flag for r in columns if r is not None and row < len(r.items)}
            self.setRowHidden(row, only and "deviation" not in flags)
