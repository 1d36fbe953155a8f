"""``pagewise compare OLD NEW``: two versions of a contract compared clause by clause."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.commands._model_args import add_model_flags
from app.services.output import TerminalProgress, add_json_flag, emit_json

if TYPE_CHECKING:
    from summarizer.library.storage.store import Library


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "compare",
        help="compare two versions of a contract clause by clause",
        description="Lines up the clauses of two versions (by number and heading, or by text where the "
        "numbering changed) and lists what was added, removed, moved, changed or only renumbered, with a "
        "word diff inside changed clauses and a mark, with its reason, on changes that usually matter. "
        "No model is used. OLD and NEW are library ids or PDF/Word files (a file not in the library is "
        "added first).",
    )
    parser.add_argument("old", metavar="OLD", help="the earlier version: a DOC_ID (see `pagewise list`) or a file")
    parser.add_argument("new", metavar="NEW", help="the later version: a DOC_ID or a file")
    parser.add_argument("--all", action="store_true", help="also list formatting-only changes (hidden by default)")
    parser.add_argument(
        "--format",
        choices=("md", "docx"),
        help="write the comparison to --out: md (a Markdown report) or docx (a Word redline: each difference a "
        "tracked change by 'Pagewise', material changes in a table at the top)",
    )
    parser.add_argument("--out", type=Path, help="the file to write with --format")
    parser.add_argument(
        "--checklist",
        metavar="NAME",
        help="also set a checklist's items side by side (cuad, or a CSV/YAML checklist file): each item's value "
        "or evidence in both versions from the stored reviews (evidence is found, without a model, where none is "
        "stored), the items whose clause changed marked",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="load the model (--model/--remote, or the configured one) and add its one-sentence reading of each "
        "material change, marked as the model's; the list and its marks stay the fixed rules'",
    )
    add_model_flags(parser)
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def _document_id(library: Library, given: str, progress: TerminalProgress) -> str:
    """A library id as it is, or a file's id (added to the library first when it is not there)."""
    from summarizer.errors import DocumentNotFound
    from summarizer.library.ingest import ingest_path

    path = Path(given).expanduser()
    if path.is_file():
        result = ingest_path(library, path, progress=progress)
        progress.close()
        return result.doc_id
    try:
        return library.document(given).doc_id
    except DocumentNotFound:
        raise DocumentNotFound(
            f"{given} is neither a document of the library nor a file. See `pagewise list`, or give the path "
            "of a PDF or Word file."
        ) from None


def _explanations(
    args: argparse.Namespace, library: Library, comparison: Any, progress: TerminalProgress
) -> dict[int, Any]:
    """The model's sentence per material change (``summarizer.compare.explain``), by change index."""
    from app.commands import _model_args
    from summarizer.compare.explain import explain_material_changes, explanations_by_index

    if not any(change.material and not change.hidden for change in comparison.changes):
        return {}
    with _model_args.open_model(args, library, progress, batch=True) as model:
        found = explain_material_changes(model.engine, comparison, progress=progress)
    progress.close()
    return explanations_by_index(found)


def run(args: argparse.Namespace) -> int:
    from app.services.output import fail
    from summarizer.compare.comparison import DIFFERENT_DOCUMENTS
    from summarizer.compare.library_versions import compare_documents
    from summarizer.compare.redline_docx import write_redline
    from summarizer.compare.report import comparison_json, comparison_markdown
    from summarizer.library.storage.store import Library
    from summarizer.review.checklist_pair import (
        ChecklistRow,
        add_checklist_section,
        checklist_markdown,
        pair_reviews,
        side_by_side,
    )

    if (args.format is None) != (args.out is None):
        return fail(args, "--format and --out go together (e.g. --format md --out changes.md)", 2)
    progress = TerminalProgress(enabled=not args.json)
    with Library.open() as library:
        old_id = _document_id(library, args.old, progress)
        new_id = _document_id(library, args.new, progress)
        comparison = compare_documents(library, old_id, new_id, progress=progress)
        progress.close()
        old, new = library.document(old_id), library.document(new_id)
        rows: list[ChecklistRow] | None = None
        if args.checklist and comparison.verdict != DIFFERENT_DOCUMENTS:
            from summarizer.review.checklist import load_checklist

            checklist = load_checklist(args.checklist)
            old_review, new_review = pair_reviews(library, [old_id, new_id], checklist, progress)
            progress.close()
            rows = side_by_side(comparison, old_review, new_review)
        explanations = _explanations(args, library, comparison, progress) if args.explain else {}
    units = tuple("¶" if d.file_type == "docx" else "p." for d in (old, new))
    markdown = comparison_markdown(comparison, old.title, new.title, (units[0], units[1]), explanations)
    if rows is not None:
        markdown += "\n" + checklist_markdown(rows, old.title, new.title)
    if args.format == "md":
        args.out.write_text(markdown, encoding="utf-8")
    elif args.format == "docx":
        sections = [add_checklist_section(rows, old.title, new.title)] if rows is not None else []
        write_redline(comparison, args.out, old.title, new.title, units=(units[0], units[1]), extra_sections=sections)
    if args.json:
        result = {"old": old_id, "new": new_id} | comparison_json(
            comparison, show_hidden=args.all, explanations=explanations
        )
        if rows is not None:
            result["checklist"] = [row.to_json() for row in rows]
        emit_json(result)
        return 0
    if args.format is None:
        print(markdown)
    else:
        print(" ".join([comparison.message, *comparison.notes, f"Written to {args.out}"]))
    return 0
