"""The Word redline: its tracked changes read back from the written .docx match the comparison
(accepting them all gives the new version, rejecting them all the old one), by the author
"Pagewise" with a date, and the material changes' table at the top."""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from pathlib import Path

from lxml import etree

from summarizer.compare.comparison import Comparison, compare_pages
from summarizer.compare.redline_docx import AUTHOR, DELETE, EQUAL, INSERT, text_segments, write_redline
from tests.summarizer.compare.contract_text import ARTICLES, contract_pages, edited

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
WHEN = dt.datetime(2026, 12, 5, 17, 0, tzinfo=dt.UTC)


def _negotiated() -> Comparison:
    """A period changed, words inserted, a clause removed, a clause moved and a clause added."""
    articles = edited({"thirty (30)": "sixty (60)", "shall not exceed": "shall not in any event exceed"})
    label, title, sections = articles[1]
    taxes = sections[2]
    articles[1] = (label, title, [sections[0]])
    notices = ("3.5", "Notices", "Notices shall be given in writing to the addresses set out in the order form.")
    articles[2] = (articles[2][0], articles[2][1], [*articles[2][2], ("3.4", "Taxes", taxes[2]), notices])
    return compare_pages(contract_pages(), contract_pages(articles))


def _body(path: Path) -> etree._Element:
    with zipfile.ZipFile(path) as docx:
        return etree.fromstring(docx.read("word/document.xml")).find(f"{W}body")


def _redline_paragraphs(path: Path) -> list[etree._Element]:
    """The paragraphs after the "Redline" heading."""
    paragraphs = list(_body(path).iter(f"{W}p"))
    texts = ["".join(p.itertext()) for p in paragraphs]
    return paragraphs[texts.index("Redline") + 1 :]


def _mark(paragraph: etree._Element) -> str | None:
    """ "ins"/"del" when the paragraph mark itself is a tracked change."""
    marks = paragraph.find(f"{W}pPr/{W}rPr")
    if marks is None:
        return None
    return next((m.tag.removeprefix(W) for m in marks if m.tag in (f"{W}ins", f"{W}del")), None)


def _read(paragraph: etree._Element, *, accept: bool) -> str:
    parts = []
    for run in paragraph.iter(f"{W}r"):
        parent = run.getparent().tag  # type: ignore[union-attr]
        if (accept and parent == f"{W}del") or (not accept and parent == f"{W}ins"):
            continue
        parts += [t.text or "" for t in run if t.tag in (f"{W}t", f"{W}delText")]
    return "".join(parts)


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_accepting_every_change_gives_the_new_version_and_rejecting_them_the_old(tmp_path: Path) -> None:
    comparison = _negotiated()
    path = tmp_path / "redline.docx"
    write_redline(comparison, path, "old", "new", when=WHEN)
    paragraphs = _redline_paragraphs(path)
    accepted = [_read(p, accept=True) for p in paragraphs if _mark(p) != "del"]
    rejected = [_read(p, accept=False) for p in paragraphs if _mark(p) != "ins"]
    assert [_squeezed(t) for t in accepted] == [_squeezed(c.text) for c in comparison.new_clauses]
    assert [_squeezed(t) for t in rejected] == [_squeezed(c.text) for c in comparison.old_clauses]


