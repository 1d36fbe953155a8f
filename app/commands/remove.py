"""``pagewise remove DOC_ID``: remove a document and everything derived from it."""

from __future__ import annotations

import argparse

from app.services.output import add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("remove", help="remove a document from the library")
    parser.add_argument("doc_id", metavar="DOC_ID")
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from summarizer.library.storage.store import Library
    from summarizer.library.vectors.vector_index import refresh_index

    with Library.open() as library:
        record = library.remove(args.doc_id)
        refresh_index(library)
    if args.json:
        emit_json({"removed": record.doc_id, "title": record.title})
    else:
        print(f"removed {record.doc_id}  {record.title}")
    return 0
