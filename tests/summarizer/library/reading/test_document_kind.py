from __future__ import annotations

from summarizer.library.reading.document_kind import CONTRACT, FILING, OTHER, document_kind, kind_scores, numbers_share
from tests.pdf_factory import LOREM

CONTRACT_PAGE = (
    'SUPPLY AGREEMENT\nThis Supply Agreement (this "Agreement") is entered into by and between Acme Inc. and '
    'Beta LLC (each a "Party", together the Parties).\nWHEREAS, Acme manufactures widgets; and WHEREAS, Beta '
    "wishes to buy them;\nNOW, THEREFORE, the parties hereto agree as follows:\nSection 1. Supply. Acme shall "
    "supply the Goods hereunder. " + LOREM + "\nIN WITNESS WHEREOF, the parties have executed this Agreement."
)
FILING_PAGES = [
    "Item 7. Management's Discussion and Analysis\nNet sales for fiscal 2022 rose 5% to $4.2 billion; operating "
    "income was $812 million and net income per diluted share was $2.10. Cash flows from operating activities "
    "were $1.1 billion for the twelve months ended December 31, 2022. Adjusted EBITDA, a non-GAAP measure, rose.",
    "CONSOLIDATED BALANCE SHEETS\n(in millions)\n2022 2021\nCash $ 1,234 $ 1,100\nInventories 812 790\n"
    "Total current assets 3,456 3,210\nTotal assets $ 9,870 $ 9,120\nTotal shareholders' equity 4,400 4,100",
]


def test_a_contract_is_a_contract() -> None:
    assert document_kind([CONTRACT_PAGE] * 3) == CONTRACT


def test_a_report_with_statements_is_a_filing() -> None:
    contract, filing = kind_scores(FILING_PAGES)
    assert filing > 2 * contract
    assert document_kind(FILING_PAGES) == FILING


def test_an_sec_cover_makes_a_filing_even_when_agreements_follow() -> None:
    cover = "UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nWashington, D.C. 20549\nFORM 8-K\nCURRENT REPORT"
    assert document_kind([CONTRACT_PAGE] * 5) == CONTRACT
    assert document_kind([cover, *[CONTRACT_PAGE] * 5]) == FILING
    # The cover only counts on the first pages: a contract quoting the Commission stays a contract.
    assert document_kind([*[CONTRACT_PAGE] * 5, cover]) == CONTRACT


def test_anything_else_takes_the_generic_path() -> None:
    story = "It was a bright cold day in April, and the clocks were striking thirteen. " * 40
    assert document_kind([story] * 4) == OTHER
    assert document_kind([]) == OTHER


def test_numbers_share_counts_figures() -> None:
    assert numbers_share("Inventories 5,622 5,261") == 2 / 3
    assert numbers_share("Retained earnings (92) 12.5% 4,466") == 3 / 5
    assert numbers_share("") == 0.0


def test_an_agreement_that_names_the_commission_is_not_a_cover() -> None:
    page = (
        "AGENCY AGREEMENT\nThe Company has filed with the Securities and Exchange Commission a registration "
        "statement on Form S-1 for the offering. " + CONTRACT_PAGE
    )
    assert document_kind([page, CONTRACT_PAGE]) == CONTRACT
