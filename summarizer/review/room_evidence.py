"""The evidence of a data room's open items, found in a thread of its own (issue 57).

Each item the model answers is stored with its evidence (the passages the table, the exports and
the "missed candidate" page hints show), found by searches and the clause ranker: on a loaded CPU
that takes most of a minute per contract, while the model's readings need none of it (a reading is
the item's question over a unit of the contract's text). So the data room's review
(``summarizer.review.room_review``) asks this thread for a contract's evidence as soon as the
contract is prepared, one contract ahead of its readings, and the engine's slots read meanwhile; an
item whose readings end before its evidence is found waits for it (``found``) before it is stored.

The thread reads the library through its own connection to the same file (SQLite in WAL mode: it
reads while the job's connection writes; one ``sqlite3`` connection is never shared between
threads here). Contracts are served in the order asked, item by item; an item asked again before it is
taken (a pass started again after the server stopped answering) is not searched twice. The job's cancel stops
the thread after the item it is on; an error in the thread is raised in the job's thread by the
next ``found``, ``complete`` or ``wait``.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Sequence
from pathlib import Path

from inference.cancel import Cancelled, CancelToken
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist
from summarizer.review.evidence import Evidence, ItemResult, scored_evidence
from summarizer.review.item_answers import DocumentRun

Found = tuple[list[Evidence], float | None]  # an item's evidence, best first, and the clause ranker's best score


def open_placeholders(checklist: Checklist, run: DocumentRun) -> list[int]:
    """A result, "not_found" until a unit answers it, without its evidence yet, for each item of
    the run not stored; returns their indexes (``with_evidence`` completes each one)."""
    open_items = run.open_items(len(checklist.items))
    for index in open_items:
        item = checklist.items[index]
        run.results[index] = ItemResult(item.id, item.category, item.question, item.type, "not_found")
    return open_items


def with_evidence(result: ItemResult, found: Found) -> None:
    """``result`` with its evidence and the clause ranker's best score (so a "not found" whose best
    passage reads like the clause can say which page to check)."""
    result.evidence, result.clause_score = found


class RoomEvidence:
    """The evidence thread of one data room's review (see the module's note). ``ask`` in the job's
    thread; ``close`` stops the thread and waits for it (at most the item it is on)."""

    def __init__(self, path: Path, checklist: Checklist, cancel: CancelToken) -> None:
        self.path, self.checklist, self.cancel = path, checklist, cancel
        self._asked: queue.Queue[tuple[str, tuple[int, ...]] | None] = queue.Queue()
        self._found: dict[tuple[str, int], Found] = {}
        self._cond = threading.Condition()
        self._error: BaseException | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.searched = 0  # items searched (each once)
        self.parked: dict[int, list[tuple[str, int]]] = {}  # final items waiting for their evidence, by contract
        self._taken: set[tuple[str, int]] = set()  # found, stored and forgotten: still complete

    def park(self, seq: int, doc_id: str, index: int) -> None:
        """The item (of the job's ``seq``-th contract) is final but waits for its evidence."""
        self.parked.setdefault(seq, []).append((doc_id, index))

    def ready(self) -> list[tuple[int, int]]:
        """The parked items whose evidence is found (no longer parked), in contract order."""
        out = []
        for seq in sorted(self.parked):
            items = self.parked[seq]
            out += [(seq, index) for doc_id, index in items if self.found(doc_id, index) is not None]
            self.parked[seq] = [(d, i) for d, i in items if (seq, i) not in out]
            if not self.parked[seq]:
                del self.parked[seq]
        return out

    # the job's thread

    def ask(self, doc_id: str, indexes: Sequence[int]) -> None:
        """Find the evidence of these items of ``doc_id`` (after what was asked before)."""
        if not indexes:
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="pagewise-room-evidence", daemon=True)
            self._thread.start()
        self._asked.put((doc_id, tuple(indexes)))

    def found(self, doc_id: str, index: int) -> Found | None:
        """The item's evidence, or None while it is not found yet."""
        with self._cond:
            self._raise_error()
            return self._found.get((doc_id, index))

    def take(self, doc_id: str, index: int) -> Found | None:
        """``found``, and forgotten here (the item is stored with it: a data room of hundreds of
        contracts does not keep every passage found in memory)."""
        with self._cond:
            self._raise_error()
            found = self._found.pop((doc_id, index), None)
            if found is not None:
                self._taken.add((doc_id, index))
            return found

    def complete(self, doc_id: str, indexes: Sequence[int]) -> bool:
        with self._cond:
            self._raise_error()
            return all((doc_id, index) in self._found or (doc_id, index) in self._taken for index in indexes)

    def wait(self, timeout_s: float = 0.1) -> None:
        """Wait up to ``timeout_s`` for the next item's evidence; raises the thread's error, or
        ``Cancelled``."""
        with self._cond:
            self._raise_error()
            self.cancel.raise_if_cancelled()
            self._cond.wait(timeout_s)
            self._raise_error()
        self.cancel.raise_if_cancelled()

    def close(self) -> None:
        self._stop.set()
        self._asked.put(None)
        if self._thread is not None:
            self._thread.join()

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error

    # the thread

    def _serve(self) -> None:
        try:
            with Library.open(self.path) as library:
                while not self._stopped():
                    try:
                        asked = self._asked.get(timeout=0.1)
                    except queue.Empty:
                        continue
                    if asked is None:
                        return
                    doc_id, indexes = asked
                    for index in indexes:
                        if self._stopped():
                            return
                        with self._cond:
                            if (doc_id, index) in self._found:
                                continue
                        evidence, _, score = scored_evidence(library, doc_id, self.checklist.items[index])
                        with self._cond:
                            self._found[doc_id, index] = (evidence, score)
                            self.searched += 1
                            self._cond.notify_all()
        except Cancelled:
            return
        except BaseException as error:  # raised in the job's thread
            with self._cond:
                self._error = error
                self._cond.notify_all()

    def _stopped(self) -> bool:
        return self._stop.is_set() or self.cancel.cancelled
