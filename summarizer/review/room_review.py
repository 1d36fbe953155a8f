"""The model's review of a data room (issue 57): many contracts over one engine, the engine kept
busy across contracts.

``review_with_model`` reads one contract at a time, each unit's items as one batch: a server's
slots idle at every contract's tail, while the last items finish. Here each reading (one item
over one unit of one contract) goes into one queue (``inference.engines.prompt_feed``) fed in
contract order, and the engine's slots take the next reading as soon as one is free
(``Engine.generate_fed``): the next contract's first readings start while the last one's
stragglers finish. An item not found in a unit goes back in the queue for its contract's next
unit, ahead of later contracts. Contracts are prepared (their stored answers read back, their
pages cut into units) only as the queue runs low, two ahead: each open item's evidence (searches
and the clause ranker, on the CPU) is found meanwhile in a thread of its own
(``summarizer.review.room_evidence``), so the slots do not wait for it; an item whose readings end
first is stored when its evidence comes, and the readings run at most one contract ahead of it.
Measured (``lab.bench.room_evidence``, 3 CUAD contracts of 4-8 pages x 41 items, 205 readings on a
stand-in GPU of 4 slots, the real ranker on a loaded 2-core CPU, niced, one run each): 0.2 s a
reading, 100.8 s before (evidence in ``refill``) and 71.7 s after; 1.0 s a reading, 110.4 s and
81.8 s. The time is then the evidence's own (~70 s): the slots' busy share, counted from the
first reading, which no longer waits for any evidence, is 0.16 and 0.63 (before: 0.45 and 0.99,
counted after the first two contracts' evidence).

Each item is stored as soon as it is final, so a stop, a crash or a closed window loses at most
the readings in flight; run again, the contracts already reviewed by the same model and checklist
are not read again (``skipped``) and a contract half done asks only its open items. A server that
stops answering (``ServerUnreachable``) pauses the job: with a ``RoomControl`` that waits
(``wait_for_server``, the window) until ``resume``, else (the command line) ``RoomPaused`` says to
run the command again. A refused API key stops the job at its first reading (``ApiKeyError``).
The result says how busy the engine's slots were (``busy_share``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from inference.cancel import Cancelled
from inference.engines.engine import Completion, Engine, JsonSchema
from inference.engines.prompt_feed import PromptFeed
from inference.errors import PagewiseError, ServerUnreachable
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.library.storage.store import Library
from summarizer.llm.model_identity import engine_identity
from summarizer.review.checklist import Checklist
from summarizer.review.evidence import DocumentReview, ItemCallback, check_reviewable, no_items
from summarizer.review.evidence_batch import ReviewCallback, no_reviews
from summarizer.review.item_answers import (
    PROMPT_MARGIN,
    REPLY_SCHEMA,
    REPLY_TOKENS,
    DocumentRun,
    prepare_run,
    prompt_version,
    read_reply,
    reading_messages,
    shown_review_of,
)
from summarizer.review.room_control import RoomControl
from summarizer.review.room_evidence import RoomEvidence, open_placeholders, with_evidence
from summarizer.review.store import review_key, stored_results


class RoomPaused(PagewiseError):
    """The model server stopped answering mid-job; what is stored is kept (``url``: which server).
    The command exits with 75 (EX_TEMPFAIL: try again later)."""

    exit_code = 75

    def __init__(self, message: str, *, url: str, detail: str = "") -> None:
        super().__init__(message, detail=detail)
        self.url = url


@dataclass(frozen=True, slots=True)
class RoomStatus:
    """Where a data room's review stands: what the window's bar and ``--json`` lines show."""

    contracts_done: int  # reviewed in this run, or skipped
    contracts: int
    skipped: int  # reviewed before by the same model and checklist: not read again
    items_done: int  # items the model finished in this run
    items_per_min: float | None
    eta_s: float | None
    busy_share: float | None
    paused: str = ""  # why the job waits ("" while it runs)

    def to_json(self) -> dict[str, Any]:
        return {
            "contracts_done": self.contracts_done,
            "contracts": self.contracts,
            "skipped": self.skipped,
            "items_done": self.items_done,
            "items_per_min": None if self.items_per_min is None else round(self.items_per_min, 1),
            "eta_s": None if self.eta_s is None else round(self.eta_s, 1),
            "busy_share": None if self.busy_share is None else round(self.busy_share, 3),
            "paused": self.paused,
        }


StatusCallback = Callable[[RoomStatus], None]


def no_status(_: RoomStatus) -> None:
    """The default ``on_status``: nothing to do."""


@dataclass(frozen=True, slots=True)
class RoomResult:
    """What a data room's review did. ``busy_share``: the engine's slots' time-weighted busy
    share between the first reading and the last (None when nothing was read)."""

    contracts: int
    reviewed: int
    skipped: int
    items_answered: int
    readings: int
    elapsed_s: float
    busy_share: float | None
    slots: int
    model: str
    pauses: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "contracts": self.contracts,
            "reviewed": self.reviewed,
            "skipped": self.skipped,
            "items_answered": self.items_answered,
            "readings": self.readings,
            "elapsed_s": round(self.elapsed_s, 3),
            "busy_share": None if self.busy_share is None else round(self.busy_share, 3),
            "slots": self.slots,
            "model": self.model,
            "pauses": self.pauses,
        }


@dataclass(slots=True)
class _Active:
    run: DocumentRun
    left: int  # items not stored yet
    open: tuple[int, ...]  # the items read in this run


PREPARE_AHEAD = 2  # contracts prepared (their evidence asked) ahead of the one whose readings start


Reading = tuple[int, int, int]  # (the contract's place in the job, the item's index, the unit's index)


class _RoomJob:
    """One data room's review: the producer of the readings and the taker of their replies."""

    def __init__(
        self,
        library: Library,
        engine: Engine,
        doc_ids: Sequence[str],
        checklist: Checklist,
        model: str,
        *,
        fresh: bool,
        side: str,
        progress: ProgressCallback,
        on_status: StatusCallback,
        on_item: ItemCallback,
        on_review: ReviewCallback,
        control: RoomControl,
        reply_schema: JsonSchema | None,
    ) -> None:
        self.library, self.engine, self.doc_ids, self.checklist, self.model = library, engine, doc_ids, checklist, model
        self.fresh, self.side = fresh, side
        self.progress, self.on_status, self.on_item, self.on_review = progress, on_status, on_item, on_review
        self.control, self.reply_schema = control, reply_schema
        self.n_items = len(checklist.items)
        self.done_ids: set[str] = set()
        self.skipped = self.reviewed = self.items_done = self.readings = self.pauses = 0
        self.active: dict[int, _Active] = {}
        self.prepared: dict[int, tuple[DocumentRun, list[int]]] = {}  # ahead of the feed
        self.evidence = RoomEvidence(library.path, checklist, control.cancel)
        self.position = 0
        self.feed = PromptFeed(1)
        self.feeds: list[PromptFeed] = []
        self.started = time.perf_counter()
        self.paused_s = 0.0
        self.budget = 256

    # the producer

    def refill(self) -> bool:
        """The next contract not done: its open items' first readings join the queue as soon as its
        pages are cut (their evidence is found meanwhile, ``room_evidence``)."""
        self.store_parked()
        while self.position < len(self.doc_ids):
            seq, doc_id = self.position, self.doc_ids[self.position]
            self.position += 1
            if doc_id in self.done_ids:  # finished before the server paused the job
                continue
            self.control.cancel.raise_if_cancelled()
            run, open_items = self.prepared.pop(seq) if seq in self.prepared else self.prepare(seq)
            self.prepare_ahead()
            if not open_items:
                self.skipped += 1
                self._contract_done(run)
                return True
            self.active[seq] = _Active(run, len(open_items), tuple(open_items))
            self.wait_for_evidence(behind=seq)
            if not run.units:  # no text to read: each item is not found
                for index in open_items:
                    self._final(seq, index)
                return True
            for index in open_items:
                item = self.checklist.items[index]
                self.feed.put((seq, index, 0), reading_messages(run.units[0], item), (seq, 0, index), group=seq)
            return True
        self.feed.exhaust()
        return False

    def prepare(self, seq: int) -> tuple[DocumentRun, list[int]]:
        """The contract's stored answers read back, its pages cut into units, and its open items'
        evidence asked of the evidence thread."""
        doc_id = self.doc_ids[seq]
        run = prepare_run(self.library, self.engine, doc_id, self.checklist, self.model, self.budget, self.fresh)
        open_items = open_placeholders(self.checklist, run)
        self.evidence.ask(doc_id, open_items)
        return run, open_items

    def prepare_ahead(self) -> None:
        """The next contracts prepared now, so their evidence is found while this one is read."""
        for seq in range(self.position, min(len(self.doc_ids), self.position + PREPARE_AHEAD)):
            if seq not in self.prepared and self.doc_ids[seq] not in self.done_ids:
                self.prepared[seq] = self.prepare(seq)

    def wait_for_evidence(self, behind: int | None = None) -> None:
        """Wait, storing the parked items as their evidence comes, until at most one contract read
        before ``behind`` lacks some evidence (so few finished readings wait unstored); without
        ``behind``, until no item is parked."""
        while True:
            self.store_parked()
            if behind is None:
                if not self.evidence.parked:
                    return
            elif len(self.lacking_evidence(behind)) < 2:
                return
            self.evidence.wait()

    def lacking_evidence(self, behind: int) -> list[int]:
        """The contracts read before ``behind`` whose evidence is not all found yet."""
        return [
            s for s, a in self.active.items() if s < behind and not self.evidence.complete(a.run.key.doc_id, a.open)
        ]

    def store_parked(self) -> None:
        for seq, index in self.evidence.ready():
            self._final(seq, index)

    # the replies

    def on_result(self, tag: Reading, completion: Completion) -> None:
        self.store_parked()
        seq, index, n_unit = tag
        run = self.active[seq].run
        item = self.checklist.items[index]
        self.readings += 1
        units_left = len(run.units) - n_unit
        if read_reply(run.results[index], item, run.units[n_unit], completion, units_left):
            self._final(seq, index)
            return
        nxt = n_unit + 1  # not in this unit: the next one, ahead of later contracts
        self.feed.put((seq, index, nxt), reading_messages(run.units[nxt], item), (seq, nxt, index), group=seq)

    def _final(self, seq: int, index: int) -> None:
        """Store the item, now final, with its evidence; parked until its evidence is found."""
        active = self.active[seq]
        found = self.evidence.take(active.run.key.doc_id, index)
        if found is None:
            self.evidence.park(seq, active.run.key.doc_id, index)
            return
        with_evidence(active.run.results[index], found)
        active.run.finish(self.library, index, self.on_item)
        self.items_done += 1
        active.left -= 1
        if active.left == 0:
            del self.active[seq]
            self.reviewed += 1
            self._contract_done(active.run)
        else:
            self.report()

    def _contract_done(self, run: DocumentRun) -> None:
        self.done_ids.add(run.key.doc_id)
        items = [run.results[i] for i in range(self.n_items)]
        self.on_review(
            shown_review_of(
                self.library, self.checklist, DocumentReview.of(run.record, self.checklist, items, self.side)
            )
        )
        self.report()

    # progress

    def status(self, paused: str = "") -> RoomStatus:
        elapsed = time.perf_counter() - self.started - self.paused_s
        rate = self.items_done / elapsed if self.items_done and elapsed > 0 else None
        in_active = sum(self.n_items - a.left for a in self.active.values())
        left = (len(self.doc_ids) - len(self.done_ids)) * self.n_items - in_active
        return RoomStatus(
            len(self.done_ids),
            len(self.doc_ids),
            self.skipped,
            self.items_done,
            rate * 60 if rate else None,
            left / rate if rate else None,
            self.busy_share(),
            paused,
        )

    def report(self, paused: str = "") -> None:
        status = self.status(paused)
        total = len(self.doc_ids) * self.n_items
        cells = self.skipped * self.n_items
        done = min(total, len(self.done_ids) * self.n_items + sum(self.n_items - a.left for a in self.active.values()))
        per_min = f" · {status.items_per_min:.0f} items/min" if status.items_per_min else ""
        skipped = f" ({self.skipped} skipped: reviewed before)" if self.skipped else ""
        message = paused or f"{status.contracts_done}/{status.contracts} contracts{skipped}{per_min}"
        elapsed = time.perf_counter() - self.started - self.paused_s
        rate = (done - cells) / elapsed if done > cells and elapsed > 0 else None
        self.progress(Progress(Stage.REVIEW, done, total, message, rate))
        self.on_status(status)

    def busy_share(self) -> float | None:
        spans = [(f.busy_share, f.busy_seconds) for f in self.feeds if f.busy_share is not None]
        seconds = sum(span for _, span in spans)
        if not spans:
            return None
        if seconds <= 0:
            return spans[-1][0]
        return sum((share or 0.0) * span for share, span in spans) / seconds

    # the passes (one, unless the server stops answering)

    def run_pass(self) -> None:
        if self.pauses:
            self.engine.restart(cancel=self.control.cancel)  # the server may come back with other slots
        self.budget = max(256, self.engine.n_ctx - REPLY_TOKENS - PROMPT_MARGIN)
        self.active.clear()  # readings lost with the server: their contracts are prepared again
        self.prepared.clear()
        self.evidence.parked.clear()
        self.position = 0
        # a contract's readings ahead of the slots: preparing the next one (its evidence search) takes
        # a while, and the slots go on with these meanwhile. A contract is a group (its readings
        # share its text): with a contract of its own for each slot and one spare, each contract is
        # read in about one server slot, which keeps its prompt cached (contract affinity)
        slots = self.engine.parallel
        self.feed = PromptFeed(
            slots, self.refill, low_water=slots + self.n_items, groups_ahead=slots + 1, running=self.control.running
        )
        self.feeds.append(self.feed)
        self.control.feed = self.feed
        try:
            self.engine.generate_fed(
                self.feed,
                max_tokens=REPLY_TOKENS,
                json_schema=self.reply_schema,
                cancel=self.control.cancel,
                on_result=self.on_result,
            )
        except ServerUnreachable:
            self.wait_for_evidence()  # the readings finished are stored before the pause
            raise
        self.wait_for_evidence()

    def wait_for_server(self, error: ServerUnreachable) -> None:
        cause = error.detail or "no answer"
        if not self.control.wait_for_server:
            raise RoomPaused(
                f"Paused: the server at {error.url} stopped answering ({cause}). The answers finished so far "
                "are stored; start the server again and run the command again to continue.",
                url=error.url,
                detail=cause,
            ) from error
        self.pauses += 1
        self.control.pause()
        began = time.perf_counter()
        self.report(f"Paused: the server at {error.url} stopped answering ({cause}). Start it again and press Resume.")
        while not self.control.running.wait(0.1) and not self.control.cancel.cancelled:
            pass  # a stop (or the window closing) ends the wait too
        self.paused_s += time.perf_counter() - began
        self.control.cancel.raise_if_cancelled()

    def result(self) -> RoomResult:
        return RoomResult(
            len(self.doc_ids),
            self.reviewed,
            self.skipped,
            self.items_done,
            self.readings,
            time.perf_counter() - self.started - self.paused_s,
            self.busy_share(),
            self.engine.parallel,
            self.model,
            self.pauses,
        )


