"""Which changes usually matter, and why: rules over the words a change removed and inserted.

No model: each reason names the kind of term that changed, so a reader can check it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_MONTHS = "january february march april may june july august september october november december"
_NUMBER_WORDS = frozenset(
    (
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand "
        "million billion half"
    ).split()
)
_PERIOD_WORDS = frozenset("day days month months year years week weeks business calendar hours hour quarter".split())
_MODALS = frozenset("shall may must will should might can cannot".split())
_NEGATIONS = frozenset("not no never neither nor none without".split())
_EFFORTS = re.compile(r"\b(reasonable|best|commercially reasonable|good faith)\s+efforts?\b", re.I)
_EXCLUSION_WORDS = frozenset("except excluding exclude excludes excluded exclusion unless notwithstanding".split())
_CAP_CONTEXT = re.compile(r"\b(liabilit\w*|aggregate|exceed\w*|cap|limit\w*)\b", re.I)
_LAW_CONTEXT = re.compile(r"\b(governed by|governing law|laws of|jurisdiction|venue|courts? of|arbitration)\b", re.I)
_DEFINITION = re.compile(r"[\"“][A-Z][^\"”]{0,60}[\"”]\s*(shall\s+)?(means?|has the meaning|includes?)")
_PLACEHOLDER = re.compile(r"\{[^}]*\}|\[[^\]]*\]|_{3,}|\bTBD\b|\[\s*●\s*\]|<[^>]+>")
_CURRENCY = re.compile(r"[$€£¥]|\b(usd|eur|gbp|dollars?|euros?|pounds?|rmb|yuan)\b", re.I)
_DATE = re.compile(r"\b(\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|(19|20)\d{2})\b")
SENTENCE_WORDS = 8  # an insertion or deletion this long is a sentence added or removed


def _lower(tokens: Sequence[str]) -> list[str]:
    return [t.lower() for t in tokens]


def material_reasons(removed: Sequence[str], inserted: Sequence[str], old_text: str, new_text: str) -> list[str]:
    """Why the change from ``removed`` to ``inserted`` (word tokens) usually matters, or nothing.

    ``old_text``/``new_text`` are the clause's whole text in each version, for the context that
    makes a change material (a number in a liability clause is a cap).
    """
    reasons: list[str] = []
    changed = list(removed) + list(inserted)
    lowered = _lower(changed)
    joined = " ".join(changed)
    context = f"{old_text} {new_text}"
    if any(t in {"{", "}", "[", "]", "<", ">"} or set(t) == {"_"} for t in removed) and _PLACEHOLDER.search(old_text):
        reasons.append("a placeholder filled in")
    numbers = [t for t in changed if t.isdigit() or t.lower() in _NUMBER_WORDS]
    if numbers or "%" in changed or "percent" in lowered:
        contexts = _number_contexts(removed, old_text) + _number_contexts(inserted, new_text)
        reasons.append(_number_reason(contexts, lowered))
        if _CAP_CONTEXT.search(context) and "liabilit" in context.lower():
            reasons.append("a cap on liability")
    elif any(t in _MONTHS.split() for t in lowered if t != "may"):
        reasons.append("a date changed")
    if any(t in _MODALS for t in lowered) or _EFFORTS.search(joined):
        reasons.append("an obligation's strength changed (shall / may / efforts)")
    if any(t in _NEGATIONS for t in lowered):
        reasons.append('a "not" or "no" added or removed')
    if any(t in _EXCLUSION_WORDS for t in lowered):
        reasons.append("an exclusion or exception changed")
    if _LAW_CONTEXT.search(context) and any(t[:1].isupper() for t in changed):
        reasons.append("governing law or venue changed")
    if _DEFINITION.search(" ".join(inserted)) or _DEFINITION.search(" ".join(removed)):
        reasons.append("a defined term added or changed")
    elif _proper_names(removed) != _proper_names(inserted) and (_proper_names(removed) or _proper_names(inserted)):
        reasons.append("a party name or defined term changed")
    if not reasons and (len(removed) >= SENTENCE_WORDS or len(inserted) >= SENTENCE_WORDS):
        reasons.append("a sentence added" if len(inserted) >= len(removed) else "a sentence removed")
    return list(dict.fromkeys(reasons))


def _number_contexts(tokens: Sequence[str], text: str) -> list[str]:
    """The text around each changed number where it stands in its clause."""
    found = []
    for token in tokens:
        if not (token.isdigit() or token.lower() in _NUMBER_WORDS or token == "%"):
            continue
        for match in re.finditer(rf"(?<![\w]){re.escape(token)}(?![\w])", text, re.I):
            found.append(text[max(0, match.start() - 6) : match.end() + 28])
    return found


def _number_reason(contexts: list[str], lowered: list[str]) -> str:
    joined = " ".join(contexts)
    if "%" in lowered or "percent" in lowered or re.search(r"\d\s*%|percent", joined, re.I):
        return "a percentage changed"
    if _CURRENCY.search(joined):
        return "an amount changed"
    if re.search(r"\b(business |calendar )?(days?|months?|years?|weeks?|hours?)\b", joined, re.I):
        return "a period changed"
    if _DATE.search(joined) or any(m in joined.lower() for m in _MONTHS.split() if m != "may"):
        return "a date changed"
    return "a number changed"


def _proper_names(tokens: Sequence[str]) -> set[str]:
    """Capitalized words other than a sentence's first: names and defined terms."""
    found = set()
    for position, token in enumerate(tokens):
        if token[:1].isupper() and len(token) > 1 and position > 0 and tokens[position - 1] not in {".", ";", ":"}:
            found.add(token)
    return found
