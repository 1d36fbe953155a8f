"""One question across the library, grouped by contract: each contract once, with its best
passage, best first; a contract without the clause is not listed before those with it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from summarizer.library.storage.store import Library
from summarizer.search import by_contract
from summarizer.search.by_contract import best_passage_per_contract
from summarizer.search.retrieval import DEFAULT_PARAMS, RetrievalParams, SearchResult
from tests.summarizer.doc_factory import add_document

COC = "Change of control. Upon a change of control of the Supplier the Customer may terminate this Agreement."
FILLER = "Notices. All notices shall be in writing and delivered to the addresses above by courier."


def test_each_contract_once_with_its_best_passage(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as lib:
        twice = add_document(lib, [FILLER, COC, COC.replace("Supplier", "Distributor")], title="Twice")
        once = add_document(lib, [FILLER, FILLER, COC], title="Once")
        none = add_document(lib, [FILLER, "Payment. Invoices are due in thirty days."], title="None")
        matches = best_passage_per_contract(lib, "change of control")
    by_title = {m.title: m for m in matches}
    assert [m.doc_id for m in matches][:2] in ([twice, once], [once, twice])
    assert len({m.doc_id for m in matches}) == len(matches)  # one line per contract
    assert by_title["Twice"].passages == 2 and by_title["Twice"].best.page_start in (2, 3)
    assert by_title["Once"].best.page_start == 3 and "change of control" in by_title["Once"].best.text.lower()
    assert none not in [m.doc_id for m in matches][:2]


def test_the_search_runs_with_the_library_wide_params(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # lab/eval/dataroom_quality.py measured the four settings of ranker x lexicon on the data room
    # (docs/data/dataroom-quality): the lexicon expansions lift the category questions, the ranker
    # changes nothing measurable there; both stay on, and near-copies are kept.
    seen: list[RetrievalParams] = []

    def recording_search(library: Library, query: str, **kwargs: object) -> list[SearchResult]:
        params = kwargs["params"]
        assert isinstance(params, RetrievalParams)
        seen.append(params)
        return []

    monkeypatch.setattr(by_contract, "search", recording_search)
    with Library.open(tmp_path / "library.sqlite") as lib:
        by_contract.best_passage_per_contract(lib, "change of control")
        by_contract.best_passage_per_contract(
            lib, "change of control", params=replace(by_contract.LIBRARY_PARAMS, rerank_top=0, expand_query=False)
        )
    default, plain = seen
    assert default.rerank_top == DEFAULT_PARAMS.rerank_top > 0 and default.expand_query
    assert (plain.rerank_top, plain.expand_query) == (0, False)
    for params in seen:
        assert params.max_overlap == 1.0 and params.candidates >= by_contract.PASSAGES_SEARCHED
