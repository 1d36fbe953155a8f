from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from summarizer.errors import DocumentNotFound
from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library
from summarizer.search.fts_query import fts_query
from summarizer.search.retrieval import DEFAULT_PARAMS, RetrievalParams, bm25_ranking, search
from tests.conftest import CONTRACTS
from tests.summarizer.doc_factory import add_document


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("library")
    with Library.open(folder / "library.sqlite") as lib:
        ids = {
            name: ingest_path(lib, CONTRACTS / f"{name}.pdf").doc_id
            for name in ("license-17p", "supply-16p", "endorsement-8p")
        }
        yield lib, ids


NASTY_QUERIES = [
    '"unbalanced quote',
    "non-compete",
    "AND",
    "OR NOT AND",
    "term* OR",
    "(indemnification",
    "§ 12.3(b)",
    "NEAR(a b)",
    "search_text: licensor",
    "^start",
    "a + b - c",
    "'single' \"double\" `back`",
    "",
    "   ",
    "***",
    "\u00e9t\u00e9 caf\u00e9",
    "北京新浪",
    "{col1 col2}: x",
]


@pytest.mark.parametrize("query", NASTY_QUERIES)
def test_user_text_never_breaks_fts(library: tuple[Library, dict[str, str]], query: str) -> None:
    lib, _ = library
    bm25_ranking(lib, query, None, 10)  # must not raise
    search(lib, query, k=3)


def test_fts_query_quotes_every_term() -> None:
    assert fts_query('termination AND "for" convenience*') == '"termination" OR "convenience"'
    assert fts_query("AND OR NOT") == '"and" OR "or" OR "not"'  # only common words: keep them
    assert fts_query('say "hi"') == '"say" OR "hi"'
    assert fts_query("§ ( ) *") is None


def test_exact_clause_phrase_finds_its_passage(library: tuple[Library, dict[str, str]]) -> None:
    lib, ids = library
    phrase = "Licensor may terminate this Agreement by providing prior written notice to Licensee"
    results = search(lib, phrase, doc_ids=[ids["license-17p"]], k=3)
    top = results[0]
    assert " ".join(phrase.split()) in " ".join(top.text.split())
    assert top.page_start == top.page_end == 8
    assert top.doc_id == ids["license-17p"]


def test_paraphrase_finds_the_clause(library: tuple[Library, dict[str, str]]) -> None:
    lib, ids = library
    # The contract says: "Either Party may immediately terminate this Agreement in the event that
    # the other Party (a) becomes insolvent or unable to pay its debts as they mature".
    question = "Can one side end the deal straight away if the other goes broke?"
    results = search(lib, question, doc_ids=[ids["license-17p"]], k=3)
    assert any("insolvent" in r.text for r in results), [r.text[:80] for r in results]
    assert all(r.page_start <= 8 <= r.page_end for r in results if "insolvent" in r.text)


def test_vector_side_alone_finds_a_paraphrase(library: tuple[Library, dict[str, str]]) -> None:
    lib, ids = library
    # The clause says "insolvent or unable to pay its debts", never "bankrupt": the vectors bridge it.
    results = search(lib, "what if the other side goes bankrupt", doc_ids=[ids["license-17p"]], k=5)
    hit = next(r for r in results if "insolvent" in r.text)
    assert hit.vector_rank is not None and hit.vector_rank <= 3


def test_filter_by_document(library: tuple[Library, dict[str, str]]) -> None:
    lib, ids = library
    only = search(lib, "termination of the agreement", doc_ids=[ids["supply-16p"]], k=5)
    assert only and {r.doc_id for r in only} == {ids["supply-16p"]}
    two = search(lib, "termination of the agreement", doc_ids=[ids["supply-16p"], ids["endorsement-8p"]], k=10)
    assert {r.doc_id for r in two} <= {ids["supply-16p"], ids["endorsement-8p"]}
    everywhere = search(lib, "termination of the agreement", k=10)
    assert len({r.doc_id for r in everywhere}) >= 2


