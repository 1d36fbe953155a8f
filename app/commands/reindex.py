"""``pagewise reindex [DOC_ID...]``: cut documents' passages again (after a format change) and
re-embed the library when the configured embedding model is not the library's."""

from __future__ import annotations

import argparse

from app.services.output import TerminalProgress, add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "reindex",
        help="re-cut passages of documents added by an older Pagewise (or of the DOC_IDs given); "
        "re-embed the library when the embedding model setting changed",
    )
    parser.add_argument(
        "doc_ids", nargs="*", metavar="DOC_ID", help="documents to re-cut (default: those that need it)"
    )
    parser.add_argument(
        "--ocr",
        action="store_true",
        help="first read by OCR the scanned pages of documents added without it (only those pages are read again)",
    )
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from summarizer.library.reindex import reindex_library
    from summarizer.library.storage.store import Library

    progress = TerminalProgress(enabled=not args.json)
    with Library.open() as library:
        try:
            job = reindex_library(library, args.doc_ids or None, progress=progress, ocr=args.ocr)
        finally:
            progress.close()
    results, reembedded = job.documents, job.reembedded
    if args.json:
        for result in results:
            emit_json(result.to_json())
        if reembedded is not None:
            emit_json(reembedded.to_json())
        return 0
    if reembedded is not None:
        print(f"re-embedded {reembedded.documents} documents with {reembedded.model} (was {reembedded.previous_model})")
    if not results:
        if reembedded is None:
            print("Every document's passages are up to date.")
        return 0
    for r in results:
        if r.status == "file_missing":
            print(f"{r.doc_id}  {r.note}")
        elif r.status == "ocr":
            print(f"read by OCR {r.doc_id}  {r.passages_before} -> {r.passages} passages  {r.title}")
        elif r.status == "incomplete":
            print(f"{r.doc_id}  not all pages were read: add the file again with `pagewise ingest`  {r.title}")
        else:
            print(f"{r.status:<9} {r.doc_id}  {r.passages_before} -> {r.passages} passages  {r.title}")
    return 0
