"""``pagewise ingest PATH...``: add PDFs (or folders of PDFs) to the library."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.services.output import TerminalProgress, add_json_flag, emit_json
from summarizer.library.reading.file_type import is_document_name


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("ingest", help="add PDF files (or folders of them) to the library")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="PDF or Word (.docx) files, or folders")
    parser.add_argument("--password", help="password of encrypted PDFs")
    parser.add_argument("--max-tokens", type=int, default=None, help="passage size in embedding tokens")
    parser.add_argument(
        "--ocr",
        choices=("auto", "always", "never"),
        default="auto",
        help="read scanned pages by OCR: auto (pages without usable text that draw an image, the default), "
        "always (also pages with text that draw an image), never",
    )
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def expand(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            # PDFs and Word documents; Word's lock files (~$name.docx) are skipped.
            files.extend(sorted(p for p in path.rglob("*") if is_document_name(p.name) and p.is_file()))
        else:
            files.append(path)
    return files


def run(args: argparse.Namespace) -> int:
    from inference.errors import PagewiseError
    from summarizer.library.cutting.passages import DEFAULT_MAX_TOKENS
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.store import Library
    from summarizer.library.vectors.reembed import model_notice

    options = IngestOptions(password=args.password, max_tokens=args.max_tokens or DEFAULT_MAX_TOKENS, ocr=args.ocr)
    failures = 0
    progress = TerminalProgress(enabled=not args.json)
    with Library.open() as library:
        for path in expand(args.paths):
            try:
                result = ingest_path(library, path, options, progress=progress)
            except PagewiseError as error:
                # One bad file does not stop the others.
                failures += 1
                progress.close()
                if args.json:
                    emit_json({"error": str(error), "path": str(path)})
                else:
                    sys.stderr.write(f"pagewise: {error}\n")
                continue
            progress.close()
            if args.json:
                emit_json(result.to_json())
            else:
                unit = "paragraphs" if result.file_type == "docx" else "pages"
                extra = "".join(
                    f", {count} {name}{'s' if count != 1 else ''}"
                    for count, name in ((result.tracked_changes, "tracked change"), (result.comments, "comment"))
                    if count
                )
                line = (
                    f"{result.status:<9} {result.doc_id}  {result.title}  "
                    f"({result.pages} {unit}, {result.passages} passages{extra})"
                )
                print(line)
                for warning in result.warnings:
                    print(f"          warning: {warning}")
        notice = model_notice(library)
    if notice:
        sys.stderr.write(f"pagewise: {notice}\n")
    return 1 if failures else 0
