"""Normalized values of review answers: ISO dates, durations in days, yes/no, amounts with currency."""

from __future__ import annotations

import datetime as dt
import re

_MONTHS = {
    name: n
    for n, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
         ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
         ("november", "nov"), ("december", "dec")],
        start=1,
    )
    for name in names
}  # fmt: skip
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty-five": 45,
    "sixty": 60, "ninety": 90, "hundred": 100,
}  # fmt: skip
_UNIT_DAYS = {"day": 1, "business day": 1, "week": 7, "month": 30, "year": 365}
_CURRENCIES = {"$": "USD", "usd": "USD", "us$": "USD", "€": "EUR", "eur": "EUR", "£": "GBP", "gbp": "GBP",
               "rmb": "CNY", "cny": "CNY", "yuan": "CNY", "¥": "JPY", "jpy": "JPY"}  # fmt: skip


def normalize_date(text: str) -> str | None:
    """``March 5, 2019``, ``5 March 2019``, ``3/5/2019`` (US order), ``2019-03-05`` → ``2019-03-05``."""
    low = text.lower()
    m = re.search(r"(\d{4})-(\d{1,2})-(\d{1,2})", low)
    if m:
        return _iso(int(m[1]), int(m[2]), int(m[3]))
    m = re.search(r"([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", low)
    if m and m[1] in _MONTHS:
        return _iso(int(m[3]), _MONTHS[m[1]], int(m[2]))
    m = re.search(r"(\d{1,2})(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?([a-z]+),?\s+(\d{4})", low)
    if m and m[2] in _MONTHS:
        return _iso(int(m[3]), _MONTHS[m[2]], int(m[1]))
    m = re.search(r"(\d{1,2})/(\d{1,2})/(\d{4})", low)
    if m:
        return _iso(int(m[3]), int(m[1]), int(m[2]))
    return None


def _iso(year: int, month: int, day: int) -> str | None:
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def duration_days(text: str) -> int | None:
    """``five (5) years`` → 1825, ``90 days`` → 90, ``6 months`` → 180 (a month counts 30 days)."""
    low = text.lower().replace("(", " ").replace(")", " ")
    m = re.search(r"(\d+|[a-z-]+)\s+(?:\d+\s+)?(business day|day|week|month|year)s?", low)
    if not m:
        return None
    count = int(m[1]) if m[1].isdigit() else _NUMBER_WORDS.get(m[1])
    return None if count is None else count * _UNIT_DAYS[m[2]]


def normalize_amount(text: str) -> str | None:
    """``$1,000,000`` → ``USD 1000000``; ``RMB 50,000`` → ``CNY 50000``."""
    low = text.lower()
    m = re.search(r"(us\$|\$|€|£|¥|usd|eur|gbp|rmb|cny|jpy)\s*([\d,]+(?:\.\d+)?)", low) or re.search(
        r"([\d,]+(?:\.\d+)?)\s*(usd|eur|gbp|rmb|cny|yuan|jpy|dollars)", low
    )
    if not m:
        return None
    symbol, number = (m[1], m[2]) if not m[1][0].isdigit() else (m[2], m[1])
    currency = "USD" if symbol == "dollars" else _CURRENCIES.get(symbol, symbol.upper())
    return f"{currency} {number.replace(',', '')}"


def normalize_value(answer_type: str, answer: str) -> str | None:
    """The value of ``answer`` for its type (None when it cannot be read)."""
    text = answer.strip()
    if not text:
        return None
    if answer_type == "yes_no":
        low = text.lower()
        if low.startswith(("yes", "true")):
            return "yes"
        if low.startswith(("no", "false", "none")):
            return "no"
        return None
    if answer_type == "date":
        return normalize_date(text)
    if answer_type == "duration":
        days = duration_days(text)
        return None if days is None else f"{days} days"
    if answer_type == "amount":
        return normalize_amount(text)
    return text
