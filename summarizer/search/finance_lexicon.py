"""From the way people ask about a company's numbers to the way filings print them.

An analyst asks "what was the cash flow from operations in FY2020?"; the 10-K's page says
"Consolidated Statements of Cash Flows … Net cash provided by operating activities … 2020".
Each entry maps a way of asking (a statement's everyday name, a line item under its other names,
a metric) to the words a filing uses: the statement's printed titles, the line items, and for a
computed metric the lines it is computed from (net working capital: total current assets, total
current liabilities). They are written from accounting practice (US GAAP statement captions and
the SEC's Form 10-K items), not from any filing or question.

Fiscal periods are read separately (``period_terms``): "FY2020", "fiscal 2020", "Q2 2023",
"Q2'23", "2Q23" are single tokens to FTS5 and match nothing, so the year a column is headed with
("2020") and the quarter's words ("second quarter", "three months ended") are added instead.

``INSTRUCTION_WORDS`` are words that tell how to answer ("answer in USD millions", "respond as
an analyst", "explain why") rather than what to find: on a filing's pages they are rare, so BM25
would rank the few passages that happen to hold them; they are left out of the query.
"""

from __future__ import annotations

import re

from summarizer.search.lexicon import Entry, entry, interleave, matching

LEXICON: tuple[Entry, ...] = (
    # --- the statements ---------------------------------------------------------------------
    entry(
        "balance sheet",
        r"balance sheets?|financial position|\bassets\b|\bliabilit|shareholders'? equity|stockholders'? equity|"
        r"book value|net worth",
        "consolidated balance sheets; balance sheets; statements of financial position; total assets; "
        "total liabilities; total current assets; total current liabilities; total shareholders equity; "
        "total stockholders equity",
    ),
    entry(
        "income statement",
        r"income statements?|statements? of (income|operations|earnings)|\bp&l\b|profit and loss|"
        r"results of operations",
        "consolidated statements of operations; consolidated statements of income; statements of earnings; "
        "net income; operating income; total revenues; net sales",
    ),
    entry(
        "cash flow statement",
        r"cash ?flows?|cash (generated|provided|used|from)|operating activities|investing activities|"
        r"financing activities",
        "consolidated statements of cash flows; statements of cash flows; net cash provided by operating activities; "
        "cash flows from operating activities; net cash used in investing activities; "
        "net cash used in financing activities; operating activities",
    ),
    entry(
        "comprehensive income",
        r"comprehensive income|\boci\b",
        "consolidated statements of comprehensive income; other comprehensive income; comprehensive income",
    ),
    entry(
        "equity statement",
        r"statements? of (shareholders|stockholders|changes in)|retained earnings",
        "consolidated statements of shareholders equity; retained earnings; accumulated other comprehensive",
    ),
    # --- line items and metrics ---------------------------------------------------------------
    entry(
        "revenue",
        r"\brevenues?\b|\bsales\b|top ?line|turnover",
        "total revenues; net revenues; net sales; revenues; revenue; sales",
    ),
    entry(
        "cost of sales",
        r"\bcogs\b|cost of (goods|sales|revenues?|products)|direct costs?",
        "cost of sales; cost of revenue; cost of revenues; cost of goods sold; cost of products sold; gross profit",
    ),
    entry(
        "gross margin",
        r"gross (margin|profit)",
        "gross profit; gross margin; cost of sales; cost of revenue; net sales; revenue; consolidated statements of "
        "operations; consolidated statements of earnings; consolidated statements of income",
    ),
    entry(
        "operating income",
        r"operating (margin|income|profit|loss)|\bebit\b|income from operations",
        "operating income; income from operations; operating profit; operating margin; earnings from operations; "
        "total revenues; consolidated statements of operations; consolidated statements of income; "
        "consolidated statements of earnings",
    ),
    entry(
        "ebitda",
        r"ebitda",
        "adjusted ebitda; ebitda; depreciation and amortization; reconciliation; net income",
    ),
    entry(
        "net income",
        r"net (income|earnings|profit|loss)|bottom line|\beps\b|earnings per share|per share",
        "net income; net earnings; earnings per share; diluted; basic; net loss; "
        "consolidated statements of operations; consolidated statements of income; consolidated statements of earnings",
    ),
    entry(
        "free cash flow",
        r"free cash ?flow|\bfcf\b|capex|capital (expenditures?|spending)|purchases? of property",
        "free cash flow; net cash provided by operating activities; capital expenditures; "
        "purchases of property and equipment; purchases of property, plant and equipment; additions to property",
    ),
    entry(
        "working capital",
        r"working capital|current ratio|quick ratio|liquidity|current assets|current liabilities",
        "total current assets; total current liabilities; current assets; current liabilities; "
        "consolidated balance sheets; liquidity and capital resources; cash and cash equivalents",
    ),
    entry(
        "interest",
        r"interest (coverage|expense|paid|cost)|times interest|cost of debt",
        "interest expense; interest expense, net; interest and other; operating income; interest paid",
    ),
    entry(
        "debt",
        r"\bdebt\b|leverage|borrowings?|notes payable|credit (facility|facilities|agreement)|bonds?\b|loans?\b",
        "long-term debt; total debt; borrowings; notes payable; senior notes; credit facility; "
        "current portion of long-term debt",
    ),
    entry(
        "shareholder returns",
        r"dividends?|payout|buy ?backs?|repurchas",
        "dividends; cash dividends declared; dividends paid; repurchases of common stock; share repurchase program; "
        "treasury stock",
    ),
    entry(
        "inventory",
        r"inventor(y|ies)|stock on hand",
        "inventories; merchandise inventories; inventory",
    ),
    entry(
        "receivables",
        r"receivables?|\bdso\b|days sales outstanding",
        "accounts receivable, net; receivables; allowance for doubtful accounts",
    ),
    entry(
        "payables",
        r"payables?|\bdpo\b",
        "accounts payable; accrued liabilities; payables",
    ),
    entry(
        "depreciation",
        r"depreciation|amortization|\bd&a\b",
        "depreciation and amortization; depreciation; amortization of intangible assets",
    ),
    entry(
        "income tax",
        r"tax rate|income tax|\btaxes\b",
        "effective tax rate; provision for income taxes; income tax expense; income taxes",
    ),
    entry(
        "returns",
        r"return on (assets|equity|invested capital|capital)|\broa\b|\broe\b|\broic\b",
        "net income; total assets; total shareholders equity; return on invested capital",
    ),
    entry(
        "segments",
        r"segments?|regions?|regional|geograph|by country|countries|international|domestic|business units?",
        "segment information; reportable segments; segment results; geographic; by region; international; "
        "united states; revenues by",
    ),
    entry(
        "acquisitions",
        r"acquisitions?|acquired|acquire|\bbought\b|mergers?|business combinations?|takeover",
        "acquisitions; business combinations; acquired; purchase price; goodwill; merger",
    ),
    entry(
        "divestitures",
        r"spin(ning|s)?[- ]?offs?|spun[- ]off|divest|separation|separat(e|ing)|discontinued|disposal|\bsold\b|"
        r"sale of (a|the|its) business",
        "spin-off; separation; discontinued operations; divestiture; disposal; distribution",
    ),
    entry(
        "guidance",
        r"guidance|outlook|forecast|expect|projection|full[- ]year",
        "outlook; guidance; full year; expects; fiscal year outlook",
    ),
    entry(
        "non-gaap",
        r"adjusted|non[- ]?gaap|underlying|core\b|organic",
        "non-gaap; adjusted; reconciliation; excluding; organic; core",
    ),
    entry(
        "currency",
        r"\bfx\b|currenc|exchange rates?|constant currency",
        "constant currency; foreign currency; foreign exchange; currency translation; impact of foreign",
    ),
    entry(
        "restructuring",
        r"restructur|impairment|write[- ]?(down|off)|severance",
        "restructuring; impairment; restructuring charges; severance; write-down",
    ),
    entry(
        "risk factors",
        r"\brisks?\b|uncertaint",
        "risk factors; risks; uncertainties",
    ),
    entry(
        "legal proceedings",
        r"lawsuits?|litigation|legal proceedings|\bsued\b|contingenc",
        "legal proceedings; litigation; contingencies; commitments and contingencies",
    ),
    entry(
        "employees",
        r"employees|headcount|workforce|staff",
        "employees; human capital; full-time employees",
    ),
    entry(
        "backlog",
        r"backlog|orders?\b|bookings",
        "backlog; orders; remaining performance obligations",
    ),
    entry(
        "pensions",
        r"pensions?|retirement|postretirement",
        "pension; postretirement benefit; defined benefit; pension plans",
    ),
)