def test_results_carry_scores_and_page_ranges(library: tuple[Library, dict[str, str]]) -> None:
    lib, _ = library
    results = search(lib, "governing law", k=4)
    assert len(results) == 4
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    for r in results:
        assert 1 <= r.page_start <= r.page_end
        assert set(r.to_json()) == {"passage_id", "doc_id", "heading", "text", "page_start", "page_end", "score"}


def test_unknown_document(library: tuple[Library, dict[str, str]]) -> None:
    lib, _ = library
    with pytest.raises(DocumentNotFound, match="nope"):
        search(lib, "anything", doc_ids=["nope"])


def test_empty_library_returns_nothing(tmp_path: Path) -> None:
    with Library.open(tmp_path / "empty.sqlite") as lib:
        assert search(lib, "termination", k=3) == []


def test_results_carry_the_heading_path_outside_the_text(library: tuple[Library, dict[str, str]]) -> None:
    lib, ids = library
    (top,) = search(lib, "Which law governs this agreement?", doc_ids=[ids["license-17p"]], k=1)
    assert "Governing Law" in top.heading and top.heading.startswith("ARTICLE X")
    assert top.to_json()["heading"] == top.heading
    assert not top.text.startswith(top.heading), "the heading is a field of its own, not part of the text"


def test_the_heading_field_is_searched(library: tuple[Library, dict[str, str]]) -> None:
    lib, ids = library
    # "Quality Control" is the title of ARTICLE III; sub-clauses under it do not repeat it.
    heading_only = RetrievalParams(heading_weight=DEFAULT_PARAMS.heading_weight, expand_query=False)
    ranked = bm25_ranking(lib, "quality control", [ids["license-17p"]], 10, heading_only)
    headings = [
        str(lib.db.execute("SELECT heading FROM passages WHERE passage_id = ?", [pid]).fetchone()[0]) for pid in ranked
    ]
    assert sum("QUALITY CONTROL" in h for h in headings) >= 2


def test_query_expansion_finds_the_lawyers_words(tmp_path: Path) -> None:
    with Library.open(tmp_path / "lib.sqlite") as lib:
        doc_id = add_document(
            lib,
            [
                "The Supplier shall deliver the Products to the Customer's warehouse in good condition. "
                "Either party may terminate this Agreement for convenience upon ninety days' written notice. "
                "Invoices are due within thirty days of receipt."
            ],
            words_per_passage=12,
        )
        question = "Can we walk away from this deal?"
        plain = search(
            lib, question, doc_ids=[doc_id], k=3, use_vectors=False, params=RetrievalParams(expand_query=False)
        )
        expanded = search(lib, question, doc_ids=[doc_id], k=1, use_vectors=False)
    assert not any("convenience" in r.text for r in plain)
    assert "for convenience" in expanded[0].text


def test_fts_query_leaves_out_dropped_words_unless_nothing_else_is_left() -> None:
    assert fts_query("assign this agreement", drop={"agreement"}) == '"assign"'
    assert fts_query("the agreement", ["assignment", "prior consent"], {"agreement", "assignment"}) == (
        '"prior consent"'
    )
    assert fts_query("agreement", drop={"agreement"}) == '"agreement"'


def _bm25_words(lib: Library, pid: int) -> str:
    return str(lib.db.execute("SELECT search_text FROM passages WHERE passage_id = ?", [pid]).fetchone()[0])


