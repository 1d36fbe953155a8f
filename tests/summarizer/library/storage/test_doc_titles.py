"""The titles a list of documents shows, and the likeliest other version (the walk of 2026-12-06,
findings 7 and 8)."""

from __future__ import annotations

from summarizer.library.storage.doc_titles import likely_versions, shown_titles
from summarizer.library.storage.store import DocumentRecord


def record(doc_id: str, title: str, path: str) -> DocumentRecord:
    return DocumentRecord(doc_id, path, title, 3, 9, "sha", "ready", "ready", [], [], [])


NDA_ZIP = record("a", "Example Cover Page for Bonterms Mutual NDA", "/room/bonterms-nda.docx")
NDA_TRACKED = record("b", "Example Cover Page for Bonterms Mutual NDA", "/room/nda-tracked-changes.docx")
LEASE = record("c", "Office Lease", "/room/lease.pdf")
PSA_V1 = record("d", "Professional Services Agreement", "/drafts/psa-v1.docx")
PSA_V2 = record("e", "Professional Services Agreement (v2, counterparty draft)", "/drafts/psa-v2.docx")
PSA_V2_PDF = record("f", "Professional Services Agreement (v2, counterparty draft)", "/drafts/psa-v2.pdf")


def test_documents_with_the_same_title_show_their_file_names() -> None:
    titles = shown_titles([NDA_ZIP, NDA_TRACKED, LEASE])
    assert titles == {
        "a": "Example Cover Page for Bonterms Mutual NDA — bonterms-nda.docx",
        "b": "Example Cover Page for Bonterms Mutual NDA — nda-tracked-changes.docx",
        "c": "Office Lease",  # a title of its own stays as it is
    }


def test_the_likeliest_other_version_comes_first_and_each_can_be_told_apart() -> None:
    others = likely_versions(PSA_V2, [LEASE, NDA_ZIP, PSA_V1, PSA_V2, PSA_V2_PDF])
    assert [doc_id for doc_id, _ in others][:2] == ["f", "d"]  # not the library's first (the lease)
    shown = dict(others)
    assert shown["f"].endswith("— psa-v2.pdf") and shown["d"] == "Professional Services Agreement"
