from __future__ import annotations

import pytest

from summarizer.search.finance_lexicon import INSTRUCTION_WORDS, expansion_terms, matching_entries, period_terms


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How much cash from operations in FY2020?", ["2020", "fiscal 2020", "year ended"]),
        ("Revenue in fiscal 2022", ["2022", "fiscal 2022", "year ended"]),
        ("FY 19 margins", ["2019", "fiscal 2019", "year ended"]),
        ("Q2 2023 sales", ["2023", "second quarter", "six months ended", "three months ended"]),
        ("As of Q2'2023", ["2023", "second quarter", "six months ended", "three months ended"]),
        ("2Q23 revenue", ["2023", "second quarter", "six months ended", "three months ended"]),
        ("Q1 FY24 bookings", ["2024", "first quarter", "three months ended", "fiscal 2024", "year ended"]),
        ("What changed last year?", []),
    ],
)
def test_fiscal_periods_become_the_words_columns_are_headed_with(question: str, expected: list[str]) -> None:
    assert period_terms(question) == expected


def test_a_statement_by_its_everyday_name_finds_its_printed_title() -> None:
    assert "consolidated statements of cash flows" in expansion_terms("what does the cash flow statement say?")
    assert "consolidated balance sheets" in expansion_terms("per the balance sheet, how much debt?")
    assert "consolidated statements of operations" in expansion_terms("from the income statement")


def test_a_metric_brings_the_lines_it_is_computed_from() -> None:
    terms = expansion_terms("What is the net working capital?")
    assert {"total current assets", "total current liabilities"} <= set(terms)
    terms = expansion_terms("free cash flow conversion")
    assert {"net cash provided by operating activities", "capital expenditures"} <= set(terms)
    assert "cost of sales" in expansion_terms("FY2016 COGS")
    assert [e.concept for e in matching_entries("Is Pfizer spinning off a business?")] == ["divestitures"]


def test_periods_come_first_and_the_limit_holds() -> None:
    terms = expansion_terms("FY2021 revenue and operating margin", 6)
    assert terms[0] == "2021" and len(terms) == 6


def test_instruction_words_say_how_to_answer_not_what_to_find() -> None:
    assert {"answer", "respond", "perspective", "analyst"} <= INSTRUCTION_WORDS
    assert not {"millions", "cash", "revenue", "debt"} & INSTRUCTION_WORDS


def test_a_search_of_filings_takes_the_finance_words_and_the_lever_leaves_them_out() -> None:
    """``RetrievalParams.finance_terms`` (measured one lever at a time, docs/retrieval.md)."""
    from dataclasses import replace

    from summarizer.library.reading.document_kind import CONTRACT, FILING
    from summarizer.search.retrieval import DEFAULT_PARAMS
    from summarizer.search.retrieval import expansion_terms as search_terms

    question = "per the cash flow statement, what was capex in FY2020?"
    no_finance = replace(DEFAULT_PARAMS, finance_terms=False)
    assert "consolidated statements of cash flows" in search_terms(question, frozenset({FILING}))
    without = search_terms(question, frozenset({FILING}), no_finance)
    assert "consolidated statements of cash flows" not in without and "2020" not in without
    assert search_terms(question, frozenset({CONTRACT})) == search_terms(question, frozenset({CONTRACT}), no_finance)
