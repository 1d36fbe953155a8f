"""Hybrid retrieval: BM25 (FTS5) and cosine (FAISS), fused by reciprocal rank fusion.

BM25 reads two fields, the passage text and its heading path (weighted by
``RetrievalParams.heading_weight``). The figures behind each default are in docs/retrieval.md.

Time goes mostly into FTS5's bm25() of every passage that holds any query word, so a word held
by more than a quarter of the passages (where bm25's IDF is small) is left out of the query, and
the query is embedded and looked up in the vector index on a worker thread while SQLite ranks
(both release the GIL). A near-copy of a better-ranked passage is left out of the results.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from summarizer.errors import DocumentNotFound
from summarizer.library.cutting.clauses import is_attachment_heading
from summarizer.library.cutting.filing_headings import has_units, is_statement_heading
from summarizer.library.reading.document_kind import FILING
from summarizer.library.storage.queries import (
    bm25_passage_ids,
    document_kinds_of_passages,
    headings_of_documents_of,
    passage_headings,
    passage_headings_and_texts,
    passage_id_range,
    passage_ids_of,
    passage_search_texts,
    passages_by_id,
    passages_in_id_range,
    passages_matching_in_id_range,
    ready_document_kinds,
    write_state,
)
from summarizer.library.storage.store import Library
from summarizer.search import finance_lexicon, legal_lexicon
from summarizer.search.distinctive import distinctive_terms
from summarizer.search.fts_query import fts_query, fts_string, fts_terms
from summarizer.search.lexicon import interleave

RRF_K = 5  # Cormack et al. (2009) use 60; a small k lets BM25's first ranks lead (docs/retrieval.md)
CANDIDATES = 50  # taken from each ranking before fusion


@dataclass(frozen=True, slots=True)
class RetrievalParams:
    """The knobs of ``search`` (docs/retrieval.md has the measurements behind each default)."""

    candidates: int = CANDIDATES
    rrf_k: int = RRF_K
    heading_weight: float = 2.0  # BM25 weight of the heading field; the text field weighs 1
    bm25_weight: float = 1.0  # RRF weight of each ranking: the lexicon-expanded BM25 leads,
    vector_weight: float = 0.75  # the clause embedder's cosine (docs/retrieval.md)
    # Passages under an exhibit, schedule or annex count this much of their fused score: the
    # operative clauses are in the body; attachments hold forms, lists and copies of clauses.
    attachment_weight: float = 0.5
    attachments_in_filings: bool = False  # ... in filings too (measured on contracts taken for filings)
    # In a filing, passages of a financial statement (their heading path holds its title) count
    # this much of their fused score: the figures most questions ask for are printed there.
    statement_weight: float = 1.25
    # Add the vocabulary of the documents' kind to the BM25 query: summarizer.search.legal_lexicon's
    # contract words, or for filings summarizer.search.finance_lexicon's (its periods and
    # statement words; the words that say how to answer are left out of the query).
    expand_query: bool = True
    # ... and the contract words too: a contract taken for a filing keeps its vocabulary (docs/retrieval.md)
    legal_terms_for_filings: bool = True
    finance_terms: bool = True  # the finance words (and leaving out the how-to-answer words) for filings
    # At most this many of them: every term, a phrase most, costs a pass over its postings.
    max_expansion_terms: int = 16
    # Above 0 (contracts only): the lexicon's terms are a BM25 ranking of their own, fused with this
    # weight, beside BM25 over the query's own words (``bm25_weight``), so a category's added terms
    # cannot outweigh a variant's own words ("New York" governing law; ACORD, docs/retrieval.md).
    lexicon_ranking_weight: float = 0.0
    # ... or chosen by the query (contracts only): a query with distinctive terms of its own
    # (summarizer.search.distinctive: a variant in the contract's terms) gets the lexicon as that
    # ranking, one without (a category asked in lay words) the lexicon's terms in its one query.
    # Off: with weight 0.25 it lifts ACORD but costs the labelled set's held-apart pair 0.041
    # recall@3 (docs/retrieval.md, the lexicon chosen by the query).
    lexicon_by_query: bool = False
    expand_vector_query: bool = False  # ... and to the text embedded for the vector ranking
    # A single word held by more than this share of the library's passages is left out of the
    # BM25 query (unless nothing else is left): scoring every passage that holds it is what
    # costs, and it ranks little (FTS5's IDF is ln((1 - share) / share): 1.1 at a quarter, ~0
    # from a half; a rare word's is 5-10). 1.0 keeps every word (docs/retrieval.md).
    max_term_share: float = 0.25
    # ... counted, when one filing is searched, among its own passages instead of the library's:
    # the company's name is rare in a library and in most passages of its own filing.
    filing_term_share_in_document: bool = True
    # A passage whose words are this much the same (Jaccard of word sets) as a better-ranked one
    # is left out of the results: a copy adds nothing to the answer's passages. 1.0: keep all.
    max_overlap: float = 0.8
    # The clause ranker (summarizer.search.clause_ranker) reorders this many of the fused
    # ranking's first passages (0: not at all), and its order counts this much beside the fused
    # one (reciprocal-rank fusion of the two, k = rrf_k; the measurements: docs/retrieval.md).
    rerank_top: int = 10
    rerank_weight: float = 0.75
    # ... also when the documents searched are filings (it was trained on contracts; on the
    # FinanceBench tuning filings it lowers recall@3, docs/retrieval.md).
    rerank_filings: bool = False
    # ... but it does reorder a "filing" with no financial statement and no table titled by its
    # units ("(in millions)"): a contract taken for a filing, which it was trained on.
    rerank_filings_without_statements: bool = True


DEFAULT_PARAMS = RetrievalParams()


@dataclass(frozen=True, slots=True)
class SearchResult:
    passage_id: int
    doc_id: str
    text: str
    page_start: int
    page_end: int
    score: float
    spans: list[tuple[int, int, int]]
    heading: str = ""
    bm25_rank: int | None = None
    vector_rank: int | None = None
    ranker_score: float | None = None  # the clause ranker's logit, when it reordered this passage

    def to_json(self) -> dict[str, Any]:
        return {
            "passage_id": self.passage_id,
            "doc_id": self.doc_id,
            "heading": self.heading,
            "text": self.text,
            "page_start": self.page_start,
            "page_end": self.page_end,
            "score": round(self.score, 6),
        }


class _TermCounts:
    """How many passages hold each word, per library, forgotten on any write to it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_library: weakref.WeakKeyDictionary[Library, tuple[tuple[int, int], dict[str, int]]] = (
            weakref.WeakKeyDictionary()
        )

    def shares(self, library: Library, words: Sequence[str], within: tuple[int, int] | None = None) -> dict[str, float]:
        """The share of passages holding each of ``words``: of the library's, or of those whose
        ids are in the range ``within`` (one document's passages are one run of ids)."""
        state = write_state(library)
        with self._lock:
            known_state, counts = self._by_library.get(library, (state, {}))
            if known_state != state:
                counts = {}
            self._by_library[library] = (state, counts)
        scope = "" if within is None else f"\0{within[0]}-{within[1]}"
        low, high = within or (-(2**62), 2**62)
        missing = [w for w in words if w + scope not in counts]
        if missing:
            counts["\0total" + scope] = passages_in_id_range(library, low, high)
            for word in missing:
                counts[word + scope] = passages_matching_in_id_range(library, fts_string(word), low, high)
        total = counts.get("\0total" + scope, 0)
        return {w: counts[w + scope] / total if total else 0.0 for w in words}