INSTRUCTION_WORDS = frozenset(
    "answer answers answering question questions respond response responses reply please explain "
    "explanation state stated provide providing provided give using use used based basis according "
    "perspective analyst analysts investor abilities ability best details detail shown show shows "
    "clearly outlined primarily mainly information judgments judgements judgment judgement assume "
    "assuming only within define defined definition calculate calculated compute computed round "
    "rounded usd decimal decimals places place format terms respect regard regards".split()
)

_ORDINAL = {"1": "first", "2": "second", "3": "third", "4": "fourth"}
_MONTHS = {"1": "three months ended", "2": "six months ended", "3": "nine months ended", "4": "twelve months ended"}
_YEAR = r"(?P<year>(?:19|20)\d{2}|'?\d{2})"
_FISCAL_YEAR = re.compile(r"\b(?:FY|fiscal(?: year)?)\s*'?" + _YEAR + r"\b", re.IGNORECASE)
_QUARTER = re.compile(
    r"\b(?:Q(?P<q1>[1-4])\s*(?:FY)?\s*'?"
    + _YEAR.replace("year", "y1")
    + r"|(?P<q2>[1-4])Q\s*'?"
    + _YEAR.replace("year", "y2")
    + r")\b",
    re.IGNORECASE,
)
_ORDINAL_QUARTER = re.compile(r"\b(first|second|third|fourth) quarter\b", re.IGNORECASE)


def _full_year(digits: str) -> str:
    digits = digits.lstrip("'")
    return digits if len(digits) == 4 else ("20" + digits if int(digits) < 70 else "19" + digits)


def period_terms(query: str) -> list[str]:
    """The words a filing heads its columns and tables with for the periods ``query`` names."""
    terms: list[str] = []
    for match in _QUARTER.finditer(query):
        quarter = match.group("q1") or match.group("q2")
        year = match.group("y1") or match.group("y2")
        terms += [_full_year(year), f"{_ORDINAL[quarter]} quarter", _MONTHS[quarter]]
        if quarter != "1":
            terms.append("three months ended")
    for match in _FISCAL_YEAR.finditer(query):
        year = _full_year(match.group("year"))
        terms += [year, f"fiscal {year}", "year ended"]
    if _ORDINAL_QUARTER.search(query):
        terms.append("three months ended")
    return list(dict.fromkeys(t.lower() for t in terms))


def matching_entries(query: str) -> list[Entry]:
    return matching(LEXICON, query)


def expansion_terms(query: str, limit: int | None = None) -> list[str]:
    """The filing words for the periods and the statements, lines or metrics ``query`` asks
    about: the periods first, then the entries' terms in turn, at most ``limit``."""
    return interleave([period_terms(query), *(e.terms for e in matching_entries(query))], limit)
