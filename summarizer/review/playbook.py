"""Playbook flags: an item's answer against the reviewer's expected position.

Understood positions (the ``expected`` column of a checklist, case-insensitive):

* ``required`` — the clause must be there: ``match`` when answered (a yes/no item: "yes"),
  ``missing`` when not found.
* ``not acceptable`` — the clause must not be there: ``deviation`` when answered yes, ``match``
  when not found or answered no.
* ``at least N days|months|years`` / ``at most …`` — a duration compared in days.
* ``A or B [or C]`` — one of these values (e.g. governing law): ``match`` when the answer names one.
* ``not acceptable binding us`` — a restriction or obligation (non-compete, exclusivity) that must
  not bind the reviewer's party: ``deviation`` when it binds the side the reviewer represents (or
  each party), ``match`` when it binds only the other party or is absent.
* ``not acceptable for the other party`` — a right (termination for convenience) the other party
  must not have: ``deviation`` when the other party (or each party) has it, ``match`` when only
  the reviewer's party has it or it is absent.

The two side-dependent positions need the reviewer's side (``--side``, the Review tab's "We
represent"): without it their flag is None and the reason says to give it. Which party a clause
binds is read from its quote (``summarizer.review.party_side``).

Any other text is shown to the reviewer but not compared (flag None, reason says so).

Flags are computed when a result is shown, never stored: a reviewer's corrected value is judged
in place of the model's, and a changed position or side needs no new model call.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from summarizer.review.checklist import ChecklistItem
from summarizer.review.evidence import ItemResult
from summarizer.review.party_side import Bound, who_acts
from summarizer.review.values import duration_days, normalize_value

SIDE_POSITIONS = {"not acceptable binding us": False, "not acceptable for the other party": True}
"""The positions that depend on the reviewer's side, each with whether it is about a right."""


def flag_results(items: Sequence[ChecklistItem], results: Sequence[ItemResult], side: str = "") -> None:
    """Set each result's flag, and add its one-line reason to the result's own ``reason``, from
    the reviewer's corrected value when there is one, else the model's. ``side``: the party the
    reviewer represents, as the contract names it (for the side-dependent positions)."""
    for item, result in zip(items, results, strict=True):
        judged = result
        if result.correction is not None and result.correction.value is not None:
            value = result.correction.value
            judged = dataclasses.replace(
                result, status="answered", answer=value, value=normalize_value(item.type, value) or value
            )
        if judged.status in ("evidence", "absent", "pending"):  # no answer to judge (evidence only, not asked yet)
            continue
        result.flag, flag_reason = flag_for(item, judged, side)
        if flag_reason:
            result.reason = "; ".join(r for r in (result.reason, flag_reason) if r)


def flag_for(item: ChecklistItem, result: ItemResult, side: str = "") -> tuple[str | None, str]:
    """(flag, one-line reason) for ``result``; (None, "") when the item has no expected position."""
    expected = item.expected.strip()
    if not expected or result.status == "error":
        return None, ""
    low = " ".join(expected.lower().split())
    found = result.status == "answered" and result.value != "no"
    if low in SIDE_POSITIONS:
        return side_flag(result, found, side, right=SIDE_POSITIONS[low])
    if low == "required":
        return ("match", "present, as required") if found else ("missing", "required but not found")
    if low in ("not acceptable", "not allowed", "unacceptable"):
        return ("deviation", "present, but not acceptable") if found else ("match", "absent, as wanted")
    bound = re.fullmatch(r"(at least|at most)\s+(.+)", low)
    if bound:
        limit = duration_days(bound[2])
        if limit is None:
            return None, f"cannot compare with '{expected}'"
        if not found:
            return "missing", f"no period found (expected {expected})"
        days = duration_days(result.answer or "")
        if days is None:
            return None, f"cannot read a period in '{result.answer}'"
        ok = days >= limit if bound[1] == "at least" else days <= limit
        return ("match" if ok else "deviation"), f"{days} days against {expected}"
    options = [o.strip() for o in re.split(r"\s+or\s+|,", low) if o.strip()]
    if len(options) > 1:
        if not found:
            return "missing", f"not found (expected {expected})"
        answer = (result.answer or "").lower()
        hit = next((o for o in options if o in answer), None)
        return ("match", f"{hit} is one of: {expected}") if hit else ("deviation", f"not one of: {expected}")
    return None, f"expected position '{expected}' is not compared automatically"


def side_flag(result: ItemResult, found: bool, side: str, *, right: bool) -> tuple[str | None, str]:
    """The flag of a side-dependent position (see the module's docstring)."""
    if not found:
        return "match", "absent, as wanted"
    if not side.strip():
        return None, "depends on the party you represent: give your side (--side) to compare"
    text = result.quote or (result.evidence[0].text if result.evidence else "")
    bound = who_acts(text, side, right=right)
    if right:
        if bound in (Bound.THEM, Bound.BOTH):
            return "deviation", f"the other party has this right, not only {side}"
        if bound is Bound.US:
            return "match", f"only {side} has this right"
        return "deviation", "present; whether the other party has this right could not be read: check it"
    if bound in (Bound.US, Bound.BOTH):
        return "deviation", f"it binds {side}"
    if bound is Bound.THEM:
        return "match", f"it binds the other party, not {side}"
    return "deviation", f"present; whether it binds {side} could not be read: check it"
