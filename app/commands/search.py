"""``pagewise search DOC_ID|--all "QUERY"``: hybrid search with page numbers. With ``--all`` each
passage is shown by its part that holds the query's words, those words marked (bold on a terminal,
``**word**`` otherwise: summarizer.search.matched_words, issue 58); ``--json`` gives every
result's matched words as character ranges of its text (``matched``)."""

from __future__ import annotations

import argparse
import sys
import textwrap

from app.services.output import add_json_flag, emit_json
from inference.errors import shorten_message
from summarizer.page_labels import TEXT, page_label


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("search", help="search one document (or --all) for passages")
    parser.add_argument("target", nargs="?", metavar="DOC_ID", help="the document to search")
    parser.add_argument("query", nargs="?", metavar="QUERY")
    parser.add_argument("--all", action="store_true", help="search every document")
    parser.add_argument("-k", type=int, default=3, help="how many passages (default 3)")
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from app.services.output import fail
    from summarizer.library.storage.store import Library
    from summarizer.library.vectors.reembed import model_notice, reembed_status
    from summarizer.library.word_parts import locators_of
    from summarizer.search.matched_words import matched_spans
    from summarizer.search.retrieval import search
    from summarizer.search.word_matches import matching

    if args.all:
        # `pagewise search --all "QUERY"`: the one positional is the query.
        query = args.query if args.query is not None else args.target
        doc_ids = None
        if args.query is not None and args.target is not None:
            return fail(args, "give either a DOC_ID or --all, not both")
    else:
        query, doc_ids = args.query, [args.target] if args.target else None
        if not args.target or args.query is None:
            return fail(args, 'give a DOC_ID (see `pagewise list`) and a QUERY, or --all "QUERY"', 2)
    if not query or not query.strip():
        return fail(args, "the query is empty", 2)
    if args.k < 1:
        return fail(args, "-k must be at least 1", 2)
    with Library.open() as library:
        results = search(library, query, doc_ids=doc_ids, k=args.k)
        # A Word passage is cited by clause number and paragraphs (docs/word-documents.md): those
        # of its paragraphs that hold the query's words.
        spans = [(r.doc_id, r.page_start, r.page_end) for r in results]
        locators = locators_of(library, spans, narrow=matching(query))
        documents = library.documents()
        titles = {d.doc_id: d.title for d in documents}
        stale = [d.doc_id for d in documents if d.needs_reindex and (doc_ids is None or d.doc_id in doc_ids)]
        model, reembedding, notice = library.embedding_model, reembed_status(library), model_notice(library)
    if notice:
        sys.stderr.write(f"pagewise: {notice}\n")
    if stale:
        # Old passages still answer, but without clause boundaries and headings.
        sys.stderr.write(
            f"pagewise: {len(stale)} document(s) were cut by an older Pagewise ({', '.join(stale[:3])}"
            f"{', ...' if len(stale) > 3 else ''}); run `pagewise reindex` for better results.\n"
        )
    if args.json:
        emit_json(
            {
                "results": [
                    {
                        **r.to_json(),
                        "locator": locators.get((r.doc_id, r.page_start, r.page_end)),
                        "matched": [list(span) for span in matched_spans(r.text, query)],
                    }
                    for r in results
                ],
                "embedding_model": model,
                "reembedding": reembedding.to_json() if reembedding else None,
            }
        )
        return 0
    if not results:
        print("No matching passages.")
        return 0
    for n, r in enumerate(results, start=1):
        pages = page_label(r.page_start, r.page_end, TEXT)
        pages = locators.get((r.doc_id, r.page_start, r.page_end), pages)
        print(f"[{n}] {titles.get(r.doc_id, r.doc_id)} ({r.doc_id}), {pages}  score {r.score:.4f}")
        body = shown(r.text, query) if args.all else shorten_message(" ".join(r.text.split()), 600)
        print(textwrap.indent(textwrap.fill(body, 100), "    "))
    return 0


BODY_CHARS = 600  # of each passage shown


def shown(text: str, query: str) -> str:
    """The part of ``text`` with the most of the query's words, those words marked: bold on a
    terminal, ``**word**`` when the output goes to a file or a pipe."""
    from summarizer.search.matched_words import excerpt, marked

    bold = sys.stdout.isatty()
    return marked(excerpt(text, query, BODY_CHARS), lambda w: f"\033[1m{w}\033[0m" if bold else f"**{w}**")
