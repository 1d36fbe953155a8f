"""A document's clauses as units: labels as a lawyer cites them, and a PDF's clauses without its
page furniture (issue 56, item 2)."""

from __future__ import annotations

from summarizer.library.cutting.clause_units import document_clauses, pdf_clauses

NESTED = """5. PAYMENT

5.2 Fees. The Customer shall pay the fees as follows:

(a) Monthly. The monthly fee is due on the first day of each month.

(i) Late. A late fee is owed after ten days.

(b) Yearly. The yearly fee is due in January.

RECITALS

(c) A list item under a heading without a number.
"""


def test_an_item_is_labelled_with_the_numbers_it_sits_under() -> None:
    labels = [c.display_label for c in document_clauses([(1, NESTED)])]
    assert "5.2(a) Monthly" in labels
    assert "5.2(a)(i) Late" in labels
    assert "5.2(b) Yearly" in labels
    assert "(c)" in labels  # nothing numbered above it
    assert "5.2 Fees" in labels


def _page(header: str, body: list[str], footer: str) -> str:
    return "\n".join([header, *body, footer])


def test_a_pdf_s_clauses_leave_out_its_running_header_footer_and_page_number() -> None:
    pages = [
        (1, _page("CONFIDENTIAL TREATMENT REQUESTED", ["1.1 Term. This Agreement runs for", "three years"], "1")),
        (2, _page("CONFIDENTIAL TREATMENT REQUESTED", ["and renews each year.", "1.2 Fees. Fees are due."], "2")),
        (3, _page("CONFIDENTIAL TREATMENT REQUESTED", ["1.3 Notices. Notices are in writing."], "3")),
    ]
    texts = [c.text for c in pdf_clauses(pages)]
    assert texts == [
        "1.1 Term. This Agreement runs for three years and renews each year.",
        "1.2 Fees. Fees are due.",
        "1.3 Notices. Notices are in writing.",
    ]
    # As they were read before: the header a clause of its own, the page number in the clause.
    assert any("CONFIDENTIAL" in c.text for c in document_clauses(pages))