def test_the_tracked_changes_are_the_comparisons_edits_by_pagewise(tmp_path: Path) -> None:
    path = tmp_path / "redline.docx"
    write_redline(_negotiated(), path, "old", "new", when=WHEN)
    body = _body(path)
    inserted = ["".join(e.itertext()) for e in body.iter(f"{W}ins") if len(e)]
    deleted = ["".join(e.itertext()) for e in body.iter(f"{W}del") if len(e)]
    assert [t.strip() for t in deleted] == [
        "thirty",
        "30",
        "2.2 Late Payment. Late amounts bear interest at 1.5% per month until they are paid in full.",
        "2.3 Taxes. Each party shall bear its own taxes arising out of or in connection with this Agreement.",
    ]
    assert [t.strip() for t in inserted] == [
        "sixty",
        "60",
        "in any event",
        "3.4 Taxes. Each party shall bear its own taxes arising out of or in connection with this Agreement.",
        "3.5 Notices. Notices shall be given in writing to the addresses set out in the order form.",
    ]
    changes = [*body.iter(f"{W}ins"), *body.iter(f"{W}del")]
    assert {e.get(f"{W}author") for e in changes} == {AUTHOR}
    assert {e.get(f"{W}date") for e in changes} == {"2026-12-05T17:00:00Z"}
    ids = [e.get(f"{W}id") for e in changes]
    assert len(set(ids)) == len(ids), "each tracked change has its own id"
    # The removed clause's paragraph mark is deleted with it, the added clause's inserted with it.
    marks = {" ".join("".join(p.itertext()).split()[:3]): _mark(p) for p in _redline_paragraphs(path)}
    assert marks["2.2 Late Payment."] == "del" and marks["3.5 Notices. Notices"] == "ins"
    assert marks["2.1 Fees. Buyer"] is None


def test_the_material_changes_table_comes_first_with_reasons(tmp_path: Path) -> None:
    path = tmp_path / "redline.docx"
    write_redline(_negotiated(), path, "old", "new", when=WHEN)
    table = _body(path).find(f"{W}tbl")
    rows = [["".join(c.itertext()) for c in row.iter(f"{W}tc")] for row in table.iter(f"{W}tr")]  # type: ignore[union-attr]
    assert rows[0] == ["Clause (old → new)", "Change", "Why it matters", "What changed"]
    assert rows[1][:3] == ["2.1 Fees (p.\u00a01) → 2.1 Fees (p.\u00a01)", "Changed", "a period changed"]
    assert rows[1][3] == "thirty → sixty; 30 → 60"
    assert [r[2] for r in rows[2:]] == ["a clause removed", "a clause added"]


def test_a_renumbered_clause_has_its_old_number_deleted_and_its_new_one_inserted(tmp_path: Path) -> None:
    articles = [ARTICLES[0], ("ARTICLE II", "INTERIM", [("2.1", "Interim", "Nothing here changes the others.")])]
    for label, title, sections in ARTICLES[1:]:
        number = {"ARTICLE II": "III", "ARTICLE III": "IV"}[label]
        articles.append((f"ARTICLE {number}", title, [(str(int(n[0]) + 1) + n[1:], h, t) for n, h, t in sections]))
    path = tmp_path / "redline.docx"
    write_redline(compare_pages(contract_pages(), contract_pages(articles)), path, "old", "new", when=WHEN)
    fees = next(p for p in _redline_paragraphs(path) if "Fees" in "".join(p.itertext()))
    assert "".join(fees.find(f"{W}del").itertext()) == "2.1 "  # type: ignore[union-attr]
    assert "".join(fees.find(f"{W}ins").itertext()) == "3.1 "  # type: ignore[union-attr]
    assert _read(fees, accept=True).startswith("3.1 Fees. Buyer shall pay")


def test_text_segments_keep_each_versions_spacing() -> None:
    segments = text_segments("pay within thirty (30) days.", "pay within sixty (60) days.")
    assert [(s.op, s.text) for s in segments] == [
        (EQUAL, "pay within "),
        (DELETE, "thirty "),
        (INSERT, "sixty "),
        (EQUAL, "("),
        (DELETE, "30"),
        (INSERT, "60"),
        (EQUAL, ") days."),
    ]


def test_different_documents_write_the_verdict_and_no_redline(tmp_path: Path) -> None:
    other = [(1, "\n".join(f"{n}. Garden{n}. Water the tomatoes at dawn in week {n}.\n" for n in range(1, 9)))]
    path = tmp_path / "redline.docx"
    write_redline(compare_pages(contract_pages(), other), path, "old", "other", when=WHEN)
    text = "".join(_body(path).itertext())
    assert "different documents" in text and "Redline" not in text.replace("Redline:", "")
    assert next(_body(path).iter(f"{W}ins"), None) is None
