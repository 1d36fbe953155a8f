"""Hierarchical compression: segment summaries (map), then a super-summary (reduce).

    summary = compress(library, engine, doc_id, model_sha256=..., params=SummaryParams())

Map: every segment (``summarizer.summaries.segments``) is summarized into at most
``params.summary_tokens`` tokens, several at once through ``engine.generate_batch`` when
``parallel`` > 1 (the plan has room for that many sequences), one by one otherwise.
Reduce: the summaries, labelled with their pages, are combined in groups that fit the
context, level after level, until one remains: the super-summary. Every summary keeps the
page range it covers.

The parameters and the tree's values are in ``summarizer.summaries.tree``. Every summary is
stored as soon as it exists (``summarizer.summaries.store``), so a second run
makes no model call, and a run stopped by a crash or a cancel resumes after the last
finished segment (batched summaries are stored one by one as each finishes).

A new context size keeps what is stored: without parameters, ``compress`` takes those of a stored
summary whose every step still fits the context (``summarizer.summaries.context_reuse``).

``cached_summary`` (the whole tree) and ``stored_segment_summaries`` (the segments finished
so far) read the store without a model: what a question can use before the summary is done.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.engine import ChatMessage, Completion, Engine, Piece, collect, render_plain
from inference.engines.loop_guard import cut_loop
from inference.errors import PlanError
from inference.progress import ProgressCallback, Stage, no_progress
from summarizer.errors import DocumentError
from summarizer.library.storage.document_text import passages_fingerprint
from summarizer.library.storage.store import Library
from summarizer.summaries.context_reuse import LABEL_TOKENS, summary_key, summary_params_for
from summarizer.summaries.repetition import trim_repetition
from summarizer.summaries.segments import Segment, build_segments
from summarizer.summaries.store import (
    StoredSummary,
    SummaryKey,
    SummaryKind,
    get_summary,
    get_summary_by_digest,
    put_summary,
)
from summarizer.summaries.summary_prompts import (
    LabelledSummary,
    part_label_text,
    reduce_messages,
    reduce_overhead_text,
    segment_summary_messages,
)
from summarizer.summaries.tree import (
    PROMPT_MARGIN,
    CompressProgress,
    CompressStats,
    DocumentSummary,
    SummaryNode,
    SummaryParams,
)

MESSAGE_TOKENS = 8  # chat-template tokens per message, on top of the content


class SummaryNotCached(LookupError):
    """``compress`` was called without an engine and something is not stored yet."""


def _clean(text: str, looped: bool = False) -> str:
    text = text.strip()
    for prefix in ("Summary of this part:", "Combined summary:", "Summary:"):
        if text.lower().startswith(prefix.lower()):
            text = text[len(prefix) :].strip()
    # A reply the engine ended in a loop keeps the loop's first turn; an exact loop elsewhere too.
    return (cut_loop(text) if looped else None) or trim_repetition(text)


def _prompt_tokens(engine: Engine, messages: Sequence[ChatMessage]) -> int:
    return engine.count_tokens(render_plain(messages)) + MESSAGE_TOKENS * len(messages)


PREFILL_PER_DECODE = 4.0  # a CPU reads a prompt ~3-4x faster per token than it writes (docs/benchmarks.md: 233/72)


class _Compressor:
    def __init__(
        self,
        library: Library,
        engine: Engine | None,
        doc_id: str,
        model_sha256: str,
        params: SummaryParams,
        parallel: int,
        progress: ProgressCallback,
        cancel: CancelToken,
    ) -> None:
        self.library = library
        self.engine = engine
        self.doc_id = doc_id
        self.model_sha256 = model_sha256
        self.params = params
        self.parallel = max(1, parallel)
        self.progress = progress
        # Called with (prompt index, seconds to its first token) in a one-at-a-time run: the map
        # step turns the first segment's prefill into an estimate before any segment is done.
        self.on_prefill: Callable[[int, float], None] = lambda _index, _seconds: None
        self.cancel = cancel
        self.title = library.document(doc_id).title
        self.word = library.document(doc_id).file_type == "docx"  # its "pages" are paragraphs
        self.stats = CompressStats()

    def labelled(self, node: SummaryNode) -> LabelledSummary:
        """``node`` as the reduce prompt shows it, labelled by paragraphs for a Word document."""
        return dataclasses.replace(node.labelled, word=self.word)

    def key(self, kind: SummaryKind, level: int, input_text: str) -> SummaryKey:
        return summary_key(kind, level, self.doc_id, self.title, input_text, self.model_sha256, self.params)

    def document_key(self) -> SummaryKey:
        return self.key("super", 0, passages_fingerprint(self.library, self.doc_id))

    def require_engine(self) -> Engine:
        if self.engine is None:
            raise SummaryNotCached(f"{self.doc_id} has no stored summary for this model and these settings")
        return self.engine

    # -- run ------------------------------------------------------------------------------

    def segments(self) -> list[Segment]:
        """The document's segments (only from the cache without an engine: ``DocumentError``
        when it was not split for this model and segment size yet)."""
        return build_segments(
            self.library,
            self.doc_id,
            count_tokens=self.engine.count_tokens if self.engine is not None else None,
            tokenizer_id=self.model_sha256,
            segment_tokens=self.params.segment_tokens,
            progress=self.progress,
            cancel=self.cancel,
        )

    def stored_segment_summaries(self) -> list[SummaryNode]:
        try:
            segments = self.segments()
        except DocumentError:
            return []
        stored = (get_summary(self.library, self.key("segment", 0, segment.text)) for segment in segments)
        return [_node(0, summary, cached=True) for summary in stored if summary is not None]

    def run(self) -> DocumentSummary:
        started = time.perf_counter()
        segments = self.segments()
        keys = [self.key("segment", 0, segment.text) for segment in segments]
        stored = [get_summary(self.library, key) for key in keys]
        result = self._from_document_record(keys, stored)
        if result is None:
            engine = self.require_engine()
            self._check_context(engine, segments)
            segment_nodes = self._map(engine, segments, keys, stored)
            nodes, digests = segment_nodes, [key.digest for key in keys]
            levels: list[list[SummaryNode]] = []
            level_digests = [digests]
            while len(nodes) > 1:
                before = len(nodes)
                nodes, digests = self._reduce_level(engine, nodes, digests, len(levels) + 1)
                if len(nodes) >= before:  # no two summaries fit one prompt: it would never end
                    raise PlanError(
                        f"The model's context of {engine.n_ctx} tokens cannot hold two summaries at once. "
                        "Load the model with a larger context, or ask for shorter summaries."
                    )
                levels.append(nodes)
                level_digests.append(digests)
            root = nodes[0]
            record = StoredSummary(root.text, root.page_start, root.page_end, 0, root.tokens, {"levels": level_digests})
            put_summary(self.library, self.document_key(), record)
            result = DocumentSummary(self.doc_id, self.title, self.params, segment_nodes, levels[:-1], root)
        result.stats = self.stats
        self.stats.seconds = time.perf_counter() - started
        total = len(segments)
        self.progress(CompressProgress(Stage.SUMMARIZED, total, total, self.title, eta_s=0.0))
        return result

    def _from_document_record(
        self, keys: list[SummaryKey], stored: list[StoredSummary | None]
    ) -> DocumentSummary | None:
        """The whole tree from the store, when this document was summarized before."""
        if any(s is None for s in stored):
            return None
        record = get_summary(self.library, self.document_key())
        if record is None:
            return None
        level_digests: list[list[str]] = record.detail.get("levels", [])
        if not level_digests or level_digests[0] != [key.digest for key in keys]:
            return None
        levels: list[list[SummaryNode]] = []
        for level, digests in enumerate(level_digests):
            nodes = []
            for digest in digests:
                summary = get_summary_by_digest(self.library, digest)
                if summary is None:
                    return None
                nodes.append(_node(level, summary, cached=True))
            levels.append(nodes)
        self.stats.cached = sum(len(level) for level in levels)
        root = levels[-1][0]
        return DocumentSummary(self.doc_id, self.title, self.params, levels[0], levels[1:-1], root)

    def _check_context(self, engine: Engine, segments: list[Segment]) -> None:
        n_ctx = engine.n_ctx
        empty = segment_summary_messages("", self.title, 1, 1, self.params.summary_tokens, self.word)
        overhead = _prompt_tokens(engine, empty)
        longest = max(segment.n_tokens for segment in segments)
        if longest + overhead + self.params.summary_tokens > n_ctx:
            raise PlanError(
                f"Segments of {self.params.segment_tokens} tokens do not fit the model's context of {n_ctx} tokens "
                f"with their instructions and a {self.params.summary_tokens}-token summary. Use smaller segments "
                "(--segment-tokens) or load the model with a larger context."
            )
        part = max(self.params.summary_tokens, self.params.super_tokens) + LABEL_TOKENS
        if self._reduce_room(engine) < 2 * part:
            raise PlanError(
                f"The model's context of {n_ctx} tokens is too small to combine summaries of "
                f"{self.params.super_tokens} tokens. Load the model with a larger context, or ask for shorter "
                "summaries."
            )

    def _reduce_room(self, engine: Engine) -> int:
        overhead = engine.count_tokens(reduce_overhead_text(self.title, self.params.super_tokens, self.word))
        return engine.n_ctx - self.params.super_tokens - overhead - 2 * MESSAGE_TOKENS - PROMPT_MARGIN // 4

    # -- model calls ----------------------------------------------------------------------

    def _generate(
        self,
        engine: Engine,
        prompts: list[list[ChatMessage]],
        max_tokens: int,
        on_done: Callable[[int, Completion], None],
    ) -> None:
        """Each prompt's reply, handed to ``on_done(index, completion)`` as soon as it is finished
        (so it is stored before the rest run): one ``generate_batch`` call for all of them when
        ``parallel`` > 1, one at a time otherwise."""
        self.cancel.raise_if_cancelled()

        def done(index: int, completion: Completion) -> None:
            self.stats.model_calls += 1
            self.stats.prompt_tokens += completion.stats.prompt_tokens
            self.stats.completion_tokens += completion.stats.completion_tokens
            on_done(index, completion)

        if self.parallel > 1 and len(prompts) > 1:
            engine.generate_batch(
                prompts,
                max_tokens=max_tokens,
                temperature=self.params.temperature,
                cancel=self.cancel,
                on_result=done,
            )
            return
        for index, prompt in enumerate(prompts):
            self.cancel.raise_if_cancelled()
            pieces = engine.generate(
                prompt, max_tokens=max_tokens, temperature=self.params.temperature, cancel=self.cancel
            )
            done(index, collect(self._timed(index, pieces)))

    def _timed(self, index: int, pieces: Iterator[Piece]) -> Iterator[Piece]:
        """``pieces``, telling ``on_prefill`` when the first one arrives (the prompt is read then)."""
        started = time.perf_counter()
        first = True
        for piece in pieces:
            if first:
                first = False
                self.on_prefill(index, time.perf_counter() - started)
            yield piece

    def _tokens(self, engine: Engine, text: str, completion: Completion) -> int:
        """The summary's length in tokens. Called while a batch runs, so it asks the engine only
        when its stats have no count (an engine that reports none)."""
        if completion.stats.completion_tokens or not text:
            return completion.stats.completion_tokens
        return engine.count_tokens(text)

    # -- map --------------------------------------------------------------------------------

    def _map(
        self, engine: Engine, segments: list[Segment], keys: list[SummaryKey], stored: list[StoredSummary | None]
    ) -> list[SummaryNode]:
        nodes: dict[int, SummaryNode] = {}
        for index, summary in enumerate(stored):
            if summary is not None:
                nodes[index] = _node(0, summary, cached=True)
        self.stats.cached += len(nodes)
        todo = [index for index in range(len(segments)) if index not in nodes]
        total = len(segments)
        self.progress(CompressProgress(Stage.SUMMARIZE_SEGMENTS, len(nodes), total, self.title))
        started = time.perf_counter()

        def first_prefill(position: int, seconds: float) -> None:
            """Before any segment is done: an estimate from the first segment's prefill (its
            tokens per second; writing a summary is taken at a quarter of that rate per token,
            about what llama.cpp's decode gives against its prefill on a CPU)."""
            if summarized or seconds <= 0:
                return
            read_rate = segments[todo[position]].n_tokens / seconds
            left_tokens = sum(segments[i].n_tokens for i in todo[position + 1 :])
            writing = len(todo[position:]) * self.params.summary_tokens / (read_rate / PREFILL_PER_DECODE)
            self.progress(
                CompressProgress(
                    Stage.SUMMARIZE_SEGMENTS, len(nodes), total, f"{read_rate:.0f} tok/s reading",
                    tokens_per_s=read_rate, eta_s=left_tokens / read_rate + writing,
                )
            )  # fmt: skip

        self.on_prefill = first_prefill
        tokens_read = 0
        summarized = 0  # in this run
        prompts = [
            segment_summary_messages(
                segments[i].text,
                self.title,
                segments[i].page_start,
                segments[i].page_end,
                self.params.summary_tokens,
                self.word,
            )
            for i in todo
        ]

        def store(position: int, completion: Completion) -> None:
            nonlocal tokens_read, summarized
            index = todo[position]
            segment = segments[index]
            text = _clean(completion.text, completion.stats.stop_reason == "loop")
            summary = StoredSummary(
                text,
                segment.page_start,
                segment.page_end,
                completion.stats.prompt_tokens,
                self._tokens(engine, text, completion),
            )
            put_summary(self.library, keys[index], summary)
            nodes[index] = _node(0, summary, cached=False)
            tokens_read += segment.n_tokens
            summarized += 1
            elapsed = max(time.perf_counter() - started, 1e-9)
            rate = summarized / elapsed
            self.progress(
                CompressProgress(
                    Stage.SUMMARIZE_SEGMENTS,
                    len(nodes),
                    total,
                    f"{tokens_read / elapsed:.0f} tok/s",
                    rate=rate,
                    tokens_per_s=tokens_read / elapsed,
                    eta_s=(total - len(nodes)) / rate,
                )
            )

        self._generate(engine, prompts, self.params.summary_tokens, store)
        self.on_prefill = lambda _index, _seconds: None  # the reduce step's prompts are not segments
        return [nodes[index] for index in range(total)]

    # -- reduce -----------------------------------------------------------------------------

    def _groups(self, engine: Engine, nodes: list[SummaryNode]) -> list[list[int]]:
        room = self._reduce_room(engine)
        groups: list[list[int]] = []
        current: list[int] = []
        used = 0
        for index, node in enumerate(nodes):
            cost = node.tokens + LABEL_TOKENS
            if current and used + cost > room:
                groups.append(current)
                current, used = [], 0
            current.append(index)
            used += cost
        if current:
            groups.append(current)
        return groups

    def _reduce_level(
        self, engine: Engine, nodes: list[SummaryNode], digests: list[str], level: int
    ) -> tuple[list[SummaryNode], list[str]]:
        groups = self._groups(engine, nodes)
        out: dict[int, tuple[SummaryNode, str]] = {}
        todo: list[tuple[int, SummaryKey, list[SummaryNode]]] = []
        for position, group in enumerate(groups):
            members = [nodes[i] for i in group]
            if len(members) == 1:  # nothing to combine: carried up as it is
                only = members[0]
                out[position] = (
                    SummaryNode(level, only.page_start, only.page_end, only.text, only.tokens, True),
                    digests[group[0]],
                )
                continue
            key = self.key("reduce", level, "".join(part_label_text(self.labelled(m)) for m in members))
            summary = get_summary(self.library, key)
            if summary is not None:
                self.stats.cached += 1
                out[position] = (_node(level, summary, cached=True), key.digest)
            else:
                todo.append((position, key, members))
        total = len(groups)
        self.progress(CompressProgress(Stage.REDUCE, len(out), total, f"level {level}"))
        prompts = [
            reduce_messages([self.labelled(m) for m in members], self.title, self.params.super_tokens, self.word)
            for _, _, members in todo
        ]

        def store(done: int, completion: Completion) -> None:
            position, key, members = todo[done]
            text = _clean(completion.text, completion.stats.stop_reason == "loop")
            summary = StoredSummary(
                text,
                members[0].page_start,
                members[-1].page_end,
                completion.stats.prompt_tokens,
                self._tokens(engine, text, completion),
            )
            put_summary(self.library, key, summary)
            out[position] = (_node(level, summary, cached=False), key.digest)
            self.progress(CompressProgress(Stage.REDUCE, len(out), total, f"level {level}"))

        self._generate(engine, prompts, self.params.super_tokens, store)
        ordered = [out[position] for position in range(total)]
        return [node for node, _ in ordered], [digest for _, digest in ordered]


