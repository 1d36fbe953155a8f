"""The titles a list of documents shows: a document's title, with its file name where another
document of the list has the same title (the walk of 2026-12-06, findings 7 and 8: a zip's NDA and
a tracked-changes NDA both read "Example Cover Page for Bonterms Mutual NDA"; a contract's .docx
and its PDF shared a title), and which documents are likely other versions of one."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from summarizer.library.storage.store import DocumentRecord


def plain_title(record: DocumentRecord) -> str:
    return record.title or Path(record.path).name


def shown_titles(records: Sequence[DocumentRecord]) -> dict[str, str]:
    """Each document's shown title by its id: its title, followed by " — file.pdf" where titles
    collide (case and spacing ignored)."""
    key = {r.doc_id: " ".join(plain_title(r).casefold().split()) for r in records}
    counts = Counter(key.values())
    return {
        r.doc_id: f"{plain_title(r)} — {Path(r.path).name}"
        if counts[key[r.doc_id]] > 1 and r.title and Path(r.path).name != r.title
        else plain_title(r)
        for r in records
    }


def likely_versions(record: DocumentRecord, records: Sequence[DocumentRecord]) -> list[tuple[str, str]]:
    """The other documents as (id, shown title), the likeliest other version of ``record`` first:
    the most alike in title or file name (library order among equals)."""
    shown = shown_titles(records)
    others = [r for r in records if r.doc_id != record.doc_id]

    def likeness(other: DocumentRecord) -> float:
        pairs = ((plain_title(record), plain_title(other)), (Path(record.path).stem, Path(other.path).stem))
        return max(difflib.SequenceMatcher(None, a.casefold(), b.casefold()).ratio() for a, b in pairs)

    ranked = sorted(others, key=likeness, reverse=True)  # stable: library order among equals
    return [(r.doc_id, shown[r.doc_id]) for r in ranked]