_term_counts = _TermCounts()


def _common_words(
    library: Library, words: Sequence[str], max_share: float, within: tuple[int, int] | None = None
) -> set[str]:
    if max_share >= 1.0 or not words:
        return set()
    return {w for w, share in _term_counts.shares(library, words, within).items() if share > max_share}


def document_kinds(library: Library, doc_ids: Sequence[str] | None) -> frozenset[str]:
    """The kinds of the documents searched (``other`` for one cut before kinds)."""
    return ready_document_kinds(library, doc_ids)


def expansion_terms(query: str, kinds: frozenset[str], params: RetrievalParams = DEFAULT_PARAMS) -> list[str]:
    """The vocabulary of the kinds searched, at most ``params.max_expansion_terms``: the finance
    words for filings (unless ``finance_terms`` is off), the contract words for the others
    (contracts, and the generic path); both, in turn, for a mix (and for filings when
    ``legal_terms_for_filings``)."""
    lists = []
    if FILING in kinds and params.finance_terms:
        lists.append(finance_lexicon.expansion_terms(query))
    if not kinds or kinds - {FILING} or params.legal_terms_for_filings:
        lists.append(legal_lexicon.expansion_terms(query))
    return interleave(lists, params.max_expansion_terms)


def bm25_ranking(
    library: Library,
    query: str,
    doc_ids: Sequence[str] | None,
    limit: int,
    params: RetrievalParams = DEFAULT_PARAMS,
    kinds: frozenset[str] | None = None,
) -> list[int]:
    kinds = document_kinds(library, doc_ids) if kinds is None else kinds
    extra = expansion_terms(query, kinds, params) if params.expand_query else []
    words = [*fts_terms(query), *(t.lower() for t in extra if t.isalnum())]
    # A document's passages are written in one transaction, so their ids are one run: the rowid
    # range lets FTS5 skip the other documents' postings instead of ranking them all.
    id_range = passage_id_range(library, doc_ids) if doc_ids else None
    if doc_ids and id_range is None:
        return []
    one_filing = kinds == {FILING} and doc_ids is not None and len(doc_ids) == 1
    within = id_range if params.filing_term_share_in_document and one_filing else None
    drop = _common_words(library, words, params.max_term_share, within)
    if params.expand_query and params.finance_terms and kinds == {FILING}:
        drop |= finance_lexicon.INSTRUCTION_WORDS
    match = fts_query(query, extra, drop)
    if match is None:
        return []
    return bm25_passage_ids(
        library, match, heading_weight=params.heading_weight, limit=limit, doc_ids=doc_ids, id_range=id_range
    )


