"""``pagewise review DOC_ID...``: a checklist's typed answers (stored, reused), or with
``--evidence-only`` where each item's clause is; ``--item`` records the reviewer's correction."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands._model_args import add_model_flags
from app.services.output import TerminalProgress, add_json_flag, emit_json

if TYPE_CHECKING:
    from summarizer.library.storage.store import Library
    from summarizer.review.checklist import Checklist
    from summarizer.review.evidence import DocumentReview


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "review",
        help="review contracts against a checklist (CUAD's 41 clause categories by default)",
        description="For each checklist item, a typed answer from the language model (which reads the whole "
        "contract for it) with page-linked evidence and playbook flags, stored in the library as each item "
        "is done: the same review again is read back without the model, and a stopped one continues. "
        "--evidence-only finds the passages where each clause is without a model. With --item, record the "
        "reviewer's correction of one cell instead (--set-value, --accept, --note); exports carry it.",
    )
    parser.add_argument("doc_ids", nargs="*", metavar="DOC_ID", help="the contracts (see `pagewise list`)")
    parser.add_argument(
        "--all",
        action="store_true",
        help="review every ready contract in the library (a data room): each contract is stored as it is done, "
        "a second run skips what is stored and continues where the first stopped; with a model the engine (a "
        "server's slots) is kept busy across contracts, and --json writes a progress line per contract",
    )
    parser.add_argument("--checklist", default="cuad", help="cuad, or a CSV/YAML checklist file (docs/checklists.md)")
    parser.add_argument(
        "--side",
        metavar="PARTY",
        default="",
        help="the party you represent, as the contract names it (e.g. Distributor; several names with '/'): "
        "flags that depend on the side use it",
    )
    parser.add_argument(
        "--evidence-only", action="store_true", help="find each item's evidence without a language model"
    )
    parser.add_argument(
        "--fresh", action="store_true", help="ask the model every item again instead of reading stored answers"
    )
    parser.add_argument(
        "--format",
        choices=("md", "csv", "xlsx", "docx"),
        help="write the review as Markdown, CSV, an Excel workbook (a row per contract) or a Word memo (with --out)",
    )
    parser.add_argument("--out", type=Path, help="the file to write with --format")
    correction = parser.add_argument_group("the reviewer's correction of one cell (one DOC_ID, no model)")
    correction.add_argument("--item", metavar="ITEM_ID", help="the checklist item to correct (e.g. governing_law)")
    correction.add_argument("--set-value", metavar="VALUE", help="the right value (an empty one removes it)")
    correction.add_argument(
        "--accept", action=argparse.BooleanOptionalAction, help="mark the cell accepted (--no-accept: not)"
    )
    correction.add_argument("--note", help="the reviewer's note on the cell")
    add_model_flags(parser)
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def ready_contracts(library: Library) -> list[str]:
    """Every document of the library that can be reviewed (added whole, with text), oldest first."""
    return [r.doc_id for r in library.documents() if r.state == "ready" and r.passages > 0]


def correct(args: argparse.Namespace, library: Library, checklist: Checklist) -> int:
    from app.services.output import fail
    from summarizer.review.item_answers import stored_review
    from summarizer.review.store import UNCHANGED, record_correction

    if len(args.doc_ids) != 1:
        return fail(args, "--item corrects one document's cell: give one DOC_ID", 2)
    if args.set_value is None and args.accept is None and args.note is None:
        return fail(args, "--item needs --set-value, --accept/--no-accept or --note", 2)
    (doc_id,) = args.doc_ids
    if args.item not in {item.id for item in checklist.items}:
        ids = ", ".join(item.id for item in checklist.items)
        return fail(args, f"The {checklist.name} checklist has no item {args.item!r}. Its items: {ids}", 2)
    shown = stored_review(library, doc_id, checklist)
    model_value = next((i.value for i in shown.items if i.item_id == args.item), None) if shown else None
    saved = record_correction(
        library,
        doc_id,
        checklist,
        args.item,
        value=UNCHANGED if args.set_value is None else args.set_value,
        accepted=UNCHANGED if args.accept is None else args.accept,
        note=UNCHANGED if args.note is None else args.note,
        model_value=model_value,
    )
    if args.json:
        emit_json({"doc_id": doc_id, "checklist": checklist.name, "item_id": args.item, "correction": saved.to_json()})
    else:
        state = ", ".join(
            part
            for part in (
                f"value {saved.value!r}" if saved.value is not None else "the model's value",
                "accepted" if saved.accepted else "not accepted",
                f"note {saved.note!r}" if saved.note else "",
            )
            if part
        )
        print(f"{doc_id} {args.item}: {state}.")
    return 0


def reviews_with_model(
    args: argparse.Namespace, library: Library, checklist: Checklist, progress: TerminalProgress
) -> list[DocumentReview]:
    """Stored answers when every item is stored (the model is not even loaded), else the data
    room's review (``summarizer.review.room_review``): the engine kept busy across contracts,
    each item stored as it is done, the contracts reviewed before skipped. With --json, a line
    per contract finished (``{"progress": ...}``) and one for the job (``{"room": ...}``)."""
    from app.commands._model_args import model_path, open_model, remote_url
    from summarizer.llm.model_identity import model_sha256
    from summarizer.review.evidence import check_reviewable
    from summarizer.review.item_answers import stored_reviews
    from summarizer.review.room_review import RoomStatus, review_room

    check_reviewable(library, args.doc_ids)  # a clear error before loading a model
    if not args.fresh and not remote_url(args):
        model_file = model_sha256(library, model_path(args))
        stored = stored_reviews(library, args.doc_ids, checklist, model_file, args.side)
        if stored is not None:
            return stored
    try:
        model = open_model(args, library, progress, batch=True)
    finally:
        progress.close()
    reviews: dict[str, DocumentReview] = {}
    shown: list[int] = [-1]

    def status_line(status: RoomStatus) -> None:
        if args.json and (status.contracts_done != shown[0] or status.paused):
            shown[0] = status.contracts_done
            emit_json({"progress": status.to_json()})

    def keep(review: DocumentReview) -> None:
        reviews[review.doc_id] = review

    with model:
        result = review_room(
            library,
            model.engine,
            args.doc_ids,
            checklist,
            progress,
            model=model.sha256,
            fresh=args.fresh,
            side=args.side,
            on_status=status_line,
            on_review=keep,
        )
    if args.json:
        emit_json({"room": result.to_json()})
    elif result.skipped:
        progress.close()
        print(f"{result.skipped} of {result.contracts} contracts were reviewed before by this model: not read again.")
    return [reviews[doc_id] for doc_id in args.doc_ids]


def run(args: argparse.Namespace) -> int:
    from app.services.output import fail
    from summarizer.library.storage.store import Library
    from summarizer.review.checklist import load_checklist
    from summarizer.review.evidence_batch import review_evidence_stored
    from summarizer.review.export import (
        absent_label,
        flag_word,
        page_label,
        review_marks,
        status_word,
        to_csv,
        to_markdown,
    )
    from summarizer.review.playbook import flag_results
    from summarizer.review.store import attach_corrections

    if bool(args.format) != bool(args.out):
        return fail(args, "--format and --out go together (e.g. --format md --out review.md)", 2)
    if bool(args.all) == bool(args.doc_ids):
        return fail(args, "give the contracts' DOC_IDs (see `pagewise list`) or --all, not both", 2)
    checklist = load_checklist(args.checklist)
    progress = TerminalProgress(enabled=not args.json)
    with Library.open() as library:
        if args.all:
            args.doc_ids = ready_contracts(library)
            if not args.doc_ids:
                return fail(args, "The library has no contracts ready to review. Add some with `pagewise ingest`.", 1)
        if args.item:
            return correct(args, library, checklist)
        if args.evidence_only:
            # each contract is stored as it is done: a stopped run continues (summarizer/review/evidence_batch.py)
            reviews = review_evidence_stored(
                library, args.doc_ids, checklist, progress, side=args.side, fresh=args.fresh
            )
            for review in reviews:
                attach_corrections(library, review)
                flag_results(checklist.items, review.items, review.side)
        else:
            reviews = reviews_with_model(args, library, checklist, progress)
    progress.close()
    if args.format == "docx":
        from summarizer.review.memo_docx import write_docx

        write_docx(reviews, args.out, model="" if args.evidence_only else Path(args.model or "").name)
    elif args.format == "xlsx":
        from summarizer.review.export_xlsx import write_xlsx

        write_xlsx(reviews, args.out, model="" if args.evidence_only else Path(args.model or "").name)
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
        stored = sum(item.cached for item in review.items)
        note = f", {stored} read back from the library" if stored else ""
        side = f", for {review.side}" if review.side else ""
        print(f"{review.title} ({review.doc_id}) — {checklist.name} checklist{side}, {len(review.items)} items{note}")
        for item in review.items:
            where = page_label(item) or "no passage"
            marks = review_marks(item)
            if item.status == "evidence" and not item.corrected:
                print(f"  {item.category:<36} {where}{marks}")
                continue
            if item.status == "absent" and not item.corrected:
                print(f"  {item.category:<36} {absent_label(item)}{marks}")
                continue
            value = item.shown_value or ""
            flag = f" [{flag_word(item)}]" if flag_word(item) else ""
            print(f"  {item.category:<36} {status_word(item):<13} {value[:60]}{flag}{marks}  ({where})")
    return 0
