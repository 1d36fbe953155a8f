"""``pagewise review DOC_ID... --evidence-only``: where each checklist item's clause is."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.commands._model_args import add_model_flags
from app.output import TerminalProgress, add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "review",
        help="review contracts against a checklist (CUAD's 41 clause categories by default)",
        description="For each checklist item, a typed answer from the language model (which reads the whole "
        "contract for it) with page-linked evidence and playbook flags; --evidence-only finds the passages "
        "where each clause is without a model.",
    )
    parser.add_argument("doc_ids", nargs="+", metavar="DOC_ID", help="the contracts (see `pagewise list`)")
    parser.add_argument("--checklist", default="cuad", help="cuad, or a CSV/YAML checklist file (docs/checklists.md)")
    parser.add_argument(
        "--evidence-only", action="store_true", help="find each item's evidence without a language model"
    )
    parser.add_argument(
        "--format", choices=("md", "csv", "docx"), help="write the review as Markdown, CSV or a Word memo (with --out)"
    )
    parser.add_argument("--out", type=Path, help="the file to write with --format")
    add_model_flags(parser)
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from app.output import fail
    from summarizer.checklist import load_checklist
    from summarizer.library import Library
    from summarizer.review import review_evidence
    from summarizer.review_export import page_label, to_csv, to_markdown

    if bool(args.format) != bool(args.out):
        return fail(args, "--format and --out go together (e.g. --format md --out review.md)", 2)
    checklist = load_checklist(args.checklist)
    progress = TerminalProgress(enabled=not args.json)
    with Library.open() as library:
        if args.evidence_only:
            reviews = review_evidence(library, args.doc_ids, checklist, progress)
        else:
            from app.commands._model_args import open_model
            from summarizer.review import check_reviewable
            from summarizer.review_answers import review_with_model

            check_reviewable(library, args.doc_ids)  # a clear error before loading a model
            try:
                model = open_model(args, library, progress, batch=True)
            finally:
                progress.close()
            with model:
                reviews = review_with_model(library, model.engine, args.doc_ids, checklist, progress)
    progress.close()
    if args.format == "docx":
        from summarizer.review_docx import write_docx

        write_docx(reviews, args.out, model="" if args.evidence_only else Path(args.model or "").name)
    elif args.out:
        text = to_markdown(reviews) if args.format == "md" else to_csv(reviews)
        args.out.write_text(text, encoding="utf-8")
    if args.json:
        emit_json({"reviews": [r.to_json() for r in reviews]})
        return 0
    if args.out:
        print(f"Wrote {args.out} ({len(checklist.items)} items x {len(reviews)} contracts).")
        return 0
    for review in reviews:
        print(f"{review.title} ({review.doc_id}) — {checklist.name} checklist, {len(review.items)} items")
        for item in review.items:
            where = page_label(item) or "no passage"
            if item.status == "evidence":
                print(f"  {item.category:<36} {where}")
                continue
            value = item.value or item.answer or ""
            flag = f" [{item.flag}]" if item.flag else ""
            print(f"  {item.category:<36} {item.status:<9} {value[:60]}{flag}  ({where})")
    return 0
