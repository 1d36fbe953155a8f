"""``pagewise ask DOC_ID... "QUESTION"`` (or ``--all``): a streamed answer citing pages.

A document without a stored summary (``pagewise summarize``) is answered at once from its
passages (mode "passages"); ``--with-summary`` makes the summary first and answers with it.
"""

from __future__ import annotations

import argparse
import sys

from app.commands._model_args import add_model_flags
from app.services.output import TerminalProgress, add_json_flag, emit_json
from summarizer.page_labels import TEXT, page_label


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("ask", help="answer a question about documents, citing pages")
    parser.add_argument("words", nargs="+", metavar="DOC_ID... QUESTION", help="document ids, then the question")
    parser.add_argument("--all", action="store_true", help="ask about every document")
    parser.add_argument("-k", type=int, default=3, help="passages given to the model (default 3)")
    parser.add_argument("--answer-tokens", type=int, default=512, help="longest answer in tokens (default 512)")
    parser.add_argument(
        "--with-summary",
        action="store_true",
        help="summarize a document without a stored summary first (minutes on a CPU) and answer with it; "
        "by default such a document is answered at once from its passages",
    )
    add_model_flags(parser)
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def _split(args: argparse.Namespace) -> tuple[list[str] | None, str] | str:
    """(doc_ids or None for --all, question), or a usage error message."""
    if args.all:
        if len(args.words) != 1:
            return 'with --all give only the question: pagewise ask --all "QUESTION"'
        return None, args.words[0]
    if len(args.words) < 2:
        return 'give one or more DOC_IDs (see `pagewise list`) and a QUESTION, or --all "QUESTION"'
    return args.words[:-1], args.words[-1]


def _print_citations(answer: object, locators: dict[tuple[str, int, int], str]) -> None:
    from summarizer.answers.answer import Answer

    assert isinstance(answer, Answer)
    if answer.citations:
        print("\nCitations:")
    for c in answer.citations:
        where = f"{c.doc_id} {page_label(c.page, style=TEXT)}" if c.doc_id else page_label(c.page, style=TEXT)
        if c.page == 0:  # a clause citation that matches no clause given
            where = c.doc_id or "-"
        if c.doc_id and (c.doc_id, c.page, c.page) in locators:  # a Word document's paragraph
            where = f"{c.doc_id} {locators[(c.doc_id, c.page, c.page)]}"
        if c.valid:
            link = f"passage {c.passage_id}" if c.passage_id is not None else "the document"
            print(f"  {c.text:<12} {where}: {link}")
        else:
            print(f"  {c.text:<12} {where}: NOT VALID ({c.reason})")
    s = answer.stats
    print(
        f"\n[{answer.mode}] {s.prompt_tokens} prompt tokens ({s.cached_tokens} reused), "
        f"{s.completion_tokens} generated; first token {s.ttft_s:.2f} s, "
        f"prefill {s.prefill_tok_s:.0f} tok/s, decode {s.decode_tok_s:.1f} tok/s"
    )


def run(args: argparse.Namespace) -> int:
    from app.commands._model_args import open_model, summary_params
    from app.services.output import fail
    from summarizer.answers.answer import AnswerOptions, answer_question, resolve_doc_ids
    from summarizer.library.storage.store import Library
    from summarizer.library.word_parts import locators_of

    split = _split(args)
    if isinstance(split, str):
        return fail(args, split, 2)
    doc_ids, question = split
    if not question.strip():
        return fail(args, "the question is empty", 2)
    if args.k < 1:
        return fail(args, "-k must be at least 1", 2)
    if args.answer_tokens < 1:
        return fail(args, "--answer-tokens must be at least 1", 2)
    progress = TerminalProgress(enabled=not args.json)
    with Library.open() as library:
        ids = resolve_doc_ids(library, doc_ids)  # a clear error before loading a model
        try:
            model = open_model(args, library, progress, batch=True)
        finally:
            progress.close()
        with model:
            try:
                stream = answer_question(
                    library,
                    model.engine,
                    question,
                    model_sha256=model.sha256,
                    doc_ids=ids,
                    options=AnswerOptions(k=args.k, answer_tokens=args.answer_tokens),
                    summary_params=summary_params(args, model.n_ctx),
                    with_summary=args.with_summary,
                    parallel=model.parallel,
                    progress=progress,
                )
            finally:
                progress.close()
            for piece in stream:
                if not args.json:
                    sys.stdout.write(piece)
                    sys.stdout.flush()
            answer = stream.answer
        # Where a citation or passage of a Word document is, as Word shows it (docs/word-documents.md).
        locators = locators_of(
            library,
            [(c.doc_id, c.page, c.page) for c in answer.citations if c.doc_id and c.page > 0]
            + [(p.doc_id, p.page_start, p.page_end) for p in answer.passages],
        )
    if args.json:
        data = answer.to_json()
        for citation in data["citations"]:
            citation["locator"] = locators.get((citation["doc_id"], citation["page"], citation["page"]))
        for passage in data["passages"]:
            passage["locator"] = locators.get((passage["doc_id"], passage["page_start"], passage["page_end"]))
        emit_json(data)
    else:
        print()
        _print_citations(answer, locators)
    return 0
