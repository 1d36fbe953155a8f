"""The data room reviewed by the model from the Review tab (issue 57): the library, or the table's
filtered (or checked) contracts, through ``summarizer.review.room_review`` in the one LLM thread,
on the configured model (local, or the firm's server).

Each contract's answers are stored as they finish (the core does it): the cells fill in as items
are answered, coalesced on a timer so a fast engine never floods the GUI thread (a row is built
once per tick however many of its items came, and a tick stops after ``FLUSH_BUDGET_S``). Pause
holds new readings, Stop keeps what is finished. A server that stops answering pauses the job
(``RoomControl.wait_for_server``): the bar says which server and what to do, with Resume. A refused
API key stops it with the message the command line gives.

What is under way is kept in the window's state (``ROOM_KEY``: the contracts, the checklist and
the model's identity) from the job's start until it ends well, so a stop, a crash or a closed
window is offered to be continued when the window opens or the Review tab is shown (what is
stored is counted in a side thread: ``stored_room``), and the contracts done are not read again.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QTabWidget, QWidget

from app.controllers.context import JobContext, UsesJobContext
from app.jobs.held_objects import HeldObjects
from app.jobs.runner import Job
from app.views.review_view import ReviewPanel
from inference.errors import PagewiseError
from inference.progress import Progress, Stage
from summarizer.review.checklist import Checklist, load_checklist
from summarizer.review.evidence import DocumentReview, ItemDone, ItemResult
from summarizer.review.room_control import RoomControl
from summarizer.review.room_review import RoomResult, RoomStatus, RoomStored

ROOM_KEY = "room_review"  # the window state's record of the model review under way
FLUSH_MS = 100  # the cells that arrived are shown at most this often
FLUSH_BUDGET_S = 0.03  # of the GUI thread per tick; the rest waits for the next tick
STATUS_EVERY_S = 0.1  # the job's figures cross to the GUI at most this often (a pause at once)


class ModelSetup(Protocol):
    """What this controller uses of the window's model setup (``app.controllers.model_setup``)."""

    def refresh_plan_line(self) -> None: ...

    def model_loading(self) -> Job | None: ...


class ReviewSide(Protocol):
    """What this controller reads of the Review tab's controller (``app.controllers.review``)."""

    checklist: Checklist
    column_ids: list[str]
    model_changed: Any

    def use_checklist(self, name_or_path: str) -> bool: ...


@dataclasses.dataclass(frozen=True, slots=True)
class RoomTarget:
    """The contracts a model review takes, and how the button and the question name them."""

    doc_ids: list[str]
    label: str  # "the library (449 contracts)", "the 37 filtered contracts"


