"""One question across the library, grouped by contract (issue 46): "which contracts have X" is
answered by the contracts whose best passage matches, each with that passage and its page.

The same hybrid search as ``pagewise search --all`` (``summarizer.search.retrieval.search``, the
clause ranker included) ranks ``PASSAGES_SEARCHED`` passages of every document; each contract
keeps its best one, in the order of the best passages, so a contract with three matching
clauses takes one line, not three, and the list names up to ``CONTRACTS_SHOWN`` contracts.

Its knobs are ``LIBRARY_PARAMS``, today the single-document search's: on the 449-contract data room
(docs/data/dataroom-quality) the lexicon expansions list more contracts that have the clause asked
about, and the clause ranker, which reorders only the first ``rerank_top`` passages, does not change
which contracts are listed, only the order of the first few (for better and for worse).

Unlike a search for passages, near-copies are kept: a data room holds the same boilerplate
clause in many contracts, and each of them has it (the search's de-duplication listed one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from summarizer.library.storage.store import Library
from summarizer.search.retrieval import DEFAULT_PARAMS, RetrievalParams, SearchResult, search

PASSAGES_SEARCHED = 120  # passages ranked over the library, before keeping each contract's best
CONTRACTS_SHOWN = 25  # contracts listed for one question: a screen's worth, best first
# The search's knobs for a question across the library: ranker and lexicon on or off, measured by
# lab/eval/dataroom_quality.py (docs/data/dataroom-quality); no setting beat these clearly.
LIBRARY_PARAMS = DEFAULT_PARAMS


@dataclass(frozen=True, slots=True)
class ContractMatch:
    """A contract's best passage for the question."""

    doc_id: str
    title: str
    best: SearchResult
    passages: int  # how many of its passages were among those ranked (more: the subject recurs)


def best_passage_per_contract(
    library: Library,
    question: str,
    *,
    doc_ids: Sequence[str] | None = None,
    contracts: int = CONTRACTS_SHOWN,
    passages: int = PASSAGES_SEARCHED,
    params: RetrievalParams = LIBRARY_PARAMS,
) -> list[ContractMatch]:
    """The contracts (of ``doc_ids``, default all) whose passages best match ``question``, each
    with its best passage, best first; at most ``contracts``. ``params``: the search's knobs
    (near-copies are kept and at least ``passages`` candidates taken from each ranking)."""
    params = replace(params, max_overlap=1.0, candidates=max(params.candidates, passages))
    results = search(library, question, doc_ids=doc_ids, k=passages, params=params)
    titles = {record.doc_id: record.title for record in library.documents()}
    best: dict[str, SearchResult] = {}
    counts: dict[str, int] = {}
    for result in results:
        counts[result.doc_id] = counts.get(result.doc_id, 0) + 1
        best.setdefault(result.doc_id, result)
    ranked = list(best.values())[:contracts]
    return [ContractMatch(r.doc_id, titles.get(r.doc_id, r.doc_id), r, counts[r.doc_id]) for r in ranked]