def test_words_in_most_passages_are_left_out_of_bm25(tmp_path: Path) -> None:
    pages = [f"the agreement clause number {i} says nothing in particular here" for i in range(9)]
    pages.append("this agreement may be assigned only with consent")
    plain = RetrievalParams(expand_query=False)
    with Library.open(tmp_path / "lib.sqlite") as lib:
        doc_id = add_document(lib, pages, words_per_passage=20)
        every_word = bm25_ranking(lib, "agreement assigned", [doc_id], 20, replace(plain, max_term_share=1.0))
        common_left_out = bm25_ranking(lib, "agreement assigned", [doc_id], 20, plain)
        # "agreement" is in every passage: FTS5 gives it an IDF of ~0, so it ranks nothing and
        # only makes every passage a match that bm25() must score.
        assert len(every_word) == 10
        assert [_bm25_words(lib, pid) for pid in common_left_out] == [
            "this agreement may be assigned only with consent"
        ]
        assert every_word[0] == common_left_out[0]
        # Only common words: they are searched all the same.
        assert len(bm25_ranking(lib, "agreement", [doc_id], 20, plain)) == 10
        # The counts follow the library: once most passages say "assigned", it is the common word
        # and "agreement" (now in a quarter of them) is what ranks.
        other = add_document(lib, [f"assigned item {i}" for i in range(30)], words_per_passage=3)
        ranked = bm25_ranking(lib, "assigned agreement", [doc_id, other], 50, plain)
        assert len(ranked) == 10 and all("agreement" in _bm25_words(lib, pid) for pid in ranked)


def test_a_near_copy_of_a_better_passage_is_left_out(tmp_path: Path) -> None:
    clause = "Licensee shall not assign this Agreement without the prior written consent of Licensor"
    pages = [clause + ".", "Exhibit B form: " + clause + ".", "Licensee may assign its rights to an affiliate."]
    pages += [f"Invoices are payable within {n} days of receipt." for n in range(10, 19)]
    keep_all = RetrievalParams(max_overlap=1.0)
    with Library.open(tmp_path / "lib.sqlite") as lib:
        doc_id = add_document(lib, pages, words_per_passage=40)
        every = search(lib, "assign without consent", doc_ids=[doc_id], k=3, use_vectors=False, params=keep_all)
        distinct = search(lib, "assign without consent", doc_ids=[doc_id], k=3, use_vectors=False)
    assert len(every) == 3 and sum(clause in r.text for r in every) == 2
    assert sum(clause in r.text for r in distinct) == 1
    assert len(distinct) == 2 and distinct[0].passage_id == every[0].passage_id


def _set_kind(lib: Library, doc_id: str, kind: str) -> None:
    lib.db.execute("UPDATE documents SET kind = ? WHERE doc_id = ?", [kind, doc_id])


FILING_PAGES = [
    "Our stores sell running shoes and apparel in many countries around the world.",
    "Net cash provided by operating activities 5,903 4,955 Capital expenditures 1,119 1,028",
    "We compete with many other makers of shoes; our brand is our main asset in 2020.",
    *(
        f"Store number {i} opened in a new city, with generated interest from many flow-through buyers."
        for i in range(6)
    ),
]


def test_a_filing_is_searched_with_the_finance_vocabulary(tmp_path: Path) -> None:
    question = "What was their capex in FY2020?"
    with Library.open(tmp_path / "lib.sqlite") as lib:
        doc_id = add_document(lib, FILING_PAGES, words_per_passage=40)
        as_other = search(lib, question, doc_ids=[doc_id], k=1, use_vectors=False)
        _set_kind(lib, doc_id, "filing")
        as_filing = search(lib, question, doc_ids=[doc_id], k=1, use_vectors=False)
    assert not as_other or "Capital expenditures" not in as_other[0].text
    assert "Capital expenditures 1,119" in as_filing[0].text


