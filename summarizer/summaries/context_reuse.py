"""A new context size keeps the stored summaries that fit it.

``summary_params_for`` picks the parameters of a complete stored summary whose every step (each
segment's prompt with its summary, each reduce step with its combined summary) still fits the
context (``reusable_params``), so a larger context reuses the segments and super-summary made for
a smaller one; only a context they do not fit makes them again (``summaries_to_redo`` says which
documents, for the settings dialog). ``summary_key`` is the key every summary is stored under.
"""

from __future__ import annotations

import dataclasses
import json

from summarizer.library.storage.document_text import passages_fingerprint
from summarizer.library.storage.store import Library
from summarizer.summaries.store import (
    StoredSummary,
    SummaryKey,
    SummaryKind,
    documents_with_super_summaries,
    get_summary_by_digest,
    longest_segment_tokens,
    super_summary_params,
    text_sha256,
)
from summarizer.summaries.summary_prompts import PROMPT_VERSION
from summarizer.summaries.tree import PROMPT_MARGIN, SummaryParams

LABEL_TOKENS = 16  # "Summary of pp. 12-19:" and the blank lines around a part


def summary_key(
    kind: SummaryKind, level: int, doc_id: str, title: str, input_text: str, model_sha256: str, params: SummaryParams
) -> SummaryKey:
    """The key a summary of ``input_text`` (a segment, or the summaries below it) is stored under."""
    return SummaryKey(
        kind=kind,
        level=level,
        doc_id=doc_id,
        input_sha256=text_sha256(f"{title}\n{input_text}"),
        model_sha256=model_sha256,
        prompt_version=PROMPT_VERSION,
        params=params.key_params(kind),
    )


def reusable_params(
    library: Library, doc_id: str, *, model_sha256: str, n_ctx: int, wanted: SummaryParams | None = None
) -> SummaryParams | None:
    """The parameters of a complete stored summary of ``doc_id`` by this model (made for another
    context, perhaps) that a context of ``n_ctx`` tokens can keep: every segment's prompt with its
    summary, and every reduce step with its combined summary, fit in ``n_ctx``. Only the segment size
    may differ from ``wanted`` (default ``SummaryParams.for_context(n_ctx)``, what a new summary
    would use); of several, the closest to its segment size. None when none fits: summarize anew.
    """
    wanted = wanted or SummaryParams.for_context(n_ctx)
    fitting = [params for params, fits in _stored_trees(library, doc_id, model_sha256, n_ctx, wanted) if fits]
    if not fitting:
        return None
    return min(fitting, key=lambda p: (abs(p.segment_tokens - wanted.segment_tokens), -p.segment_tokens))


def summary_params_for(library: Library, doc_id: str, *, model_sha256: str, n_ctx: int) -> SummaryParams:
    """The parameters to summarize (or look up) ``doc_id`` with in a context of ``n_ctx`` tokens: a
    stored summary's that still fits (``reusable_params``), else ``SummaryParams.for_context``."""
    reusable = reusable_params(library, doc_id, model_sha256=model_sha256, n_ctx=n_ctx)
    return reusable or SummaryParams.for_context(n_ctx)


def summaries_to_redo(library: Library, *, model_sha256: str, n_ctx: int) -> list[str]:
    """The documents with a complete stored summary by this model of which none fits a context of
    ``n_ctx`` tokens: a change to that context makes them again (what the settings dialog warns of)."""
    summarized = documents_with_super_summaries(library, model_sha256=model_sha256, prompt_version=PROMPT_VERSION)
    wanted = SummaryParams.for_context(n_ctx)
    redo = []
    for doc_id in summarized:
        trees = _stored_trees(library, doc_id, model_sha256, n_ctx, wanted)
        if trees and not any(fits for _, fits in trees):
            redo.append(doc_id)
    return redo


def _stored_trees(
    library: Library, doc_id: str, model_sha256: str, n_ctx: int, wanted: SummaryParams
) -> list[tuple[SummaryParams, bool]]:
    """The parameters of every complete stored summary of the document's current text by this
    model that differ from ``wanted`` in their segment size at most, each with whether it fits."""
    rows = super_summary_params(library, doc_id, model_sha256=model_sha256, prompt_version=PROMPT_VERSION)
    if not rows:
        return []
    title = library.document(doc_id).title
    fingerprint = passages_fingerprint(library, doc_id)
    out = []
    for digest, params_json in rows:
        try:
            data = json.loads(params_json)
            params = SummaryParams(
                int(data["segment_tokens"]),
                int(data["summary_tokens"]),
                int(data["super_tokens"]),
                float(data["temperature"]),
            )
        except (KeyError, TypeError, ValueError):
            continue
        if dataclasses.replace(params, segment_tokens=wanted.segment_tokens) != wanted:
            continue  # other summary lengths: not what is asked for
        if summary_key("super", 0, doc_id, title, fingerprint, model_sha256, params).digest != digest:
            continue  # made from an older text of the document
        record = get_summary_by_digest(library, str(digest))
        if record is not None:
            out.append((params, _tree_fits(library, doc_id, model_sha256, fingerprint, params, record, n_ctx)))
    return out


def _tree_fits(
    library: Library,
    doc_id: str,
    model_sha256: str,
    fingerprint: str,
    params: SummaryParams,
    record: StoredSummary,
    n_ctx: int,
) -> bool:
    """Whether every step of a stored tree (``record``: its super-summary) fits ``n_ctx`` tokens: its
    prompt as the model counted it (estimated from the parts when unknown), with its reply."""
    level_digests: list[list[str]] = record.detail.get("levels", [])
    longest = longest_segment_tokens(
        library, doc_id, source_key=fingerprint, tokenizer=model_sha256, segment_tokens=params.segment_tokens
    )
    below: list[StoredSummary] = []
    seen: set[str] = set()
    for level, digests in enumerate(level_digests):
        nodes: list[StoredSummary] = []
        for digest in digests:
            summary = get_summary_by_digest(library, digest)
            if summary is None:
                return False
            nodes.append(summary)
            if digest in seen:  # carried up as it was (or a repeated text): checked already
                continue
            seen.add(digest)
            if level == 0:
                need = max(summary.prompt_tokens, longest + PROMPT_MARGIN) + params.summary_tokens
            else:
                parts = [n for n in below if summary.page_start <= n.page_start and n.page_end <= summary.page_end]
                estimate = sum(n.completion_tokens + LABEL_TOKENS for n in parts) + PROMPT_MARGIN
                need = (summary.prompt_tokens or estimate) + params.super_tokens
            if need > n_ctx:
                return False
        below = nodes
    return bool(level_digests)


__all__ = ["LABEL_TOKENS", "reusable_params", "summaries_to_redo", "summary_key", "summary_params_for"]
