"""Whether a checklist's clause is probably absent from a contract (the review's ``absent`` status).

The clause ranker's best score over an item's evidence says how much a passage looks like the
clause; how common the clause is says how much to expect it. Both go into one logistic model,
fitted on CUAD's validation contracts by scripts/ranker_absent.py and stored beside the checklists
(``checklists/absent-model.json``): ``P(absent)`` from the best score and the log-odds of the
share of CUAD's training contracts that hold such a clause (nearly all name a governing law,
about 4% have a most-favoured-nation clause). A category CUAD does not have (a user's own
checklist) is judged by the score alone, with a threshold chosen the same way.

``P(absent)`` only decides the label: it is never shown. On contracts it was not fitted on a cell
it put at 99% was a clause the annotators marked present (the 2026-12-05 walk, issue 42), so a
per-cell percentage would claim more than was measured (docs/retrieval.md has the label's
precision as a whole). The user sees "probably absent", what it rests on, and the closest
candidate's page to check.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

MODEL_FILE = Path(__file__).parent / "checklists" / "absent-model.json"
CHECK_CANDIDATE = "; check the closest candidate"  # the end of every absent reason


@dataclass(frozen=True, slots=True)
class AbsenceModel:
    intercept: float
    score_weight: float
    share_weight: float
    threshold: float  # absent when P(absent) >= this
    score_only_below: float  # a category without a share: absent when the best score is below this
    presence: dict[str, float]  # lower-case CUAD category -> share of training contracts holding it

    def share(self, category: str) -> float | None:
        """The share of CUAD's training contracts holding a ``category`` clause (None: not a CUAD category)."""
        return self.presence.get(category.strip().lower())

    def probability(self, score: float, category: str) -> float | None:
        """P(absent) for a best ranker score in ``category``; None when the category has no share."""
        share = self.share(category)
        return None if share is None else self._probability(score, share)

    def _probability(self, score: float, share: float) -> float:
        z = self.intercept + self.score_weight * score + self.share_weight * math.log(share / (1.0 - share))
        return 1.0 / (1.0 + math.exp(-z))

    def is_absent(self, score: float | None, category: str) -> bool:
        if score is None:  # no ranker: nothing can be said
            return False
        p = self.probability(score, category)
        return score < self.score_only_below if p is None else p >= self.threshold

    def reason(self, score: float, category: str) -> str:
        """Why a cell is "probably absent", in a reader's words: no score, no percentage (see the
        module's docstring; the walk of 2026-12-05 read "the clause ranker's best passage scores
        -4.2" as engine talk). ``score`` is what decided it and stays in the stored result."""
        if self.share(category) is None:
            why = "no passage reads like this clause"
        else:
            why = "no passage reads like this clause, judged with how often contracts have one"
        return f"probably absent: {why}{CHECK_CANDIDATE}"


def absent_reason(score: float | None, category: str) -> str:
    """An absent cell's reason from its stored best score (a reason stored before issue 42 held a
    percentage; it is written again from the score when read)."""
    return "probably absent" + CHECK_CANDIDATE if score is None else absence_model().reason(score, category)


@functools.cache
def absence_model() -> AbsenceModel:
    """The shipped model (read once)."""
    data = json.loads(MODEL_FILE.read_text())
    return AbsenceModel(
        intercept=float(data["intercept"]),
        score_weight=float(data["score"]),
        share_weight=float(data["share"]),
        threshold=float(data["threshold"]),
        score_only_below=float(data["score_only_below"]),
        presence={k: float(v) for k, v in data["cuad_presence"].items()},
    )