def test_the_ranker_reorders_contracts_but_not_filings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import summarizer.search.clause_ranker as clause_ranker

    scored: list[str] = []

    class Ranker:
        def score(self, query: str, passages: list[tuple[str, str]]) -> list[float]:
            scored.append(query)
            return [0.0] * len(passages)

    monkeypatch.setattr(clause_ranker, "ranker_or_warning", lambda: Ranker())
    with Library.open(tmp_path / "lib.sqlite") as lib:
        doc_id = add_document(lib, FILING_PAGES, words_per_passage=40)
        _set_kind(lib, doc_id, "contract")
        search(lib, "cash flow", doc_ids=[doc_id], k=2, use_vectors=False)
        assert scored == ["cash flow"]
        _set_kind(lib, doc_id, "filing")
        # A "filing" with no financial statement and no table titled by its units is a contract
        # taken for a filing: the ranker still reorders it (unless told not to).
        search(lib, "cash flow", doc_ids=[doc_id], k=2, use_vectors=False)
        assert scored == ["cash flow"] * 2
        no_gate = replace(DEFAULT_PARAMS, rerank_filings_without_statements=False)
        search(lib, "cash flow", doc_ids=[doc_id], k=2, use_vectors=False, params=no_gate)
        assert len(scored) == 2
        lib.db.execute(
            "UPDATE passages SET heading = 'Item 8. > CONSOLIDATED STATEMENTS OF CASH FLOWS (In millions)' "
            "WHERE passage_id = (SELECT MIN(passage_id) FROM passages WHERE text LIKE '%Net cash%')"
        )
        results = search(lib, "cash flow", doc_ids=[doc_id], k=2, use_vectors=False)
        assert len(scored) == 2 and all(r.ranker_score is None for r in results)
        search(
            lib,
            "cash flow",
            doc_ids=[doc_id],
            k=2,
            use_vectors=False,
            params=replace(DEFAULT_PARAMS, rerank_filings=True),
        )
        assert len(scored) == 3
        # A library of both, searched whole: a question whose best passages are all in the
        # contract is reordered; one that reaches the filing is not.
        contract = add_document(lib, ["The Licensee shall pay royalties quarterly."], words_per_passage=40)
        _set_kind(lib, contract, "contract")
        search(lib, "royalties quarterly", k=2, use_vectors=False, params=replace(DEFAULT_PARAMS, max_term_share=1.0))
        assert scored[-1] == "royalties quarterly" and len(scored) == 4
        search(lib, "capital expenditures", k=2, use_vectors=False, params=replace(DEFAULT_PARAMS, max_term_share=1.0))
        assert len(scored) == 4


def test_a_filings_statements_weigh_more(tmp_path: Path) -> None:
    pages = ["Inventories rose as we stocked new stores.", "Inventories 5,622 5,261 Total current assets 16,525"]
    with Library.open(tmp_path / "lib.sqlite") as lib:
        doc_id = add_document(lib, pages, words_per_passage=40)
        _set_kind(lib, doc_id, "filing")
        prose_id, table_id = (int(r[0]) for r in lib.db.execute("SELECT passage_id FROM passages ORDER BY seq"))
        lib.db.execute("UPDATE passages SET heading = 'Item 7. MD&A' WHERE passage_id = ?", [prose_id])
        lib.db.execute(
            "UPDATE passages SET heading = 'Item 8. > CONSOLIDATED BALANCE SHEETS' WHERE passage_id = ?", [table_id]
        )
        plain = replace(DEFAULT_PARAMS, expand_query=False, statement_weight=1.0)
        first = search(lib, "inventories stores", doc_ids=[doc_id], k=2, use_vectors=False, params=plain)
        weighed = replace(plain, statement_weight=3.0)
        second = search(lib, "inventories stores", doc_ids=[doc_id], k=2, use_vectors=False, params=weighed)
    assert first[0].passage_id == prose_id
    assert second[0].passage_id == table_id


def test_in_one_filing_its_own_common_words_are_left_out(tmp_path: Path) -> None:
    # "acme" is rare in the library but in every passage of the filing searched.
    acme = [f"Acme sells product line {i} through retail partners." for i in range(5)]
    acme.append("Acme total current liabilities were 7,866 in 2019")
    plain = replace(DEFAULT_PARAMS, expand_query=False)
    with Library.open(tmp_path / "lib.sqlite") as lib:
        doc_id = add_document(lib, acme, words_per_passage=40)
        add_document(lib, [f"unrelated text number {i} of another company" for i in range(40)], words_per_passage=6)
        _set_kind(lib, doc_id, "filing")
        query = "acme liabilities"
        library_wide = bm25_ranking(lib, query, [doc_id], 20, replace(plain, filing_term_share_in_document=False))
        in_document = bm25_ranking(lib, query, [doc_id], 20, plain)
        assert len(library_wide) == 6  # every passage holds "acme"
        assert [_bm25_words(lib, pid) for pid in in_document] == ["acme total current liabilities were 7,866 in 2019"]


