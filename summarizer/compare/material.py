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
_ORDINAL_WORDS = frozenset(
    (
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
        "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth last"
    ).split()
)
_ORDINAL = re.compile(r"\d{1,2}(?:st|nd|rd|th)", re.I)
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
    # "the 15th" → "the 30th", "first" → "last" (business day of the month): a day of payment or notice.
    ordinals = [t for t in changed if _ORDINAL.fullmatch(t) or t.lower() in _ORDINAL_WORDS]
    if numbers or "%" in changed or "percent" in lowered:
        contexts = _number_contexts(removed, old_text) + _number_contexts(inserted, new_text)
        reasons.append(_number_reason(contexts, lowered))
        if _CAP_CONTEXT.search(context) and "liabilit" in context.lower():
            reasons.append("a cap on liability")
    elif ordinals or any(t in _MONTHS.split() for t in lowered if t != "may"):
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
    else:
        names_removed, names_inserted = _proper_names(removed, old_text), _proper_names(inserted, new_text)
        if names_removed != names_inserted:
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


def _proper_names(tokens: Sequence[str], text: str) -> set[str]:
    """Capitalized words that are not a sentence's first word in ``text`` (the clause they were
    taken from): names and defined terms. A word the diff took alone ("Licensee" replaced by
    "Distributor") is judged where it stands in the clause."""
    found = set()
    for position, token in enumerate(tokens):
        if not (token[:1].isupper() and len(token) > 1):
            continue
        if (position > 0 and tokens[position - 1] not in {".", ";", ":"}) or _inside_a_sentence(token, text):
            found.add(token)
    return found


def _inside_a_sentence(token: str, text: str) -> bool:
    """True when ``token`` stands somewhere in ``text`` after a word of its sentence."""
    for match in re.finditer(rf"(?<!\w){re.escape(token)}(?!\w)", text):
        before = text[: match.start()].rstrip()
        if before and before[-1] not in ".;:!?)":
            return True
    return False
