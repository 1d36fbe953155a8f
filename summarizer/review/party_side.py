"""Which party a clause binds, or whose right it is, for playbook positions that depend on the
side the reviewer represents (``pagewise review --side PARTY``).

A non-compete binding the reviewer's party is a deviation; the same clause binding the other
party is what the reviewer wants. The clause's text (the model's quote, else the best evidence
passage) is cut into sentences and clauses; in each, the words before the first verb of
obligation (``shall``, ``agrees``, ``may not``…) or of right (``may``, ``has the right``…) are its
subject. A subject naming the reviewer's party (as the contract names it, e.g. ``Distributor``)
is "us"; one naming each/either/neither party is both; one naming another capitalized term
(``Company``, ``Licensor``) is the other party. Plain heuristics: a subject that cannot be read
gives "unknown", and the flag then asks the reviewer to check.
"""

from __future__ import annotations

import re
from enum import Enum

OBLIGATION_VERBS = (
    r"shall|will|must|agrees?|covenants?|undertakes?|may not|is not permitted|are not permitted|"
    r"is prohibited|are prohibited|is obligated|are obligated"
)
RIGHT_VERBS = (
    r"may|shall have the right|will have the right|has the right|have the right|is entitled|are entitled|"
    r"reserves the right|reserve the right|at its (?:sole )?(?:option|discretion)"
)
BOTH = re.compile(r"\b(?:each|either|neither|both|any)\s+part(?:y|ies)\b|\bthe parties\b", re.IGNORECASE)
# Capitalized words that begin a clause without naming a party.
NOT_PARTIES = {
    "a", "an", "the", "this", "these", "that", "such", "any", "all", "in", "if", "upon", "during", "after",
    "before", "except", "notwithstanding", "subject", "unless", "for", "no", "nothing", "agreement", "section",
    "article", "term", "it", "its", "other", "each", "neither", "either", "party", "parties", "and", "or",
    "provided", "however", "further", "without", "with", "to", "of", "by", "on", "at", "from", "as",
}  # fmt: skip
SUBJECT_CHARS = 160  # how far back from the verb a clause's subject is looked for


class Bound(Enum):
    US = "us"
    THEM = "them"
    BOTH = "both"
    UNKNOWN = "unknown"


def side_names(side: str) -> list[str]:
    """The names the reviewer's party goes by: ``Distributor/Acme Corp`` → two names."""
    return [name.strip() for name in re.split(r"[/;]", side) if name.strip()]


def _names_us(subject: str, names: list[str]) -> bool:
    return any(re.search(rf"\b{re.escape(name)}\b", subject, re.IGNORECASE) for name in names)


def _names_a_party(subject: str) -> bool:
    words = re.findall(r"\b[A-Z][A-Za-z&.\-]*", subject)
    return any(word.lower().rstrip(".") not in NOT_PARTIES for word in words)


def who_acts(text: str, side: str, *, right: bool = False) -> Bound:
    """Whom the clauses of ``text`` bind (``right``: to whom they give a right), seen from ``side``."""
    names = side_names(side)
    verbs = re.compile(rf"\b(?:{RIGHT_VERBS if right else OBLIGATION_VERBS})\b", re.IGNORECASE)
    us = them = False
    for clause in re.split(r"(?<=[.;:])\s+|\n", text):
        match = verbs.search(clause)
        if match is None:
            continue
        subject = clause[max(0, match.start() - SUBJECT_CHARS) : match.start()]
        if BOTH.search(subject):
            us = them = True
        elif _names_us(subject, names):
            us = True
        elif _names_a_party(subject):
            them = True
    if us and them:
        return Bound.BOTH
    if us:
        return Bound.US
    return Bound.THEM if them else Bound.UNKNOWN