def review_room(
    library: Library,
    engine: Engine,
    doc_ids: Sequence[str],
    checklist: Checklist,
    progress: ProgressCallback = no_progress,
    control: RoomControl | None = None,
    *,
    model: str | None = None,
    fresh: bool = False,
    side: str = "",
    on_status: StatusCallback = no_status,
    on_item: ItemCallback = no_items,
    on_review: ReviewCallback = no_reviews,
    reply_schema: JsonSchema | None = REPLY_SCHEMA,
) -> RoomResult:
    """The model's typed answers for every item of ``checklist`` in every contract of
    ``doc_ids``, stored as each is final (see the module's note). ``on_review`` receives each
    contract's review (with corrections and flags for ``side``) when it is complete, the skipped
    ones too; ``on_item`` each item as it is final; ``on_status`` the job's figures after each.
    ``model``: what the answers are stored under (default: the engine's identity).
    ``control``: pause, resume and stop (``Cancelled``); ``fresh``: ask every item again.
    ``reply_schema``: what the replies are held to (None: not held, for a bench whose random-weight
    model makes the grammar test the whole vocabulary at every token)."""
    control = control or RoomControl()
    check_reviewable(library, doc_ids)
    model = model or engine_identity(library, engine, cancel=control.cancel)
    job = _RoomJob(
        library,
        engine,
        doc_ids,
        checklist,
        model,
        fresh=fresh,
        side=side,
        progress=progress,
        on_status=on_status,
        on_item=on_item,
        on_review=on_review,
        control=control,
        reply_schema=reply_schema,
    )
    job.report()
    try:
        while True:
            try:
                job.run_pass()
                break
            except ServerUnreachable as error:
                job.fresh = False  # what was stored before the pause stays
                job.wait_for_server(error)
    finally:
        job.evidence.close()
    if control.cancel.cancelled:
        raise Cancelled()
    job.report()
    return job.result()


@dataclass(frozen=True, slots=True)
class RoomStored:
    """How much of a data room's review by ``model`` is stored: what the next start offers to
    continue ("12 of 40 contracts reviewed, 1 half done: continue?")."""

    complete: int
    partial: int
    untouched: int


def stored_room(library: Library, doc_ids: Sequence[str], checklist: Checklist, model: str) -> RoomStored:
    """Count the contracts whose items are all stored under ``model`` (today's passages and
    prompts), those with some, and those with none. No model is needed."""
    complete = partial = 0
    for doc_id in doc_ids:
        key = review_key(library, doc_id, checklist, model, prompt_version(library, doc_id))
        stored = len(stored_results(library, key, checklist.items))
        complete += stored == len(checklist.items)
        partial += 0 < stored < len(checklist.items)
    return RoomStored(complete, partial, len(doc_ids) - complete - partial)
