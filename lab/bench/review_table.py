"""How fast the Review's table of contracts fills, sorts and filters for a data room (issue 46:
449 contracts x 41 items, target ≤ 200 ms to sort or filter).

    QT_QPA_PLATFORM=offscreen python -m lab.bench.review_table --contracts 449 --repeats 5

The reviews are synthetic, as an evidence-only run of the CUAD checklist stores them: each item
has ten passages of about 600 characters, a third of the cells "probably absent", the governing
law one of five states. Times are the median of ``--repeats`` runs of each step, measured on the
GUI thread around the panel's own calls (``set_grid``, a header's sort, typing a filter), with the
events they post processed, so a repaint of the visible rows is inside the figure.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable

from summarizer.review.checklist import Checklist, load_checklist
from summarizer.review.evidence import DocumentReview, Evidence, ItemResult

STATES = ["New York", "Delaware", "California", "Texas", "England and Wales"]
FILTERS = [
    "has Change of Control",
    "probably absent",
    "Governing Law = New York",
    "has Change of Control; no Non-Compete; Governing Law = Delaware",
]


def synthetic_review(n: int, checklist: Checklist, rng: random.Random) -> DocumentReview:
    items = []
    for m, item in enumerate(checklist.items):
        clause = f"the laws of the State of {rng.choice(STATES)}" if item.id == "governing-law" else item.category
        evidence = [
            Evidence(n * 1000 + m * 10 + k, 1 + k, 1 + k, f"Section {k}. {clause}. " + "word " * 110) for k in range(10)
        ]
        status = "absent" if rng.random() < 0.33 else "evidence"
        result = ItemResult(item.id, item.category, item.question, item.type, status, evidence, 200)
        result.clause_score = rng.uniform(-8, 8)
        items.append(result)
    return DocumentReview(f"doc{n:04d}", f"Contract {n:04d}", "0" * 64, checklist.name, checklist.version, tuple(items))


def timed(step: Callable[[], object], repeats: int) -> float:
    from PySide6.QtWidgets import QApplication

    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        step()
        QApplication.processEvents()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contracts", type=int, default=449)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from app.views.review_view import ReviewPanel

    app = QApplication.instance() or QApplication([])
    checklist = load_checklist("cuad")
    rng = random.Random(46)
    reviews = [synthetic_review(n, checklist, rng) for n in range(args.contracts)]
    columns: list[tuple[str, DocumentReview | None]] = [(r.title, r) for r in reviews]
    panel = ReviewPanel()
    panel.resize(1400, 900)
    panel.show()
    app.processEvents()
    result: dict[str, object] = {"contracts": args.contracts, "items": len(checklist.items)}
    result["fill_ms"] = round(timed(lambda: panel.set_grid(list(checklist.items), columns), args.repeats), 1)
    sorts = {}
    for column in (0, 1, 13, 40):  # the title, then items by their state and text
        title = panel.table_model.headerData(column, Qt.Orientation.Horizontal)

        def sort(column: int = column) -> None:
            order = panel.table.horizontalHeader().sortIndicatorOrder()
            panel.table.sortByColumn(column, type(order)(1 - order.value))  # flip: a real re-sort each time

        sorts[str(title)] = round(timed(sort, args.repeats), 1)
    result["sort_ms"] = sorts
    filters = {}
    for text in FILTERS:

        def filter_by(text: str = text) -> None:
            panel.filter_box.clear()
            panel.filter_box.setText(text)

        filters[text] = {"ms": round(timed(filter_by, args.repeats), 1), "rows": panel.shown_contracts()}
    result["filter_ms"] = filters
    print(json.dumps(result, indent=2))
    panel.close()
    panel.deleteLater()  # before the QApplication goes: Qt warns of a widget outliving it
    app.sendPostedEvents(None, 0)


if __name__ == "__main__":
    main()