def _node(level: int, summary: StoredSummary, *, cached: bool) -> SummaryNode:
    return SummaryNode(level, summary.page_start, summary.page_end, summary.text, summary.completion_tokens, cached)


def default_params(
    engine: Engine | None, library: Library | None = None, doc_id: str | None = None, model_sha256: str = ""
) -> SummaryParams:
    """The parameters ``compress`` uses when given none: the ones that follow the engine's context,
    or, for a document (``library``, ``doc_id``, ``model_sha256``), those of a stored summary that
    still fits it (``summary_params_for``)."""
    if engine is None or not engine.n_ctx:
        return SummaryParams()
    if library is not None and doc_id is not None and model_sha256:
        return summary_params_for(library, doc_id, model_sha256=model_sha256, n_ctx=engine.n_ctx)
    return SummaryParams.for_context(engine.n_ctx)


def compress(
    library: Library,
    engine: Engine | None,
    doc_id: str,
    *,
    model_sha256: str,
    params: SummaryParams | None = None,
    parallel: int = 1,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> DocumentSummary:
    """Summarize ``doc_id`` (segment summaries and super-summary), reusing what is stored.

    ``model_sha256`` identifies the model (``summarizer.llm.model_identity.model_sha256``); it keys
    the stored summaries and the segment cut points. ``parallel`` > 1 summarizes that many
    segments at once with ``engine.generate_batch`` (use the plan's ``n_seq_max``). With
    ``engine=None`` only stored results are used (``SummaryNotCached`` if something is
    missing). Without ``params``: ``summary_params_for`` the engine's context (a stored summary
    made for another context is kept when it fits this one). Raises ``Cancelled`` when
    ``cancel`` fires; what was finished stays stored.
    """
    if params is None:
        params = default_params(engine, library, doc_id, model_sha256)
    return _Compressor(library, engine, doc_id, model_sha256, params, parallel, progress, cancel).run()


def cached_summary(
    library: Library, doc_id: str, *, model_sha256: str, params: SummaryParams
) -> DocumentSummary | None:
    """The stored summary of ``doc_id`` for this model and parameters, without a model; None
    if it has not been (completely) computed."""
    try:
        return compress(library, None, doc_id, model_sha256=model_sha256, params=params)
    except SummaryNotCached:
        return None
    except DocumentError:
        return None


def stored_segment_summaries(
    library: Library, doc_id: str, *, model_sha256: str, params: SummaryParams
) -> list[SummaryNode]:
    """The segment summaries of ``doc_id`` stored so far for this model and parameters (a
    summary being made, or stopped half-way), in page order, without a model; [] when none is."""
    compressor = _Compressor(library, None, doc_id, model_sha256, params, 1, no_progress, NEVER_CANCELLED)
    return compressor.stored_segment_summaries()
