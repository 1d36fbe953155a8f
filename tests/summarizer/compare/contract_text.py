"""A small contract as pages of text, and edits of it, for the comparison tests."""

from __future__ import annotations

ARTICLES: list[tuple[str, str, list[tuple[str, str, str]]]] = [
    (
        "ARTICLE I",
        "DEFINITIONS",
        [
            ("1.1", "Agreement", '"Agreement" means this supply agreement between Acme Corp. and Beta Ltd.'),
            ("1.2", "Products", '"Products" means the goods listed in the order forms issued under it.'),
        ],
    ),
    (
        "ARTICLE II",
        "PAYMENT",
        [
            ("2.1", "Fees", "Buyer shall pay the fees of $10,000 per month within thirty (30) days of each invoice."),
            ("2.2", "Late Payment", "Late amounts bear interest at 1.5% per month until they are paid in full."),
            (
                "2.3",
                "Taxes",
                "Each party shall bear its own taxes arising out of or in connection with this Agreement.",
            ),
        ],
    ),
    (
        "ARTICLE III",
        "LIABILITY",
        [
            (
                "3.1",
                "Cap",
                "The liability of each party shall not exceed the fees paid in the twelve months before the claim.",
            ),
            (
                "3.2",
                "Exclusions",
                "Neither party is liable for lost profits, except for breach of confidentiality obligations.",
            ),
            (
                "3.3",
                "Governing Law",
                "This Agreement is governed by the laws of the State of New York without regard to conflicts.",
            ),
        ],
    ),
]


def contract_lines(articles: list[tuple[str, str, list[tuple[str, str, str]]]] = ARTICLES) -> list[str]:
    lines = ["SUPPLY AGREEMENT", "This agreement is made between the parties named below.", ""]
    for label, title, sections in articles:
        lines += [label, title, ""]
        for number, heading, text in sections:
            lines += [f"{number} {heading}. {text}", ""]
    return lines


def contract_pages(articles: list[tuple[str, str, list[tuple[str, str, str]]]] = ARTICLES) -> list[tuple[int, str]]:
    return [(1, "\n".join(contract_lines(articles)))]


def edited(replacements: dict[str, str]) -> list[tuple[str, str, list[tuple[str, str, str]]]]:
    """The articles with each section text's ``old`` phrase replaced by ``new``."""
    out = []
    for label, title, sections in ARTICLES:
        new_sections = []
        for number, heading, text in sections:
            for old, new in replacements.items():
                text = text.replace(old, new)
            new_sections.append((number, heading, text))
        out.append((label, title, new_sections))
    return out
