"""``pagewise ingest PATH...``: add PDFs (or folders of PDFs, or .zip archives of them) to the library.

A folder or a zip is added as a batch (``summarizer.library.batches``): one progress over the whole
set, the folder inside it kept per document, a summary at the end; a batch that was stopped
continues with ``--resume`` or by running the same command again."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.commands._ingest_results import print_result
from app.services.output import TerminalProgress, add_json_flag, emit_json
from summarizer.library.reading.file_type import is_document_name


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("ingest", help="add PDF files (or folders of them) to the library")
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="PDF or Word (.docx) files, folders of them, or .zip archives"
    )
    parser.add_argument(
        "--resume", action="store_true", help="continue the last batch (a folder or zip) that was not finished"
    )
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


def _is_batch(path: Path) -> bool:
    return path.is_dir() or path.suffix.lower() == ".zip"


def run(args: argparse.Namespace) -> int:
    from inference.errors import PagewiseError
    from summarizer.library.cutting.passages import DEFAULT_MAX_TOKENS
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.store import Library
    from summarizer.library.vectors.reembed import model_notice

    options = IngestOptions(password=args.password, max_tokens=args.max_tokens or DEFAULT_MAX_TOKENS, ocr=args.ocr)
    if args.resume or any(_is_batch(Path(p).expanduser()) for p in args.paths):
        from app.commands._ingest_batch import run_batch_command

        return run_batch_command(args, options)
    if not args.paths:
        from app.services.output import fail

        return fail(args, "Name the files or folders to add (or --resume to continue the last batch).", 2)
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
                print_result(result)
        notice = model_notice(library)
    if notice:
        sys.stderr.write(f"pagewise: {notice}\n")
    return 1 if failures else 0
