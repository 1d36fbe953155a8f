"""``pagewise list``: the documents in the library."""

from __future__ import annotations

import argparse

from app.services.output import add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("list", help="list the documents in the library")
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from summarizer.library.storage.store import Library

    with Library.open() as library:
        documents = library.documents()
    if args.json:
        for document in documents:
            emit_json(document.to_json())
        return 0
    if not documents:
        print("The library is empty. Add PDF or Word files with: pagewise ingest FILE.pdf (or FILE.docx)")
        return 0
    words_only = "  (searchable by words only: `pagewise reindex` once the embedding model loads)"
    for d in documents:
        # A Word document's pages are its paragraphs (¶).
        unit = "¶" if d.file_type == "docx" else "p"
        file_type = "Word" if d.file_type == "docx" else "PDF"
        print(
            f"{d.doc_id}  {d.status:<9} {file_type:<4} {d.kind or '?':<8} {d.pages:>5} {unit} "
            f"{d.passages:>6} passages  {d.title}"
            + (f"  [{d.folder}]" if d.folder else "")
            + (words_only if d.words_only else "")
        )
    return 0
