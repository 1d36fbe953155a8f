"""ACORD's 3,931 clauses as a Pagewise library, added through the library's own ingest.

Each clause is one document of one page (``ClausePage``), added by ``Ingestor.ingest_pages`` as a
contract (``IngestOptions.kind``: ACORD's clauses are cut out of contracts, and one clause alone is
too short for ``document_kind`` to tell), with the passage limits raised above the longest clause
(``PASSAGE_TOKENS``, ``PASSAGE_CHARS``) so that each clause is one passage, as ACORD grades it; a
clause that the cutter still cuts in several passages is ranked at its best passage's place, and the
build says how many there were. A clause cut out of its contract has no heading; the cutter calls
text before a contract's first numbered clause its ``Preamble``, which a clause is not, so the
headings it gave are cleared (an UPDATE, the FTS5 index kept in step by its triggers) before the
passages are embedded, in one pass at the end (``embed_missing``, as ``pagewise reindex`` does),
with the library's default model, the clause embedder. The vector index is written once, at the end.

The library lives in ``build/acord/home`` (its ``PAGEWISE_HOME``) and is reused: a clause already in
it is not added again.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab.eval.acord import ROOT

if TYPE_CHECKING:
    from summarizer.library.storage.store import Library

HOME = ROOT / "build" / "acord" / "home"
PASSAGE_TOKENS = 8192  # above the longest clause's ~3,500 word pieces
PASSAGE_CHARS = 20_000  # above the longest clause's 15,308 characters
FOLDER = "acord"  # the clause documents' path is acord/<clause id>


class ClausePage:
    """One clause as an ingest page source (``summarizer.library.ingest.PageSource``) of one page."""

    def __init__(self, clause_id: str, text: str) -> None:
        from summarizer.library.reading.pdf_extract import PageText

        self.path = Path(FOLDER) / clause_id
        self.content_sha256 = hashlib.sha256(f"{clause_id}\0{text}".encode()).hexdigest()
        self.title = clause_id
        self.page_count = 1
        self._page = PageText(number=1, text=text)

    def pages(self, start: int = 1) -> Iterator[Any]:
        if start <= 1:
            yield self._page


def use_home(home: Path) -> None:
    """Point the library (and everything under ``<data>``) at ``home``: before any Library.open."""
    os.environ["PAGEWISE_HOME"] = str(home)


def clause_options() -> Any:
    """How each clause is added: a contract, one passage, no OCR, embedded later in one pass."""
    from summarizer.library.ingest import IngestOptions
    from summarizer.library.reading.document_kind import CONTRACT

    return IngestOptions(
        ocr="never", embed=False, kind=CONTRACT, max_tokens=PASSAGE_TOKENS, max_chars=PASSAGE_CHARS, save_index=False
    )


def add_clauses(library: Library, corpus: Mapping[str, str]) -> tuple[int, int]:
    """Ingest the clauses of ``corpus`` the library lacks, then clear the headings the cutter gave
    them; (clauses added, headings cleared)."""
    from summarizer.library.ingest import Ingestor
    from summarizer.library.storage.store import transaction

    present = {Path(r.path).name for r in library.documents() if r.state == "ready"}
    missing = [(cid, text) for cid, text in corpus.items() if cid not in present]
    ingestor = Ingestor(library, clause_options())
    for done, (clause_id, text) in enumerate(missing, start=1):
        source = ClausePage(clause_id, text)
        ingestor.ingest_pages(source, source.path)
        if done % 500 == 0:
            print(f"  {done}/{len(missing)} clauses added", file=sys.stderr)
    with transaction(library.db):
        cleared = library.db.execute("UPDATE passages SET heading = '' WHERE heading != ''").rowcount
    return len(missing), int(cleared)


def build_library(corpus: Mapping[str, str], threads: int = 2) -> dict[str, Any]:
    """Add the clauses of ``corpus`` missing from the library at ``$PAGEWISE_HOME``, embed and index
    them; what was done and how long it took."""
    from summarizer.library.storage.store import Library
    from summarizer.library.vectors.embed_passages import embed_missing
    from summarizer.library.vectors.vector_index import refresh_index

    _limit_threads(threads)
    started = time.perf_counter()
    with Library.open() as library:
        added, cleared = add_clauses(library, corpus)
        added_s = time.perf_counter() - started
        embedded = embed_missing(library, None)
        refresh_index(library)
        passages = int(library.db.execute("SELECT COUNT(*) FROM passages").fetchone()[0])
    return {
        "clauses_added": added,
        "headings_cleared": cleared,
        "passages_embedded": embedded,
        "passages": passages,
        "add_s": round(added_s, 1),
        "total_s": round(time.perf_counter() - started, 1),
    }


def clause_of_passage() -> dict[int, str]:
    """Passage id -> the clause id it was cut from."""
    from summarizer.library.storage.store import Library

    with Library.open() as library:
        rows = library.db.execute(
            "SELECT p.passage_id, d.path FROM passages p JOIN documents d ON d.doc_id = p.doc_id"
        ).fetchall()
    return {int(pid): Path(str(path)).name for pid, path in rows}


def _limit_threads(threads: int) -> None:
    """Torch (the passage embedder) on ``threads`` cores: the machine is shared."""
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(threads)
