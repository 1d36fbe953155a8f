"""``pagewise summarize DOC_ID``: segment summaries with their pages, then the super-summary."""

from __future__ import annotations

import argparse
import textwrap
from typing import TYPE_CHECKING, Any

from app.commands._model_args import add_model_flags
from app.services.output import TerminalProgress, add_json_flag, emit_json
from summarizer.page_labels import TEXT, unit_label

if TYPE_CHECKING:
    from summarizer.summaries.tree import DocumentSummary


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("summarize", help="summarize a document (stored; a second run is instant)")
    parser.add_argument("doc_id", metavar="DOC_ID", help="the document (see `pagewise list`)")
    add_model_flags(parser)
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def _pages(start: int, end: int, word: bool = False) -> str:
    """``p. 3``, ``pp. 1–8``; a Word document's paragraphs ``¶ 1–40``."""
    return unit_label(start, end, word=word, style=TEXT)


def run(args: argparse.Namespace) -> int:
    from app.commands._model_args import open_model, planned_model, remote_url, summary_params
    from summarizer.library.storage.store import Library
    from summarizer.summaries.compress import cached_summary, compress
    from summarizer.summaries.context_reuse import summary_params_for

    progress = TerminalProgress(enabled=not args.json)
    plan_json: dict[str, Any] | None = None
    result: DocumentSummary
    try:
        with Library.open() as library:
            library.document(args.doc_id)  # a clear error before loading a model
            if remote_url(args):
                with open_model(args, library, progress, batch=True, summaries_only=True) as model:
                    sha, parallel = model.sha256, model.parallel
                    params = summary_params(args, model.n_ctx) or summary_params_for(
                        library, args.doc_id, model_sha256=sha, n_ctx=model.n_ctx
                    )
                    stored = cached_summary(library, args.doc_id, model_sha256=sha, params=params)
                    result = stored or compress(
                        library, model.engine, args.doc_id, model_sha256=sha, params=params,
                        parallel=parallel, progress=progress,
                    )  # fmt: skip
            else:
                plan, parallel, sha = planned_model(args, library, batch=True, summaries_only=True, progress=progress)
                plan_json = plan.to_json()
                # Stored already: no need to load the model.
                params = summary_params(args, plan.n_ctx) or summary_params_for(
                    library, args.doc_id, model_sha256=sha, n_ctx=plan.n_ctx
                )
                cached = cached_summary(library, args.doc_id, model_sha256=sha, params=params)
                if cached is not None:
                    result = cached
                else:
                    with open_model(args, library, progress, batch=True, summaries_only=True) as model:
                        result = compress(
                            library,
                            model.engine,
                            args.doc_id,
                            model_sha256=model.sha256,
                            params=params,
                            parallel=model.parallel,
                            progress=progress,
                        )
    finally:
        progress.close()
    if args.json:
        emit_json({**result.to_json(), "model_sha256": sha, "plan": plan_json, "parallel": parallel})
        return 0
    with Library.open() as library:
        word = library.document(args.doc_id).file_type == "docx"
    print(f"{result.title} ({result.doc_id}): {len(result.segments)} segments")
    for node in result.segments:
        print(f"\n[{_pages(node.page_start, node.page_end, word)}]")
        print(textwrap.indent(textwrap.fill(node.text, 100), "    "))
    print(f"\nSummary ({_pages(result.super_summary.page_start, result.super_summary.page_end, word)}):")
    print(textwrap.indent(textwrap.fill(result.super_summary.text, 100), "    "))
    stats = result.stats
    print(f"\n{stats.model_calls} model calls, {stats.cached} from the store, {stats.seconds:.1f} s")
    return 0
