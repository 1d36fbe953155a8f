"""Scoring python-redlines' output: each paragraph holding a tracked change counted against its
clause, a paragraph that starts with a clause marker against its own (no .NET engine needed: the
redline here is written by hand)."""

from __future__ import annotations

from pathlib import Path

from lab.eval.known_edits import clause_key
from lab.eval.redlines_baseline import changed_clause_keys, paragraph_units
from tests.docx_factory import para, write_docx

FEES = "2.1 Fees. Buyer shall pay the fees within thirty (30) days of each invoice."
AUDIT = "2.2 Audit Rights. Each party may audit the records of the other party once a year."
TAXES = "2.3 Taxes. Each party shall bear its own taxes arising out of this Agreement."
NOTE = "The parties shall meet once a quarter to review the performance of this Agreement."


def test_a_paragraph_starting_with_a_marker_inside_another_clause_is_its_own_clause() -> None:
    fees_and_audit, taxes_and_note = f"{FEES}\n\n{AUDIT}", f"{TAXES}\n\n{NOTE}"
    units = paragraph_units([fees_and_audit, taxes_and_note])
    # A clause's first paragraph keeps the whole clause's key, as the truth makes it.
    assert [key for key, _ in units] == [
        clause_key(fees_and_audit),
        clause_key(AUDIT),
        clause_key(taxes_and_note),
        clause_key(taxes_and_note),
    ]


def test_changed_paragraphs_are_counted_against_their_clauses(tmp_path: Path) -> None:
    inserted = (
        '<w:p><w:pPr><w:rPr><w:ins w:id="1" w:author="r" w:date="2026-01-01T00:00:00Z"/></w:rPr></w:pPr>'
        '<w:ins w:id="2" w:author="r" w:date="2026-01-01T00:00:00Z">'
        f'<w:r><w:t xml:space="preserve">{AUDIT}</w:t></w:r></w:ins></w:p>'
    )
    period = (
        '<w:p><w:r><w:t xml:space="preserve">2.1 Fees. Buyer shall pay the fees within </w:t></w:r>'
        '<w:del w:id="3" w:author="r" w:date="2026-01-01T00:00:00Z"><w:r><w:delText>thirty (30)</w:delText>'
        '</w:r></w:del><w:ins w:id="4" w:author="r" w:date="2026-01-01T00:00:00Z"><w:r><w:t>sixty (60)</w:t>'
        '</w:r></w:ins><w:r><w:t xml:space="preserve"> days of each invoice.</w:t></w:r></w:p>'
    )
    redline = write_docx(tmp_path / "redline.docx", period + inserted + para(TAXES))
    old = [FEES, TAXES]
    new = [f"{FEES.replace('thirty (30)', 'sixty (60)')}\n\n{AUDIT}", TAXES]
    # The period's paragraph counts against the old 2.1 and the new one; the inserted clause against itself.
    assert changed_clause_keys(old, new, redline) == {clause_key(FEES), clause_key(new[0]), clause_key(AUDIT)}
