"""The model's review of a data room (issue 57): many contracts over one engine, the engine kept
busy across contracts.

``review_with_model`` reads one contract at a time, each unit's items as one batch: a server's
slots idle at every contract's tail, while the last items finish. Here each reading (one item
over one unit of one contract) goes into one queue (``inference.engines.prompt_feed``) fed in
contract order, and the engine's slots take the next reading as soon as one is free
(``Engine.generate_fed``): the next contract's first readings start while the last one's
stragglers finish. An item not found in a unit goes back in the queue for its contract's next
unit, ahead of later contracts. Contracts are prepared (their stored answers read back, their
pages cut into units, each open item's evidence found) only as the queue runs low.

Each item is stored as soon as it is final, so a stop, a crash or a closed window loses at most
the readings in flight; run again, the contracts already reviewed by the same model and checklist
are not read again (``skipped``) and a contract half done asks only its open items. A server that
stops answering (``ServerUnreachable``) pauses the job: with a ``RoomControl`` that waits
(``wait_for_server``, the window) until ``resume``, else (the command line) ``RoomPaused`` says to
run the command again. A refused API key stops the job at its first reading (``ApiKeyError``).
The result says how busy the engine's slots were (``busy_share``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inference.cancel import Cancelled, CancelToken
from inference.engines.engine import Completion, Engine
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
    PROMPT_VERSION,
    REPLY_SCHEMA,
    REPLY_TOKENS,
    DocumentRun,
    open_results,
    prepare_run,
    read_reply,
    reading_messages,
    shown_review_of,
)
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


@dataclass
class RoomControl:
    """Pause, resume and stop a data room's review from another thread (the window's buttons).
    ``wait_for_server``: when the server stops answering, pause and wait for ``resume`` instead
    of raising ``RoomPaused``."""

    cancel: CancelToken = field(default_factory=CancelToken)
    wait_for_server: bool = False
    running: threading.Event = field(default_factory=threading.Event)
    feed: PromptFeed | None = field(default=None, repr=False)  # the job's, while it runs

    def __post_init__(self) -> None:
        self.running.set()

    def pause(self) -> None:
        """No new reading starts; the ones in flight finish and are stored. (Through the feed,
        so the time paused does not count against the slots' busy share.)"""
        feed = self.feed
        if feed is not None:
            feed.pause()
        else:
            self.running.clear()

    def resume(self) -> None:
        feed = self.feed
        if feed is not None:
            feed.resume()
        else:
            self.running.set()

    def stop(self) -> None:
        self.cancel.cancel()
        self.running.set()  # a paused job wakes up to stop

    @property
    def paused(self) -> bool:
        return not self.running.is_set()


@dataclass(slots=True)
class _Active:
    run: DocumentRun
    left: int  # items not final yet


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
    ) -> None:
        self.library, self.engine, self.doc_ids, self.checklist, self.model = library, engine, doc_ids, checklist, model
        self.fresh, self.side = fresh, side
        self.progress, self.on_status, self.on_item, self.on_review = progress, on_status, on_item, on_review
        self.control = control
        self.n_items = len(checklist.items)
        self.done_ids: set[str] = set()
        self.skipped = self.reviewed = self.items_done = self.readings = self.pauses = 0
        self.active: dict[int, _Active] = {}
        self.position = 0
        self.feed = PromptFeed(1)
        self.feeds: list[PromptFeed] = []
        self.started = time.perf_counter()
        self.paused_s = 0.0
        self.budget = 256

    # the producer

    def refill(self) -> bool:
        """Prepare the next contract not done: its open items' first readings join the queue."""
        while self.position < len(self.doc_ids):
            seq, doc_id = self.position, self.doc_ids[self.position]
            self.position += 1
            if doc_id in self.done_ids:  # finished before the server paused the job
                continue
            cancel = self.control.cancel
            cancel.raise_if_cancelled()
            run = prepare_run(self.library, self.engine, doc_id, self.checklist, self.model, self.budget, self.fresh)
            if len(run.results) == self.n_items:
                self.skipped += 1
                self._contract_done(run)
                return True
            open_items = open_results(self.library, self.checklist, run, cancel)
            self.active[seq] = _Active(run, len(open_items))
            if not run.units:  # no text to read: each item is not found
                for index in open_items:
                    self._final(seq, index)
                return True
            for index in open_items:
                item = self.checklist.items[index]
                self.feed.put((seq, index, 0), reading_messages(run.units[0], item), (seq, 0, index))
            return True
        self.feed.exhaust()
        return False

    # the replies

    def on_result(self, tag: Reading, completion: Completion) -> None:
        seq, index, n_unit = tag
        run = self.active[seq].run
        item = self.checklist.items[index]
        self.readings += 1
        units_left = len(run.units) - n_unit
        if read_reply(run.results[index], item, run.units[n_unit], completion, units_left):
            self._final(seq, index)
            return
        nxt = n_unit + 1  # not in this unit: the next one, ahead of later contracts
        self.feed.put((seq, index, nxt), reading_messages(run.units[nxt], item), (seq, nxt, index))

    def _final(self, seq: int, index: int) -> None:
        active = self.active[seq]
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
        self.position = 0
        # a contract's readings ahead of the slots: preparing the next one (its evidence search) takes
        # a while, and the slots go on with these meanwhile
        slots = self.engine.parallel
        self.feed = PromptFeed(slots, self.refill, low_water=slots + self.n_items, running=self.control.running)
        self.feeds.append(self.feed)
        self.control.feed = self.feed
        self.engine.generate_fed(
            self.feed,
            max_tokens=REPLY_TOKENS,
            json_schema=REPLY_SCHEMA,
            cancel=self.control.cancel,
            on_result=self.on_result,
        )

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
) -> RoomResult:
    """The model's typed answers for every item of ``checklist`` in every contract of
    ``doc_ids``, stored as each is final (see the module's note). ``on_review`` receives each
    contract's review (with corrections and flags for ``side``) when it is complete, the skipped
    ones too; ``on_item`` each item as it is final; ``on_status`` the job's figures after each.
    ``model``: what the answers are stored under (default: the engine's identity).
    ``control``: pause, resume and stop (``Cancelled``); ``fresh``: ask every item again."""
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
    )
    job.report()
    while True:
        try:
            job.run_pass()
            break
        except ServerUnreachable as error:
            job.fresh = False  # what was stored before the pause stays
            job.wait_for_server(error)
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
        stored = len(
            stored_results(library, review_key(library, doc_id, checklist, model, PROMPT_VERSION), checklist.items)
        )
        complete += stored == len(checklist.items)
        partial += 0 < stored < len(checklist.items)
    return RoomStored(complete, partial, len(doc_ids) - complete - partial)
