"""Whether a checklist's clause is probably absent from a contract (the review's ``absent`` status).

The clause ranker's best score over an item's evidence says how much a passage looks like the
clause; how common the clause is says how much to expect it. Both go into one logistic model,
fitted on CUAD's validation contracts by scripts/ranker_absent.py and stored beside the checklists
(``checklists/absent-model.json``): ``P(absent)`` from the best score and the log-odds of the
share of CUAD's training contracts that hold such a clause (nearly all name a governing law,
about 4% have a most-favoured-nation clause). A category CUAD does not have (a user's own
checklist) is judged by the score alone, with a threshold chosen the same way.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

MODEL_FILE = Path(__file__).parent / "checklists" / "absent-model.json"
BEST_CANDIDATE_SHOWN = "; the best candidate is still shown"  # the end of every absent reason


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
        share = self.share(category)
        if share is None:
            why = (
                f"the clause ranker scores no passage as this clause "
                f"(best {score:.1f}, threshold {self.score_only_below})"
            )
        else:
            why = (
                f"the clause ranker's best passage scores {score:.1f} and {share:.0%} of contracts have such a clause: "
                f"{self._probability(score, share):.0%} likely absent"
            )
        return f"probably absent: {why}{BEST_CANDIDATE_SHOWN}"


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
