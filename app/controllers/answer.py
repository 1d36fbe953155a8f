"""Asking about the selected document: one answer at a time, streamed into the conversation,
stopped with Esc; a model that crashed mid-answer is restarted. A question asked while the
model loads in the background (``ModelSetupController.load_in_background``) waits for the load
behind it on the LLM thread, showing the load's progress, then answers. Also loads the search
index and query encoder in the LLM thread before the first question needs them."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from app.controllers.context import JobContext, UsesJobContext
from app.controllers.documents import title_of
from app.jobs.runner import Job
from app.services import answering
from app.services.answering import AnswerStopped, AnswerView
from app.services.model_session import NoModelConfigured
from app.views.conversation_view import ConversationView
from inference.errors import EngineError, PagewiseError
from inference.progress import Progress
from summarizer.library.storage.store import DocumentRecord


class AnswerController(UsesJobContext, QObject):
    answered = Signal(str)  # doc_id (a first answer may have summarized the document)
    model_crashed = Signal()  # the model's worker died while answering: restart it
    model_changed = Signal()  # loading progressed or ended: the status line may change

    def __init__(
        self,
        context: JobContext,
        conversation: ConversationView,
        current_doc: Callable[[], str | None],
        model_missing: Callable[[str], str],
        parent: QObject | None = None,
        model_loading: Callable[[], Job | None] = lambda: None,
    ) -> None:
        super().__init__(parent)
        self.model_loading = model_loading
        self.context = context
        self.conversation = conversation
        self.current_doc = current_doc
        self.model_missing = model_missing
        self.job: Job | None = None
        self.doc_id: str | None = None  # the document being answered about
        self.question = ""  # the question being answered
        self.written = ""  # the answer written so far (shown again when its document is shown again)
        self.shown_doc: str | None = None  # the document whose conversation is in view
        # Answers stopped (or not asked) this session, by document, kept in view when the user
        # switches documents and back (walk 2026-12-05: a stopped answer vanished with its question).
        self.stopped: dict[str, list[tuple[int, str]]] = {}
        self._first_piece_at: float | None = None
        self._pieces = 0
        self._loaded_shown = context.session.loaded
        self.search_ready = False
        self.warm_up_job: Job | None = None
        conversation.ask_requested.connect(self.ask)
        conversation.cancel_requested.connect(self.cancel)

    def show_document(self, record: DocumentRecord | None) -> None:
        """The conversation of the newly selected document (with the answer still being written)."""
        if self.shown_doc is not None:
            answering_it = self.job is not None and self.doc_id == self.shown_doc
            self.stopped[self.shown_doc] = self.conversation.stopped_answers(with_pending=not answering_it)
        self.shown_doc = record.doc_id if record is not None else None
        if record is None:
            self.conversation.set_document(None)
            return
        turns = answering.load_turns(self.library, record.doc_id)
        word = record.file_type == "docx"
        self.conversation.set_document(title_of(record), turns, self.stopped.get(record.doc_id), record.pages, word)
        if self.job is not None and self.doc_id == record.doc_id:
            self.conversation.begin_answer(self.question)
            if self.written:
                self.conversation.add_piece(self.written)
        self.conversation.set_busy(self.job is not None)

    def ask(self, question: str) -> Job | None:
        if self.conversation.library_scope():
            return self.ask_library(question)
        doc_id = self.current_doc()
        if doc_id is None:
            self.messages.info("Select a document in the library first.")
            return None
        if self.job is not None:
            self.messages.info("An answer is still being written. Press Esc to stop it first.")
            return None
        from summarizer.answers.answer import no_text_notice

        try:
            notice = no_text_notice(self.library.document(doc_id))
        except PagewiseError as error:
            self.messages.report(error, "asking", key="answer")
            return None
        if notice:  # a scanned PDF: no ungrounded answer
            self.conversation.not_asked(question, notice)
            self.messages.warning(notice, key="answer")
            return None
        note = self.model_missing("Asking")
        if note:
            self.conversation.not_asked(question, note)
            self.messages.warning(note, key="model")
            return None
        self.messages.resolve("answer")
        history = list(self.conversation.turns)
        self.conversation.begin_answer(question)
        self.doc_id = doc_id
        self.question = question
        self.written = ""
        self._first_piece_at = None
        self._pieces = 0

        def run(job: Job) -> AnswerView:
            engine = self.session.ensure_loaded(job.report, job.token)
            library = self.worker_library()
            answer = answering.ask(engine, library, doc_id, question, history, job.emit_piece, job.report, job.token)
            answer.model = engine.model_name
            answering.save_turn(library, doc_id, answer)
            return answer

        def stop_model() -> None:  # only this answer's own generation: never a load it waits for
            if self.runner.current_llm_job is job:
                self.session.cancel()

        job = self.runner.submit_llm("answer", run, on_cancel=stop_model)
        self.job = job
        loading = self.model_loading()
        if loading is not None:
            self.conversation.progress.label.setText("Waiting for the model to load…")
            loading.progressed.connect(lambda progress: self._progressed(progress) if self.job is job else None)
        job.progressed.connect(self._progressed)
        job.piece.connect(self._piece)
        job.succeeded.connect(lambda answer: self._done(doc_id, answer))
        job.failed.connect(lambda error: self._failed(doc_id, error))
        job.cancelled.connect(lambda: self._stopped(doc_id, "Stopped.", job.stop))
        job.finished.connect(self._finished)
        return job

    def ask_library(self, question: str) -> Job | None:
        """One question across the library (issue 46): the contracts that match, each with its
        best passage, shown as soon as they are found; then, with a model, its answer from the
        first few of them. Without a model the list of contracts is the answer."""
        from app.services.library_question import answer_across, find_contracts

        if self.job is not None:
            self.messages.info("An answer is still being written. Press Esc to stop it first.")
            return None
        if not any(record.passages > 0 for record in self.library.documents()):
            self.messages.info("The library has no documents with text to ask about: add some first.")
            return None
        no_model = self.model_missing("Asking")
        self.messages.resolve("answer")
        self.conversation.begin_library_answer(question)
        self.doc_id = None

        def run(job: Job) -> AnswerView | None:
            library = self.worker_library()
            contracts = find_contracts(library, question, job.report)
            job.emit_partial(contracts)
            if no_model or not contracts:
                return None
            engine = self.session.ensure_loaded(job.report, job.token)
            answer = answer_across(engine, library, question, contracts, job.emit_piece, job.report, job.token)
            answer.model = engine.model_name
            return answer

        def stop_model() -> None:
            if self.runner.current_llm_job is job:
                self.session.cancel()

        job = self.runner.submit_llm("answer", run, on_cancel=stop_model)
        self.job = job
        without = f"{no_model} The contracts that match are listed without an answer." if no_model else ""
        job.progressed.connect(self.conversation.progress.update_progress)
        job.partial.connect(self.conversation.show_contracts)
        job.piece.connect(self.conversation.add_library_piece)
        job.succeeded.connect(lambda answer: self.conversation.finish_library_answer(answer, without))
        job.failed.connect(self._library_failed)
        job.cancelled.connect(lambda: self.conversation.finish_library_answer(None, "Stopped."))
        job.finished.connect(self._finished)
        return job

    def _library_failed(self, error: BaseException) -> None:
        self.conversation.finish_library_answer(
            None, f"No answer: {error}" if isinstance(error, PagewiseError) else "No answer."
        )
        if isinstance(error, EngineError) and self.session.crashed():
            self.model_crashed.emit()
        self.messages.report(error, "answering across the library", key="answer")

    def cancel(self) -> None:
        if self.job is not None:
            self.conversation.progress.mark_stopping()
            self.job.cancel()

    def cancel_for(self, doc_id: str) -> None:
        """Stop the answer about ``doc_id`` (it is being removed)."""
        if self.doc_id == doc_id:
            self.cancel()

    def _progressed(self, progress: Progress) -> None:
        if self.doc_id == self.current_doc():
            self.conversation.progress.update_progress(progress)
        if self.session.loaded != self._loaded_shown:  # the model just loaded
            self._loaded_shown = self.session.loaded
            self.model_changed.emit()

    def _piece(self, text: str) -> None:
        now = time.monotonic()
        if self._first_piece_at is None:
            self._first_piece_at = now
            self.conversation.progress.label.setText("Answering…")
        self._pieces += 1
        self.written += text
        elapsed = now - self._first_piece_at
        if elapsed > 0.2:
            self.status.set_running_rate((self._pieces - 1) / elapsed)
        if self.doc_id == self.current_doc():
            self.conversation.add_piece(text)

    def _done(self, doc_id: str, answer: AnswerView) -> None:
        rate = answer.stats.decode_tok_s if answer.stats else None
        self.status.set_last_rate(rate or self.status.running_rate)
        if doc_id == self.current_doc():
            self.conversation.finish_answer(answer)
        self.answered.emit(doc_id)

    def _stopped(self, doc_id: str, note: str, stop: BaseException | None = None) -> None:
        self.status.set_last_rate(self.status.running_rate)
        partial = stop.partial if isinstance(stop, AnswerStopped) else None
        if doc_id == self.current_doc():
            self.conversation.finish_answer(None, note, partial)
        else:  # stopped while another document is shown: kept for when it is shown again
            text = partial.text if partial is not None else self.written
            block = "\n\n".join(part for part in (f"**You:** {self.question}", text, f"*{note}*") if part)
            turns = len(answering.load_turns(self.library, doc_id))
            self.stopped.setdefault(doc_id, []).append((turns, block))

    def _failed(self, doc_id: str, error: BaseException) -> None:
        if isinstance(error, EngineError) and self.session.crashed():
            self._stopped(doc_id, "The model stopped while answering. It is being restarted; ask again.")
            detail = f"\n{error.detail}" if error.detail else ""
            self.messages.warning(f"The model is being restarted; your conversation is kept. {error}{detail}")
            self.model_crashed.emit()
            return
        self._stopped(doc_id, f"No answer: {error}" if isinstance(error, PagewiseError) else "No answer.")
        if isinstance(error, NoModelConfigured):
            self.messages.warning(str(error), key="model")
        else:
            self.messages.report(error, "answering", key="answer")

    def _finished(self) -> None:
        self.job = None
        self.doc_id = None
        self.conversation.set_busy(False)
        self._loaded_shown = self.session.loaded
        self.model_changed.emit()

    def warm_up_search(self) -> Job | None:
        """Load the query encoder in the LLM thread before the first question needs it."""
        if self.runner.stopped or self.search_ready or self.warm_up_job is not None:
            return None  # (stopped: the window closed before this timer fired)
        if not self.library.has_documents():  # not all of them read: a data room's 449 took 35 ms of the GUI
            return None

        def run(_job: Job) -> bool:
            return answering.warm_up_search(self.worker_library())

        job = self.runner.submit_llm("warm-up", run)
        self.warm_up_job = job
        job.succeeded.connect(lambda loaded: setattr(self, "search_ready", bool(loaded)))
        job.failed.connect(lambda error: self.messages.report(error, "preparing search"))
        job.finished.connect(lambda: setattr(self, "warm_up_job", None))
        return job