def _vector_lookup(
    library: Library, query: str, doc_ids: Sequence[str] | None, limit: int
) -> Callable[[], list[int]] | None:
    """What the vector ranking needs from the database, read here; the returned function embeds
    the query and searches the index, touching no database (so it may run on another thread)."""
    if library.embedding_model is None:  # no vectors yet: no index to load (nor FAISS to import)
        return None
    from summarizer.library.vectors.query_encoder import load_query_encoder
    from summarizer.library.vectors.vector_index import load_index

    index = load_index(library)
    if index.size == 0 or index.model is None:
        return None
    encoder = load_query_encoder(index.model)  # the library's model, whatever the settings name
    allowed: list[int] | None = None
    if doc_ids:
        allowed = passage_ids_of(library, doc_ids)

    def lookup() -> list[int]:
        return [pid for pid, _ in index.search(encoder.encode_query(query), limit, allowed)]

    return lookup


_vector_worker: ThreadPoolExecutor | None = None
_vector_worker_lock = threading.Lock()


def _start_on_worker(work: Callable[[], list[int]]) -> Future[list[int]]:
    global _vector_worker
    with _vector_worker_lock:
        if _vector_worker is None:
            _vector_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pagewise-vectors")
        return _vector_worker.submit(work)


def _kinds_of(library: Library, ranked: list[tuple[int, float]], kinds: frozenset[str]) -> frozenset[str]:
    """The kinds of the documents the passages of ``ranked`` come from (a library of contracts
    and filings searched whole: the clause ranker still reorders a question whose best passages
    are all in contracts)."""
    if len(kinds) <= 1 or not ranked:
        return kinds
    return document_kinds_of_passages(library, [pid for pid, _ in ranked])


def _holds_statements(library: Library, ranked: list[tuple[int, float]]) -> bool:
    """True when a document of ``ranked``'s passages has a financial statement or a table titled
    by its units among its passages' headings (what a filing has, and a contract does not)."""
    headings = headings_of_documents_of(library, [pid for pid, _ in ranked])
    return any(is_statement_heading(heading) or has_units(heading) for heading in headings)


def _weigh_by_heading(
    library: Library, fused: dict[int, float], kinds: frozenset[str], params: RetrievalParams
) -> None:
    """Each fused score times the weight its heading path gives it: an exhibit's (documents that
    are not filings), a financial statement's (filings)."""
    attachment = params.attachment_weight if kinds - {FILING} or params.attachments_in_filings else 1.0
    statement = params.statement_weight if FILING in kinds else 1.0
    if not fused or attachment == statement == 1.0:
        return
    for passage_id, heading in passage_headings(library, list(fused)).items():
        if attachment != 1.0 and is_attachment_heading(heading):
            fused[passage_id] *= attachment
        elif statement != 1.0 and is_statement_heading(heading):
            fused[passage_id] *= statement


def _without_copies(
    library: Library, ranked: list[tuple[int, float]], k: int, max_overlap: float
) -> list[tuple[int, float]]:
    """The first ``k`` of ``ranked``, skipping near-copies of passages already taken."""
    kept: list[tuple[int, float]] = []
    kept_words: list[set[str]] = []
    start = 0
    while len(kept) < k and start < len(ranked):
        batch = ranked[start : start + 2 * k]
        start += len(batch)
        texts = passage_search_texts(library, [pid for pid, _ in batch])
        for passage_id, score in batch:
            words = set(_WORDS.findall(str(texts.get(passage_id, "")).lower()))
            if any(len(words & w) > max_overlap * len(words | w) for w in kept_words):
                continue
            kept.append((passage_id, score))
            kept_words.append(words)
            if len(kept) == k:
                break
    return kept


_WORDS = re.compile(r"\w+")


