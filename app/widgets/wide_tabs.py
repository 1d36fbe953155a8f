"""Room for a tab that needs width: while it is open, the splitter's last pane (the tabs') takes
at least the tab's share of the window's width, from the middle pane and, in a narrow window, from
the first one too, which folds away; leaving the tab gives both their room back (walk 2026-12-05:
at 900×600 the Review tab kept ~30 % of the width and one contract column)."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QSplitter, QTabWidget, QWidget


class WideTabs(QObject):
    """``shares``: (tab, share of the splitter's width its pane needs while it is open); ``middle``:
    the middle pane's widget, which keeps at least its minimum size hint."""

    def __init__(
        self,
        splitter: QSplitter,
        tabs: QTabWidget,
        shares: list[tuple[QWidget, float]],
        middle: QWidget,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.splitter, self.tabs, self.shares, self.middle = splitter, tabs, shares, middle
        self.sizes_before: list[int] | None = None  # the panes' sizes before a wide tab took room

    def share(self, tab: QWidget | None) -> float:
        """The share of the width the last pane needs with ``tab`` open (0: what it has)."""
        return next((share for wide, share in self.shares if wide is tab), 0.0)

    def make_room(self, index: int) -> None:
        """The tab at ``index`` is open: its pane takes its share, or gives the room back."""
        sizes = self.splitter.sizes()
        total = sum(sizes)
        share = self.share(self.tabs.widget(index))
        if share:
            wanted = int(total * share)
            if sizes[2] < wanted:
                if self.sizes_before is None:
                    self.sizes_before = sizes
                grow = max(0, min(wanted - sizes[2], sizes[1] - self.middle.minimumSizeHint().width()))
                library = sizes[0]
                if sizes[2] + grow < wanted and library:  # still short: the first pane folds away
                    self.splitter.setCollapsible(0, True)
                    grow, library = grow + library, 0
                if grow > 0:
                    self.splitter.setSizes([library, sizes[1] - (grow - sizes[0] + library), sizes[2] + grow])
        elif self.sizes_before is not None:
            before, self.sizes_before = self.sizes_before, None
            self.splitter.setCollapsible(0, False)
            if sum(before) == total:  # the window was not resized meanwhile
                self.splitter.setSizes(before)
            elif not sizes[0]:  # the pane folded for the tab comes back at its width
                self.splitter.setSizes([before[0], max(0, sizes[1] - before[0]), sizes[2]])

    def window_resized(self) -> None:
        """Made narrower with a wide tab open: its pane takes its share again."""
        if self.share(self.tabs.currentWidget()):
            QTimer.singleShot(0, self, lambda: self.make_room(self.tabs.currentIndex()))