def test_the_lexicon_apart_cannot_outweigh_the_querys_own_words(tmp_path: Path) -> None:
    """Issue 58: a variant question ("fraud or willful misconduct carveout to liability cap") names
    its category, whose lexicon terms ("notwithstanding", "shall not apply", "excluding", ...) can
    outweigh the variant's own words in one BM25 query; as a ranking of their own
    (``lexicon_ranking_weight``) they cannot."""
    pages = [f"The Supplier delivers item {i} to the warehouse within thirty days of each order." for i in range(8)]
    pages.append(
        "Notwithstanding the foregoing, the exception for permitted uses shall not apply, provided, however, "
        "that excluding such uses nothing in this agreement shall not restrict or prevent either party's liability."
    )
    pages.append("A party's liability for fraud or wilful misconduct is not capped.")
    query = "fraud or willful misconduct carveout to liability cap"
    with Library.open(tmp_path / "lib.sqlite") as lib:
        doc_id = add_document(lib, pages, words_per_passage=40)
        ranked = {
            weight: search(
                lib,
                query,
                doc_ids=[doc_id],
                k=2,
                use_vectors=False,
                params=replace(DEFAULT_PARAMS, lexicon_ranking_weight=weight, rerank_top=0),
            )
            for weight in (0.0, 0.25)
        }
    assert ranked[0.0][0].text.startswith("Notwithstanding")  # the lexicon's terms in the one query
    assert ranked[0.25][0].text.startswith("A party's liability for fraud")


def test_the_lexicon_chosen_by_the_query(tmp_path: Path) -> None:
    """Issue 58: with ``lexicon_by_query`` a variant in the contract's own terms ("fraud",
    "misconduct": rare in the library and in English) gets the lexicon as a ranking of its own, so
    its words lead; a category asked in lay words ("walk away from this deal": common English) keeps
    the lexicon's terms in its one query, which a ranking of their own would let the lay words
    outweigh."""
    pages = [f"The Supplier delivers item {i} to the warehouse within thirty days of each order." for i in range(30)]
    pages.append(
        "Notwithstanding the foregoing, the exception for permitted uses shall not apply, provided, however, "
        "that excluding such uses nothing in this agreement shall not restrict or prevent either party's liability."
    )
    pages.append("A party's liability for fraud or wilful misconduct is not capped.")
    pages.append("Either party may terminate this agreement for convenience without cause upon prior written notice.")
    pages.append("The sales team walks each customer through the deal away from the site; a deal takes time.")
    variant = "fraud or willful misconduct carveout to liability cap"
    lay = "Can we walk away from this deal at any time?"
    settings = {
        "one query": replace(DEFAULT_PARAMS, lexicon_by_query=False, lexicon_ranking_weight=0.0),
        "apart": replace(DEFAULT_PARAMS, lexicon_by_query=False, lexicon_ranking_weight=0.25),
        "by query": replace(DEFAULT_PARAMS, lexicon_by_query=True, lexicon_ranking_weight=0.25),
    }
    with Library.open(tmp_path / "lib.sqlite") as lib:
        doc_id = add_document(lib, pages, words_per_passage=40)
        first = {
            (name, query): search(
                lib, query, doc_ids=[doc_id], k=1, use_vectors=False, params=replace(params, rerank_top=0)
            )[0].text.split()[:2]
            for name, params in settings.items()
            for query in (variant, lay)
        }
    assert first["one query", variant] == ["Notwithstanding", "the"]  # the lexicon's terms outweigh
    assert first["apart", lay] == ["The", "sales"]  # the lay words outweigh
    assert first["by query", variant] == ["A", "party's"]
    assert first["by query", lay] == ["Either", "party"]
