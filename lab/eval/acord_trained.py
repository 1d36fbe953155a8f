"""The clause ranker fine-tuned on ACORD (lab.training.acord_ranker), scored through the product's
own search on ACORD, cross-validated.

lab.training.acord_ranker writes ``scores.json``: for each query, the score of every clause of its
candidates (lab.eval.acord_candidates) by the model that never saw the query (a training query's by
its fold's model, fitted on the other folds; a validation query's by the final model). Here those
scores stand in for the clause ranker inside ``retrieval.search`` and ``retrieval.rerank`` (a
ranker object that looks each passage's score up), so each system is the product's search with only
the ranker's scores changed: cross-validated with no model per fold on this machine. A passage
outside the candidates (none, by construction) would score below every other.

- ``hybrid + ACORD ranker (top N, w)``: the plain hybrid, the ranker reordering its first N with
  weight w beside the hybrid's order (``rerank_top``, ``rerank_weight``).
- ``search + ACORD ranker``: search as the product runs it, the ACORD ranker in place of today's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab.eval.acord_systems import DEPTH, Ranking, System, plain_params, untrained

if TYPE_CHECKING:
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import RetrievalParams

# (rerank_top, rerank_weight) tried on the hybrid; the product's is (10, 0.75)
SETTINGS = ((10, 0.75), (30, 0.75), (30, 3.0), (50, 3.0))


class LookedUpRanker:
    """Scores of (heading, text) passages for a query, looked up from a trained run's scores."""

    def __init__(self, scores: Mapping[str, Mapping[str, float]], clause_of_text: Mapping[str, str]) -> None:
        self.scores = scores
        self.clause_of_text = clause_of_text

    def score(self, query: str, passages: Sequence[tuple[str, str]]) -> list[float]:
        mine = self.scores[query]
        return [mine.get(self.clause_of_text.get(text, ""), -1e9) for _, text in passages]


@contextmanager
def ranker_replaced(ranker: LookedUpRanker) -> Iterator[None]:
    from summarizer.search import clause_ranker

    saved = clause_ranker.ranker_or_warning
    clause_ranker.ranker_or_warning = lambda folder=None: ranker  # type: ignore[assignment,misc,return-value]
    try:
        yield
    finally:
        clause_ranker.ranker_or_warning = saved


def clause_of_text(library: Library) -> dict[str, str]:
    rows = library.db.execute("SELECT p.text, d.path FROM passages p JOIN documents d ON d.doc_id = p.doc_id")
    return {str(text): Path(str(path)).name for text, path in rows}


def searched(library: Library, ranker: LookedUpRanker, params: RetrievalParams) -> Ranking:
    from summarizer.search.retrieval import search

    def rank(query: str) -> list[int]:
        with ranker_replaced(ranker):
            return [r.passage_id for r in search(library, query, k=DEPTH, params=params)]

    return rank


def trained_systems(library: Library, scores_file: Path, label: str = "ACORD ranker") -> list[System]:
    from summarizer.search.retrieval import DEFAULT_PARAMS

    data: dict[str, Any] = json.loads(scores_file.read_text())
    ranker = LookedUpRanker(data["trained"], clause_of_text(library))
    systems = [
        untrained(
            f"hybrid + {label} (top {top}, w={weight})",
            f"the hybrid, the {label} reordering its first {top} (weight {weight})",
            searched(library, ranker, replace(plain_params(), rerank_top=top, rerank_weight=weight)),
        )
        for top, weight in SETTINGS
    ]
    systems.append(
        untrained(
            f"search + {label}",
            f"search as the product runs it, the {label} in place of today's ranker",
            searched(library, ranker, DEFAULT_PARAMS),
        )
    )
    return systems
