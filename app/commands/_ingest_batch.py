"""``pagewise ingest FOLDER/`` (or a .zip, or ``--resume``): a batch with one progress over the set.

Text: a bar over the files (files done, pages per second, time left), a line per file, and the
summary (added, skipped as duplicates, failed with reasons, not documents). ``--json``: one object
per event: ``{"event": "progress", ...}`` as each file starts, the file's result (as for one file,
with ``path``, ``folder`` and ``outcome``) or ``{"error", "path"}``, and ``{"event": "summary", ...}``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.commands._ingest_results import print_result
from app.services.output import TerminalProgress, emit_json, fail
from inference.progress import Progress
from summarizer.errors import DiskFull
from summarizer.library.batches.batch_store import BatchFile, BatchSummary, batch_summary, unfinished_batch
from summarizer.library.batches.run_batch import BatchProgress, run_batch, start_batch
from summarizer.library.ingest import IngestOptions, IngestResult


def run_batch_command(args: argparse.Namespace, options: IngestOptions) -> int:
    from summarizer.library.storage.store import Library
    from summarizer.library.vectors.reembed import model_notice

    bar = TerminalProgress(enabled=not args.json)

    def progress(p: Progress) -> None:
        if args.json:
            if isinstance(p, BatchProgress):
                emit_json(
                    {
                        "event": "progress",
                        "files_done": p.done,
                        "files_total": p.total,
                        "file": p.message,
                        "pages": p.pages,
                        "pages_per_s": round(p.rate, 2) if p.rate else None,
                        "eta_s": round(p.eta_s, 1) if p.eta_s is not None else None,
                    }
                )
            return
        rate = f" · {p.rate:.1f} pages/s" if p.rate else ""
        eta = _left(p.eta_seconds())
        bar(Progress(p.stage, p.done, p.total, f"{p.message}{rate}" + (f" · {eta}" if eta else ""), p.rate))

    def on_file(file: BatchFile, outcome: str, reason: str, result: IngestResult | None) -> None:
        if result is None:
            if args.json:
                emit_json({"error": reason, "path": file.path, "folder": file.folder})
            else:
                bar.close()
                sys.stderr.write(f"pagewise: {reason}\n")
            return
        if args.json:
            emit_json({**result.to_json(), "path": file.path, "folder": file.folder, "outcome": outcome})
        else:
            bar.close()
            print_result(result, file.folder)

    with Library.open() as library:
        if args.paths:
            batch_id = start_batch(library, [Path(p) for p in args.paths])
        else:
            found = unfinished_batch(library)
            if found is None:
                return fail(args, "There is no unfinished batch to continue: name the folder to add.", 2)
            batch_id = found
        before = batch_summary(library, batch_id)
        if before.done and not args.json:
            print(f"Continuing: {before.done} of {before.total} files were done before.")
        try:
            summary = run_batch(library, batch_id, options, progress, on_file=on_file)
        except DiskFull as error:
            bar.close()
            summary = batch_summary(library, batch_id)
            _print_summary(args, summary)
            return fail(
                args, f"{error} Then run `pagewise ingest --resume` to add the {summary.pending} files left.", 1
            )
        finally:
            bar.close()
        notice = model_notice(library)
    _print_summary(args, summary)
    if notice:
        sys.stderr.write(f"pagewise: {notice}\n")
    return 1 if summary.failed else 0


def _left(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return f"~{seconds:.0f} s left" if seconds < 90 else f"~{seconds / 60:.0f} min left"


def _print_summary(args: argparse.Namespace, summary: BatchSummary) -> None:
    if args.json:
        emit_json(summary.to_json())
        return
    print(f"Batch {summary.batch_id}: {summary.describe()} ({summary.pages} pages added).")
    for path, reason in summary.failed:
        print(f"  failed:    {path}: {reason}")
    for path, reason in summary.skipped:
        print(f"  not added: {path}: {reason}")
