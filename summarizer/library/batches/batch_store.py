"""A batch of files being added, kept in the library (``ingest_batches``, ``ingest_batch_files``)
until it is over, so that a batch interrupted (the window closed, the process killed, the disk
full) is offered again and continues with the files still pending.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from summarizer.library.batches.folder_walk import FoundDocuments
from summarizer.library.storage.store import Library, now_iso, transaction

PENDING = "pending"
ADDED = "added"
DUPLICATE = "duplicate"
FAILED = "failed"
SKIPPED = "skipped"


NAMED_NOT_ADDED = 3  # files not added that a summary line names with why; past it, the first are named


def describe_not_added(skipped: list[tuple[str, str]]) -> str:
    """ "1 not added: old.doc (an old Word 97–2003 document (.doc)…: open it and save it as…)": each
    file named with why, up to ``NAMED_NOT_ADDED``; past it the first few, and how many more."""
    if len(skipped) <= NAMED_NOT_ADDED:
        named = "; ".join(f"{Path(path).name} ({reason})" for path, reason in skipped)
        return f"{len(skipped)} not added: {named}"
    names = ", ".join(Path(path).name for path, _ in skipped[:NAMED_NOT_ADDED])
    return f"{len(skipped)} not added, not PDF or Word documents ({names} and {len(skipped) - NAMED_NOT_ADDED} more)"


@dataclass(frozen=True, slots=True)
class BatchFile:
    batch_id: int
    seq: int
    path: str
    folder: str
    size: int
    outcome: str
    reason: str
    doc_id: str | None
    pages: int


@dataclass(slots=True)
class BatchSummary:
    """What a batch did: its counts, and every file not added with the reason."""

    batch_id: int
    roots: list[str]
    total: int  # documents to add (skipped files not counted)
    added: int = 0
    duplicates: int = 0
    pending: int = 0
    pages: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    finished: bool = False

    @property
    def done(self) -> int:
        return self.total - self.pending

    def describe(self) -> str:
        """One line for the user: "448 added, 1 skipped as a duplicate, 2 failed, 3 not documents"."""
        parts = [f"{self.added} added"]
        if self.duplicates:
            parts.append(f"{self.duplicates} skipped as duplicate{'s' if self.duplicates != 1 else ''}")
        if self.failed:
            parts.append(f"{len(self.failed)} failed")
        if self.skipped:
            parts.append(describe_not_added(self.skipped))
        if self.pending:
            parts.append(f"{self.pending} still to add")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "summary",
            "batch_id": self.batch_id,
            "roots": self.roots,
            "total": self.total,
            "added": self.added,
            "duplicates": self.duplicates,
            "pending": self.pending,
            "pages": self.pages,
            "failed": [{"path": p, "reason": r} for p, r in self.failed],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "finished": self.finished,
        }


def create_batch(library: Library, roots: list[Path], found: FoundDocuments) -> int:
    rows: list[tuple[Any, ...]] = [(str(f.path), f.folder, f.size, PENDING, "") for f in found.files]
    rows += [(path, "", 0, SKIPPED, reason) for path, reason in found.skipped]
    with transaction(library.db):
        cursor = library.db.execute(
            "INSERT INTO ingest_batches (roots, created_at) VALUES (?, ?)",
            [json.dumps([str(r) for r in roots]), now_iso()],
        )
        batch_id = int(cursor.lastrowid or 0)
        library.db.conn.executemany(
            "INSERT INTO ingest_batch_files (batch_id, seq, path, folder, size, outcome, reason) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(batch_id, seq, *row) for seq, row in enumerate(rows)],
        )
    return batch_id


def unfinished_batch(library: Library, roots: list[Path] | None = None) -> int | None:
    """The latest batch not over (of these ``roots`` when given), or None."""
    rows = library.db.execute(
        "SELECT batch_id, roots FROM ingest_batches WHERE finished_at IS NULL ORDER BY batch_id DESC"
    ).fetchall()
    wanted = None if roots is None else [str(r) for r in roots]
    for batch_id, stored in rows:
        if wanted is None or json.loads(stored) == wanted:
            return int(batch_id)
    return None


def batch_files(library: Library, batch_id: int) -> list[BatchFile]:
    rows = library.db.execute(
        "SELECT batch_id, seq, path, folder, size, outcome, reason, doc_id, pages FROM ingest_batch_files "
        "WHERE batch_id = ? ORDER BY seq",
        [batch_id],
    ).fetchall()
    return [BatchFile(*row) for row in rows]


def record_outcome(
    library: Library, file: BatchFile, outcome: str, reason: str = "", doc_id: str | None = None, pages: int = 0
) -> None:
    with transaction(library.db):
        library.db.execute(
            "UPDATE ingest_batch_files SET outcome = ?, reason = ?, doc_id = ?, pages = ? "
            "WHERE batch_id = ? AND seq = ?",
            [outcome, reason, doc_id, pages, file.batch_id, file.seq],
        )
        if doc_id is not None and outcome == ADDED:
            # The folder it was added from (a duplicate keeps the folder it was first added with).
            library.db.execute("UPDATE documents SET folder = ? WHERE doc_id = ?", [file.folder, doc_id])


def finish_batch(library: Library, batch_id: int) -> None:
    with transaction(library.db):
        library.db.execute("UPDATE ingest_batches SET finished_at = ? WHERE batch_id = ?", [now_iso(), batch_id])


def forget_batch(library: Library, batch_id: int) -> None:
    """The user chose not to continue it: it is no longer offered (the files added stay)."""
    finish_batch(library, batch_id)


def batch_summary(library: Library, batch_id: int) -> BatchSummary:
    row = library.db.execute("SELECT roots, finished_at FROM ingest_batches WHERE batch_id = ?", [batch_id]).fetchone()
    files = batch_files(library, batch_id)
    documents = [f for f in files if f.outcome != SKIPPED]
    summary = BatchSummary(batch_id, json.loads(row[0]) if row else [], len(documents), finished=bool(row and row[1]))
    for file in files:
        if file.outcome == ADDED:
            summary.added += 1
            summary.pages += file.pages
        elif file.outcome == DUPLICATE:
            summary.duplicates += 1
        elif file.outcome == PENDING:
            summary.pending += 1
        elif file.outcome == FAILED:
            summary.failed.append((file.path, file.reason))
        elif file.outcome == SKIPPED:
            summary.skipped.append((file.path, file.reason))
    return summary
