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
from summarizer.page_labels import PROMPT, unit_label

PROMPT_VERSION = 1

WORDS_PER_TOKEN = 0.75  # English prose: a budget in tokens, told to the model in words

KEEP = "parties, dates, amounts, obligations, conditions, defined terms and exceptions"


def _words(tokens: int) -> int:
    return max(20, int(tokens * WORDS_PER_TOKEN) // 10 * 10)


def segment_summary_messages(
    text: str, title: str, page_start: int, page_end: int, summary_tokens: int, word: bool = False
) -> list[ChatMessage]:
    """Map: summarize one segment of a document (``word``: a Word document's, whose "pages" are
    paragraphs, labelled "¶ 120-150", not "pp. 120-150")."""
    system = (
        "You summarize one part of a long document for a reader who will never see the original. "
        f"Keep every {KEEP}, with the exact names, figures and dates. "
        "Write short factual sentences, no introduction and no opinion. "
        f"Use at most {_words(summary_tokens)} words."
    )
    where = unit_label(page_start, page_end, word=word, style=PROMPT)
    user = f'Part of "{title}", {where}:\n\n{text}\n\nSummary of this part:'
    return [ChatMessage("system", system), ChatMessage("user", user)]


@dataclass(frozen=True, slots=True)
class LabelledSummary:
    """A summary and the pages it covers, as shown to the model."""

    text: str
    page_start: int
    page_end: int
    word: bool = False  # a Word document's: its "pages" are paragraphs (walk 2026-12-06, finding 10)

    @property
    def label(self) -> str:
        return unit_label(self.page_start, self.page_end, word=self.word, style=PROMPT)


def reduce_messages(
    parts: Sequence[LabelledSummary], title: str, target_tokens: int, word: bool = False
) -> list[ChatMessage]:
    """Reduce: combine summaries of consecutive parts into one."""
    where = "paragraphs each point is in, like (¶ 3-7)" if word else "pages each point is on, like (pp. 3-7)"
    system = (
        "You combine summaries of consecutive parts of one document into a single summary of all of them. "
        f"Keep the {KEEP} that matter most, with exact names, figures and dates, and say which {where}. "
        "Do not add anything that is not in the summaries. "
        f"Use at most {_words(target_tokens)} words."
    )
    body = "\n\n".join(f"Summary of {p.label}:\n{p.text.strip()}" for p in parts)
    user = f'Summaries of the parts of "{title}", in order:\n\n{body}\n\nCombined summary:'
    return [ChatMessage("system", system), ChatMessage("user", user)]


def reduce_overhead_text(title: str, target_tokens: int, word: bool = False) -> str:
    """The fixed part of a reduce prompt, for budgeting."""
    return "\n".join(m.content for m in reduce_messages([], title, target_tokens, word))


def part_label_text(part: LabelledSummary) -> str:
    return f"Summary of {part.label}:\n{part.text.strip()}\n\n"
