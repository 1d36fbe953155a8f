"""The summaries' prompts (map, reduce), with the version number stored summaries are keyed by.

Stored summaries are keyed by ``PROMPT_VERSION``: bump it whenever a summary prompt's
wording changes, so that old summaries are recomputed (and only those). The answer's prompt is
worded in ``summarizer.answers.answer_wording``, the review's in ``summarizer.review``: neither
is stored under this number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inference.engines.engine import ChatMessage
from summarizer.page_labels import PROMPT, page_label

PROMPT_VERSION = 1

WORDS_PER_TOKEN = 0.75  # English prose: a budget in tokens, told to the model in words

KEEP = "parties, dates, amounts, obligations, conditions, defined terms and exceptions"


def _words(tokens: int) -> int:
    return max(20, int(tokens * WORDS_PER_TOKEN) // 10 * 10)


def segment_summary_messages(
    text: str, title: str, page_start: int, page_end: int, summary_tokens: int
) -> list[ChatMessage]:
    """Map: summarize one segment of a document."""
    system = (
        "You summarize one part of a long document for a reader who will never see the original. "
        f"Keep every {KEEP}, with the exact names, figures and dates. "
        "Write short factual sentences, no introduction and no opinion. "
        f"Use at most {_words(summary_tokens)} words."
    )
    user = f'Part of "{title}", {page_label(page_start, page_end, PROMPT)}:\n\n{text}\n\nSummary of this part:'
    return [ChatMessage("system", system), ChatMessage("user", user)]


@dataclass(frozen=True, slots=True)
class LabelledSummary:
    """A summary and the pages it covers, as shown to the model."""

    text: str
    page_start: int
    page_end: int


def reduce_messages(parts: Sequence[LabelledSummary], title: str, target_tokens: int) -> list[ChatMessage]:
    """Reduce: combine summaries of consecutive parts into one."""
    system = (
        "You combine summaries of consecutive parts of one document into a single summary of all of them. "
        f"Keep the {KEEP} that matter most, with exact names, figures and dates, and say on which pages "
        "each point is, like (pp. 3-7). Do not add anything that is not in the summaries. "
        f"Use at most {_words(target_tokens)} words."
    )
    body = "\n\n".join(f"Summary of {page_label(p.page_start, p.page_end, PROMPT)}:\n{p.text.strip()}" for p in parts)
    user = f'Summaries of the parts of "{title}", in order:\n\n{body}\n\nCombined summary:'
    return [ChatMessage("system", system), ChatMessage("user", user)]


def reduce_overhead_text(title: str, target_tokens: int) -> str:
    """The fixed part of a reduce prompt, for budgeting."""
    return "\n".join(m.content for m in reduce_messages([], title, target_tokens))


def part_label_text(part: LabelledSummary) -> str:
    return f"Summary of {page_label(part.page_start, part.page_end, PROMPT)}:\n{part.text.strip()}\n\n"
