"""How ``pagewise ingest`` prints a document's result, one file at a time or within a batch
(``ingest``, ``_ingest_batch``): its status, id, title, folder and size, then its warnings."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from summarizer.library.ingest import IngestResult


def print_result(result: IngestResult, folder: str = "") -> None:
    unit = "paragraphs" if result.file_type == "docx" else "pages"
    extra = "".join(
        f", {count} {name}{'s' if count != 1 else ''}"
        for count, name in ((result.tracked_changes, "tracked change"), (result.comments, "comment"))
        if count
    )
    where = f"  [{folder}]" if folder else ""
    print(
        f"{result.status:<9} {result.doc_id}  {result.title}{where}  "
        f"({result.pages} {unit}, {result.passages} passages{extra})"
    )
    for warning in result.warnings:
        print(f"          warning: {warning}")
