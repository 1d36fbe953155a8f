from __future__ import annotations

from summarizer.library.cutting.clauses import HeadingTracker
from summarizer.library.cutting.filing_headings import (
    LEVEL_ITEM,
    LEVEL_STATEMENT,
    LEVEL_SUBHEADING,
    filing_starts,
    is_statement_heading,
)
from summarizer.library.cutting.normalize import normalize

STATEMENT_PAGE = """PART II
Item 8. Financial Statements and Supplementary Data
CONSOLIDATED BALANCE SHEETS
MAY 31,
(Dollars in millions) 2019 2018
ASSETS
Current assets:
Cash and equivalents $ 4,466 $ 4,249
Total current assets 16,525 15,134
TOTAL ASSETS $ 23,717 $ 22,536
LIABILITIES AND SHAREHOLDERS' EQUITY
Total current liabilities 7,866 6,040
"""


def starts(raw: str) -> list[tuple[int, str, str]]:
    return [(c.level, c.label, c.title) for c in filing_starts(normalize(raw), raw)]


def test_parts_items_statements_and_their_units() -> None:
    found = starts(STATEMENT_PAGE)
    assert found[:3] == [
        (0, "PART II", ""),
        (LEVEL_ITEM, "Item 8.", "Financial Statements and Supplementary Data"),
        (LEVEL_STATEMENT, "", "CONSOLIDATED BALANCE SHEETS (Dollars in millions)"),
    ]
    titles = [title for _, _, title in found]
    # Capitals inside the statement are its parts; a row of figures is not a heading.
    assert (LEVEL_SUBHEADING, "", "ASSETS") in found
    assert not any("TOTAL ASSETS" in t for t in titles)
    assert not any(t.startswith("Cash") for t in titles)


def test_the_heading_path_carries_the_statement_under_its_item() -> None:
    norm = normalize(STATEMENT_PAGE)
    tracker = HeadingTracker(preamble=False)
    paths = [tracker.enter(c, 1) for c in filing_starts(norm, STATEMENT_PAGE)]
    assert paths[2] == (
        "PART II",
        "Item 8. Financial Statements and Supplementary Data",
        "CONSOLIDATED BALANCE SHEETS (Dollars in millions)",
    )
    assert paths[-1][-2:] == (
        "CONSOLIDATED BALANCE SHEETS (Dollars in millions)",
        "LIABILITIES AND SHAREHOLDERS' EQUITY",
    )
    assert is_statement_heading(" > ".join(paths[-1]))
    assert not is_statement_heading("PART I > Item 1A. Risk Factors")


def test_notes_and_tables_with_units_start_sections() -> None:
    raw = (
        "Note 9 — Long-Term Debt\nThe notes pay interest semi-annually.\n"
        "ACME CORPORATION AND SUBSIDIARIES\nSUPPLEMENTAL DATA – NET REVENUES\n(In thousands)\nLas Vegas 1,234 1,100\n"
        "Liquidity and Capital Resources\nCash provided by operations rose.\n"
    )
    found = starts(raw)
    assert found[0] == (LEVEL_STATEMENT, "Note 9", "Long-Term Debt")
    # Two heading lines and their units: one table title, a statement of its own.
    assert found[1] == (
        LEVEL_STATEMENT,
        "",
        "ACME CORPORATION AND SUBSIDIARIES SUPPLEMENTAL DATA – NET REVENUES (In thousands)",
    )
    # Below a table on the page, a title-case line is a row label, not a heading.
    assert len(found) == 2
    assert starts("Liquidity and Capital Resources\nCash provided by operations rose.\n") == [
        (LEVEL_SUBHEADING, "", "Liquidity and Capital Resources")
    ]


def test_a_table_of_contents_starts_nothing() -> None:
    toc = "\n".join(f"Item {n}. Section title number {n}      {n * 3}" for n in range(1, 9))
    assert starts(toc) == []


def test_an_agreement_filed_with_a_report_keeps_its_numbered_clauses() -> None:
    raw = "Item 1.01 Entry into a Material Definitive Agreement.\n5.1 Termination. Either party may end it.\n"
    found = starts(raw)
    assert found[0] == (LEVEL_ITEM, "Item 1.01.", "Entry into a Material Definitive Agreement")
    assert found[1] == (LEVEL_SUBHEADING + 2, "5.1", "Termination")  # "5.1" is two numbers deep
    # Inside a statement a numbered line is a row.
    assert all(c[1] != "5" for c in starts("CONSOLIDATED BALANCE SHEETS\n(in millions)\n5 Total assets 1,234\n"))
