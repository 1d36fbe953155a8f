"""What the Review tab keeps across a restart: the side represented ("We represent"), the checked
contracts and "Evidence only" (the walk of 2026-12-06, finding 11: after a restart the tab had
forgotten the checked contracts and "Evidence only", and a data room's table came back only after
"All"). Kept in the window's state file as soon as it changes: a crash or a kill does not lose it."""

from __future__ import annotations

import json
from collections.abc import Callable

from PySide6.QtCore import QSettings, QTimer

from app.views.review_view import ReviewPanel

SIDE_KEY = "review_side"
CHECKED_KEY = "review_checked"
EVIDENCE_ONLY_KEY = "review_evidence_only"


def restore_review(
    panel: ReviewPanel,
    state: QSettings,
    library_ids: list[str],
    fill_contracts: Callable[[], object],
    show_stored: Callable[[], object],
) -> None:
    """Put back what ``state`` kept (checked contracts still in the library, ``library_ids``),
    showing their stored reviews once; then keep each change."""
    side = state.value(SIDE_KEY)
    if isinstance(side, str) and side:
        panel.side.setText(side)
    evidence_only = state.value(EVIDENCE_ONLY_KEY)
    if evidence_only in (True, "true"):
        panel.evidence_only.setChecked(True)
    try:
        kept = json.loads(str(state.value(CHECKED_KEY) or "[]"))
    except ValueError:  # a hand-edited file: nothing to restore
        kept = []
    checked = [d for d in kept if isinstance(d, str) and d in set(library_ids)]
    if checked:
        fill_contracts()
        panel.check_only(checked)  # shows their stored reviews, once
    elif side:
        show_stored()
    # Every change of the list, the user's ticks and those the tab makes itself (the contract shown
    # is checked when none is), kept once the change is done (one write for "All" over 449 rows).
    keep = QTimer(panel)
    keep.setSingleShot(True)
    keep.timeout.connect(lambda: state.setValue(CHECKED_KEY, json.dumps(panel.checked_doc_ids())))
    contracts = panel.contracts.model()
    for changed in (contracts.dataChanged, contracts.rowsInserted, contracts.rowsRemoved, contracts.modelReset):
        changed.connect(keep.start)
    panel.evidence_only.toggled.connect(lambda on: state.setValue(EVIDENCE_ONLY_KEY, on))