class RoomReviewController(UsesJobContext, QObject):
    finished = Signal()

    def __init__(
        self,
        context: JobContext,
        panel: ReviewPanel,
        reviews: ReviewSide,
        model_missing: Callable[[str], str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.context, self.panel, self.reviews, self.model_missing = context, panel, reviews, model_missing
        self.bar = panel.room
        self.parent_widget = parent
        self.job: Job | None = None
        self.control: RoomControl | None = None
        self.window_state: QSettings | None = None
        self.offered = False  # the unfinished review was offered this session (once is enough)
        self.confirm: Callable[[str], bool] = self._confirm_dialog  # tests replace it
        self.items: dict[str, dict[int, ItemResult]] = {}  # arrived, not shown yet
        self.reviews_in: dict[str, DocumentReview] = {}  # contracts finished, not shown yet
        self._rows: tuple[int, dict[str, int]] = (0, {})  # (the column list's id, doc_id -> its place)
        self.last_status: RoomStatus | None = None
        self.checklist: Checklist | None = None  # the running review's
        self.result: RoomResult | None = None
        self._flush_timer = QTimer(self)
        self._flush_timer.setInterval(FLUSH_MS)
        self._flush_timer.timeout.connect(self.flush)
        self.model_loading: Callable[[], Job | None] = lambda: None  # the window's own load (connect_model)
        self.held = HeldObjects()  # the rows held out of Python's full collections while a job fills them
        self.bar.start_requested.connect(self.start)
        self.bar.pause_requested.connect(self.pause)
        self.bar.resume_requested.connect(self.resume)
        self.bar.stop_requested.connect(self.stop)
        self.bar.notice_accepted.connect(self._notice_accepted)
        self.bar.notice_dismissed.connect(self._notice_dismissed)
        for signal in (panel.selection_changed, panel.filter_box.textChanged, panel.deviations_only.toggled,
                       panel.contracts_as_rows.toggled):  # fmt: skip
            signal.connect(self.show_target)
        self.show_target()

    def connect_window(self, window_state: QSettings, tabs: QTabWidget) -> None:
        """The window's state (what is under way), and the Review tab shown: the offer to continue."""
        self.window_state = window_state
        tabs.currentChanged.connect(lambda i: self.offer_continue() if tabs.widget(i) is self.panel else None)

    def connect_model(self, model_setup: ModelSetup) -> None:
        """The plan line refreshed after a model review; the window's own load shown while one waits."""
        self.reviews.model_changed.connect(model_setup.refresh_plan_line)
        self.model_loading = model_setup.model_loading

    # --- which contracts ------------------------------------------------------------------

    def _filtered_ids(self) -> list[str] | None:
        """The table's rows the filter keeps, in the table's order; None when it keeps them all."""
        panel = self.panel
        if not panel.table_mode() or panel.shown_contracts() >= len(panel.columns):
            return None
        proxy, ids = panel.table_filter, self.reviews.column_ids
        rows = (proxy.mapToSource(proxy.index(n, 0)).row() for n in range(proxy.rowCount()))
        return [ids[row] for row in rows if 0 <= row < len(ids)]

    def target(self) -> RoomTarget:
        """The table's filtered rows; else the checked contracts when some are left unchecked;
        else the whole library (its contracts ready to review)."""
        filtered = self._filtered_ids()
        if filtered is not None:
            return RoomTarget(filtered, f"the {len(filtered)} filtered contract{'s' * (len(filtered) != 1)}")
        checked = self.panel.checked_doc_ids()
        if checked and len(checked) < self.panel.contracts.count():
            return RoomTarget(checked, f"the {len(checked)} checked contract{'s' * (len(checked) != 1)}")
        ready = self.library.reviewable_ids()
        return RoomTarget(ready, f"the library ({len(ready)} contract{'s' * (len(ready) != 1)})")

    def show_target(self) -> None:
        """The button says what it reviews (counted from the tab, not the library: cheap per keystroke)."""
        filtered = self.panel.shown_contracts() if self.panel.table_mode() else len(self.panel.columns)
        checked, listed = len(self.panel.checked_doc_ids()), self.panel.contracts.count()
        if self.panel.table_mode() and filtered < len(self.panel.columns):
            text = f"Review the {filtered} filtered with the model…"
        elif checked and checked < listed:
            text = f"Review the {checked} checked with the model…"
        else:
            text = "Review the library with the model…"
        self.bar.set_target(
            text,
            "Ask the configured model (this computer's, or your firm's server in Settings) every checklist item "
            "of these contracts. Each contract is kept as it is done; those this model and checklist reviewed "
            "before are skipped; Stop or closing the window keeps what is done, and the next start continues.",
        )

    # --- starting -------------------------------------------------------------------------

    def start(self) -> Job | None:
        """Ask, then review the target (``target``) with the model."""
        if self.job is not None:
            return None
        target = self.target()
        if not target.doc_ids:
            self.messages.info("There is no contract ready to review: add some (File → Open a folder…).")
            return None
        if note := self.model_missing("Reviewing with the model"):
            self.messages.warning(
                f"{note} Or, to use your firm's model server, enter its address in Settings (Ctrl+,), under "
                "“Remote server URL”.",
                key="model",
            )
            return None
        checklist = self.reviews.checklist
        question = (
            f"Review {target.label} with {self._model_words()} against the {checklist.name} checklist "
            f"({len(checklist.items)} items each)?\n\nContracts this model and checklist reviewed before are "
            "skipped. Each contract is kept as it is done: Stop, or closing the window, keeps what is done, and "
            "the next start continues from there."
        )
        if not self.confirm(question):
            return None
        return self._start(target, checklist)

    def review_contracts(self, doc_ids: list[str], checklist: Checklist) -> Job | None:
        """The Review button's review of several checked contracts with the model: this job (one way
        to review many), without the question (Review was pressed for them); a model is set."""
        if self.job is not None:
            self.messages.info("A model review is already running: wait for it to end, or Stop it first.")
            return None
        n = len(doc_ids)
        return self._start(RoomTarget(list(doc_ids), f"the {n} checked contract{'s' * (n != 1)}"), checklist)

    def _model_words(self) -> str:
        chosen = self.session.plan_preview()
        if chosen.remote_url:
            return f"the model server at {chosen.remote_url}"
        return "the model" + (f" ({chosen.summary.split(' · ')[0]})" if chosen.summary else "")

    def _start(self, target: RoomTarget, checklist: Checklist) -> Job:
        from summarizer.llm.model_identity import engine_identity
        from summarizer.review.room_review import review_room

        side = self.panel.side_text()
        control = RoomControl(wait_for_server=True)
        doc_ids = list(target.doc_ids)
        if target.label.startswith("the library") and len(self.panel.checked_doc_ids()) < self.panel.contracts.count():
            self.panel.check_all(True)  # the table shows every contract being reviewed (read once, as All does)

        def run(job: Job) -> RoomResult:
            control.cancel = job.token
            library = self.worker_library()
            engine = self.session.ensure_loaded(job.report, job.token)
            model = engine_identity(library, engine, job.report, cancel=job.token)  # a model file read once
            job.emit_partial(("model", model))
            last: list[Any] = [0.0, ""]

            def status(value: RoomStatus) -> None:  # rate-limited; a pause and the last one always
                now = time.monotonic()
                if value.paused != last[1] or now - last[0] >= STATUS_EVERY_S or value.contracts_done == len(doc_ids):
                    last[0], last[1] = now, value.paused
                    job.emit_partial(value)

            return review_room(library, engine, doc_ids, checklist, job.report, control, model=model, side=side,
                               on_status=status, on_item=job.emit_partial, on_review=job.emit_partial)  # fmt: skip

        job = self.runner.submit_llm("review", run, on_cancel=self.session.cancel)
        self.job, self.control, self.result, self.last_status = job, control, None, None
        self.checklist = checklist
        self.pending_record = {"doc_ids": doc_ids, "checklist": self._checklist_key(checklist), "label": target.label}
        self.bar.start(f"Reviewing {target.label} with the model: starting…", len(doc_ids))
        self.bar.loading_words = self._loading_words()
        self.messages.resolve("room")
        job.partial.connect(self._partial)
        job.progressed.connect(self._progressed)
        if (loading := self.model_loading()) is not None:  # the window's load, begun: this waits for it
            self.bar.show_loading(Progress(Stage.LOAD, 0, None, ""))
            loading.progressed.connect(lambda progress: self._progressed(progress) if self.job is job else None)
        job.succeeded.connect(self._succeeded)
        job.failed.connect(self._failed)
        job.cancelled.connect(self._cancelled)
        job.finished.connect(self._finished)
        job.finished.connect(self.reviews.model_changed)
        self._flush_timer.start()
        return job

    def _checklist_key(self, checklist: Checklist) -> str:
        return "cuad" if checklist.name == "cuad" else str(self.panel.checklist.currentData() or checklist.name)

    # --- while it runs --------------------------------------------------------------------

    def _loading_words(self) -> str:
        chosen = self.session.plan_preview()
        if chosen.remote_url:
            return f"Connecting to the model server at {chosen.remote_url}…"
        return f"Loading {chosen.summary.split(' · ')[0] or 'the model'}…"

    def _progressed(self, progress: Progress) -> None:
        """Before the review's first figures: the model loading (or its file read once, to name
        its stored answers), with the loader's steps."""
        if self.last_status is None and progress.stage in (Stage.LOAD, Stage.HASH_MODEL):
            self.bar.show_loading(progress)

    def _partial(self, value: object) -> None:
        if isinstance(value, ItemDone):
            self.items.setdefault(value.doc_id, {})[value.index] = value.result
        elif isinstance(value, DocumentReview):
            self.reviews_in[value.doc_id] = value
            self.items.pop(value.doc_id, None)
        elif isinstance(value, RoomStatus):
            self._show_status(value)
        elif isinstance(value, tuple) and value[0] == "model":
            self._remember({**self.pending_record, "model": value[1]})

    def _show_status(self, status: RoomStatus) -> None:
        self.last_status = status
        self.bar.show_status(status)
        if status.paused:  # the server stopped answering: the job waits for Resume
            self.bar.set_paused(True)
            self.bar.show_notice(
                "resume",
                f"{status.paused} If the server runs on another computer, ask whoever looks after it to start "
                "it again (llama-server, vLLM, LM Studio or Ollama); if it moved, correct its address in Settings "
                "(Ctrl+,) first. Answers finished so far are kept.",
                "Resume",
            )

    def _row_of(self, doc_id: str) -> int:
        ids = self.reviews.column_ids
        if self._rows[0] != id(ids) or len(self._rows[1]) != len(ids):
            self._rows = (id(ids), {d: n for n, d in enumerate(ids)})
        return self._rows[1].get(doc_id, -1)

    def flush(self) -> None:
        """Show the contracts finished and the items answered since the last tick (a row once
        however many of its items came), for at most ``FLUSH_BUDGET_S``; the rest next tick."""
        from summarizer.review.playbook import flag_results

        began, panel = time.perf_counter(), self.panel
        if self.job is not None:
            self.held.hold()
        if self.reviews.checklist is not self.checklist:  # another checklist chosen meanwhile: stored, not shown
            self.items.clear()
            self.reviews_in.clear()
        while self.reviews_in and time.perf_counter() - began < FLUSH_BUDGET_S:
            doc_id, finished = next(iter(self.reviews_in.items()))
            del self.reviews_in[doc_id]
            if (column := self._row_of(doc_id)) >= 0 and len(finished.items) == len(panel.items):
                for row in range(1) if panel.table_mode() else range(len(finished.items)):
                    panel.set_cell(row, column, finished)
        side = panel.side_text()
        while self.items and time.perf_counter() - began < FLUSH_BUDGET_S:
            doc_id, arrived = next(iter(self.items.items()))
            del self.items[doc_id]
            column = self._row_of(doc_id)
            shown = panel.columns[column] if 0 <= column < len(panel.columns) else None
            review = shown or (self._pending_review(doc_id) if column >= 0 else None)
            if review is None or len(review.items) != len(panel.items):
                continue
            items = list(review.items)
            for index, result in arrived.items():
                if 0 <= index < len(items):  # the reviewer's correction stays; the flag for the side given
                    fresh = dataclasses.replace(result, correction=items[index].correction)
                    flag_results([self.reviews.checklist.items[index]], [fresh], side)
                    items[index] = fresh
            updated = dataclasses.replace(review, items=tuple(items), side=side)
            for index in sorted(arrived)[: 1 if panel.table_mode() else None]:
                panel.set_cell(index, column, updated)
        if self.job is None and not self.items and not self.reviews_in:
            self._flush_timer.stop()

    @property
    def showing(self) -> bool:
        """Cells that arrived are still to be shown (the job may have ended)."""
        return bool(self.items or self.reviews_in)

    def _pending_review(self, doc_id: str) -> DocumentReview | None:
        """A contract never reviewed before: its items not answered yet are "pending"."""
        checklist = self.reviews.checklist
        try:
            record = self.library.document(doc_id)
        except PagewiseError:
            return None
        pending = [ItemResult(i.id, i.category, i.question, i.type, "pending") for i in checklist.items]
        return DocumentReview.of(record, checklist, pending, self.panel.side_text())

    def pause(self) -> None:
        if self.control is not None and self.job is not None:
            self.control.pause()
            self.bar.set_paused(True)

    def resume(self) -> None:
        if self.control is not None and self.job is not None:
            self.control.resume()
            self.bar.set_paused(False)
            if self.bar.notice_kind == "resume":
                self.bar.hide_notice()

    def stop(self) -> None:
        if self.job is not None and self.control is not None:
            self.bar.mark_stopping()
            self.control.stop()
            self.job.cancel()

    # --- how it ended ---------------------------------------------------------------------

    def _succeeded(self, result: RoomResult) -> None:
        self.result = result
        self._forget()
        skipped = f", {result.skipped} skipped (reviewed before by this model and checklist)" if result.skipped else ""
        self.messages.info(
            f"The model reviewed {result.reviewed} contract{'s' * (result.reviewed != 1)}{skipped} in "
            f"{result.elapsed_s / 60:.1f} min.",
            key="room",
        )

    def _failed(self, error: BaseException) -> None:
        self.messages.report(error, "reviewing with the model", key="room")
        if isinstance(error, PagewiseError):
            self.bar.show_notice("continue", f"{error} The contracts finished so far are kept.", "Try again")

    def _cancelled(self) -> None:
        status = self.last_status
        done = f"{status.contracts_done} of {status.contracts} contracts" if status else ""
        self.bar.show_notice(
            "continue",
            f"The model review was stopped{': ' + done + ' done' if done else ''}. What is done is kept.",
            "Continue",
        )

    def _finished(self) -> None:
        self.flush()  # what is left goes on at the timer's pace: a backlog never stalls the window at once
        self.job, self.control = None, None
        self.held.release()
        self.bar.finish()
        self.finished.emit()

    # --- a review left unfinished ---------------------------------------------------------

    def _remember(self, record: dict[str, Any]) -> None:
        if self.window_state is not None:
            self.window_state.setValue(ROOM_KEY, json.dumps(record))
            self.window_state.sync()  # kept at once: a crash does not lose it

    def _forget(self) -> None:
        if self.window_state is not None:
            self.window_state.remove(ROOM_KEY)
            self.window_state.sync()

    def unfinished(self) -> dict[str, Any] | None:
        """The record of the model review left unfinished, or None."""
        raw = self.window_state.value(ROOM_KEY) if self.window_state is not None else None
        try:
            record = json.loads(raw) if isinstance(raw, str) else None
        except ValueError:
            return None
        return record if isinstance(record, dict) and record.get("doc_ids") and record.get("model") else None

    def offer_continue(self) -> Job | None:
        """If a model review was left unfinished, count what is stored (in a side thread) and
        offer to continue it. Once a session; not while one runs."""
        record = self.unfinished()
        if record is None or self.offered or self.job is not None:
            return None
        self.offered = True
        path = self.library.path

        def count(_job: Job) -> tuple[RoomStored, int]:
            from summarizer.library.storage.store import Library
            from summarizer.review.room_review import stored_room

            with Library.open(path) as library:
                known = {r.doc_id for r in library.documents()}
                doc_ids = [d for d in record["doc_ids"] if d in known]
                checklist = load_checklist(record["checklist"])
                return stored_room(library, doc_ids, checklist, record["model"]), len(doc_ids)

        job = self.runner.submit_side("room-stored", count)
        job.succeeded.connect(lambda found: self._offer(record, *found))
        job.failed.connect(lambda _error: self._forget())  # its checklist file is gone: nothing to continue
        return job

    def _offer(self, record: dict[str, Any], stored: RoomStored, contracts: int) -> None:
        if self.job is not None:
            return
        if stored.complete >= contracts:
            self._forget()
            return
        half = f", {stored.partial} half done" if stored.partial else ""
        self.bar.show_notice(
            "continue",
            f"A model review of {record.get('label') or f'{contracts} contracts'} was left unfinished: "
            f"{stored.complete} of {contracts} contracts done{half}. Continue it? The contracts done are not "
            "read again.",
            "Continue",
        )

    def _notice_accepted(self, kind: str) -> None:
        if kind == "resume":
            self.resume()
        elif kind == "continue":
            self.continue_unfinished()

    def _notice_dismissed(self, kind: str) -> None:
        if kind == "continue":
            self._forget()  # not offered again; what was done stays stored

    def continue_unfinished(self) -> Job | None:
        """Start the review left unfinished again, with its contracts and checklist."""
        record = self.unfinished()
        if record is None or self.job is not None:
            return None
        key = record["checklist"]
        if key != self._checklist_key(self.reviews.checklist) and not self.reviews.use_checklist(key):
            return None  # its checklist file is gone (the message says so)
        known = {r.doc_id for r in self.library.documents() if r.state == "ready" and r.passages > 0}
        doc_ids = [d for d in record["doc_ids"] if d in known]
        if not doc_ids:
            self._forget()
            self.bar.hide_notice()
            return None
        if note := self.model_missing("Reviewing with the model"):
            self.messages.warning(note, key="model")
            return None
        return self._start(RoomTarget(doc_ids, str(record.get("label") or "the contracts")), self.reviews.checklist)

    # --- dialogs (tests replace them) -----------------------------------------------------

    def _confirm_dialog(self, question: str) -> bool:
        answer = QMessageBox.question(self.parent_widget, "Review with the model", question)
        return answer == QMessageBox.StandardButton.Yes