def rerank(
    library: Library, query: str, ranked: list[tuple[int, float]], top: int, weight: float, rrf_k: int = RRF_K
) -> tuple[list[tuple[int, float]], dict[int, float]]:
    """``ranked`` (passage id, score; best first) with its first ``top`` reordered by their order
    and the clause ranker's together (reciprocal-rank fusion, the ranker's order weighing
    ``weight``), and the ranker's scores; ``ranked`` as it was when the ranker cannot load."""
    from summarizer.search.clause_ranker import ranker_or_warning

    ranker = ranker_or_warning() if top > 0 and ranked else None
    if ranker is None:
        return ranked, {}
    head, rest = ranked[:top], ranked[top:]
    ids = [pid for pid, _ in head]
    rows = passage_headings_and_texts(library, ids)
    known = [pid for pid in ids if pid in rows]
    scores = dict(zip(known, ranker.score(query, [rows[pid] for pid in known]), strict=True))
    by_ranker = {pid: r for r, pid in enumerate(sorted(known, key=lambda pid: -scores[pid]), start=1)}
    combined = {
        pid: 1.0 / (rrf_k + fused_rank) + weight / (rrf_k + by_ranker.get(pid, len(ids)))
        for fused_rank, (pid, _) in enumerate(head, start=1)
    }
    fused = dict(head)
    order = sorted(ids, key=lambda pid: (-combined[pid], pid))
    return [(pid, fused[pid]) for pid in order] + rest, scores


def _lexicon_apart(library: Library, query: str, params: RetrievalParams) -> bool:
    """True when the lexicon's terms are a ranking of their own for ``query`` (``params``'
    ``lexicon_ranking_weight`` and ``lexicon_by_query``), not added to its one BM25 query."""
    if not params.lexicon_by_query:
        return params.lexicon_ranking_weight > 0
    return bool(distinctive_terms(query, lambda words: _term_counts.shares(library, words)))


def search(
    library: Library,
    query: str,
    *,
    doc_ids: Sequence[str] | None = None,
    k: int = 3,
    use_vectors: bool = True,
    params: RetrievalParams = DEFAULT_PARAMS,
) -> list[SearchResult]:
    """The top ``k`` passages for ``query``, optionally only in ``doc_ids``."""
    for doc_id in doc_ids or ():
        library.document(doc_id)  # raises DocumentNotFound with a helpful message
    kinds = document_kinds(library, doc_ids)
    vector_query = query
    if params.expand_vector_query:
        vector_query = " ".join([query, *expansion_terms(query, kinds, params)])
    lookup = _vector_lookup(library, vector_query, doc_ids, params.candidates) if use_vectors else None
    pending = _start_on_worker(lookup) if lookup is not None else None
    apart = params.expand_query and FILING not in kinds and _lexicon_apart(library, query, params)
    own = replace(params, expand_query=False) if apart else params
    bm25 = bm25_ranking(library, query, doc_ids, params.candidates, own, kinds)
    rankings = [(bm25, params.bm25_weight)]
    if apart and params.lexicon_ranking_weight > 0:
        lexicon = bm25_ranking(library, query, doc_ids, params.candidates, params, kinds)
        rankings.append((lexicon, params.lexicon_ranking_weight))
    vectors = pending.result() if pending is not None else []
    rankings.append((vectors, params.vector_weight))
    fused: dict[int, float] = {}
    for ranking, weight in rankings:
        for rank, passage_id in enumerate(ranking, start=1):
            fused[passage_id] = fused.get(passage_id, 0.0) + weight / (params.rrf_k + rank)
    _weigh_by_heading(library, fused, kinds, params)
    ranked = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
    head = max(k, params.rerank_top)
    top = _without_copies(library, ranked, head, params.max_overlap) if params.max_overlap < 1.0 else ranked[:head]
    if not top:
        return []
    ranker_scores: dict[int, float] = {}
    if params.rerank_top > 0 and (
        params.rerank_filings
        or FILING not in _kinds_of(library, top, kinds)
        or (params.rerank_filings_without_statements and not _holds_statements(library, top))
    ):
        top, ranker_scores = rerank(library, query, top, params.rerank_top, params.rerank_weight, params.rrf_k)
    top = top[:k]
    bm25_rank = {pid: r for r, pid in enumerate(bm25, start=1)}
    vector_rank = {pid: r for r, pid in enumerate(vectors, start=1)}
    stored = passages_by_id(library, [pid for pid, _ in top])
    results = []
    for passage_id, score in top:
        passage = stored.get(passage_id)
        if passage is None:  # a stale vector of a removed passage
            continue
        results.append(
            SearchResult(
                passage_id=passage_id,
                doc_id=passage.doc_id,
                text=passage.text,
                page_start=passage.page_start,
                page_end=passage.page_end,
                score=score,
                spans=passage.spans,
                heading=passage.heading,
                bm25_rank=bm25_rank.get(passage_id),
                vector_rank=vector_rank.get(passage_id),
                ranker_score=ranker_scores.get(passage_id),
            )
        )
    return results


__all__ = ["DEFAULT_PARAMS", "DocumentNotFound", "RetrievalParams", "SearchResult", "rerank", "search"]
