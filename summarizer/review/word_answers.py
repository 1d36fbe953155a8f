"""A Word contract's model answer named by the paragraphs that hold its quote (issue 56, item 1).

The review reads a Word contract's paragraphs each after its own label ("[¶ 74] (a) If …",
``summarizer.library.word_parts.labelled_paragraphs``), and the model replies with the words it
quotes and the paragraphs it cites. The cell's reference, highlight and quoted passage came from the
item's best search evidence, whose paragraphs are those holding the item's query words: often a
range of clauses, or another clause than the one the model quoted. Here the paragraphs that hold the
quote are found in the text the model read (where the quote occurs more than once, the place that
holds a paragraph the model cited, else the first), and the passage holding them is put first among
the item's evidence, named by them: "§ 8.1(a) Liability Caps, ¶ 95", which the grid, the exports
(Markdown, CSV, Excel, the Word memo) and the cell's citation jump all read
(``summarizer.review.export.page_label``, ``app.controllers.review.ReviewController.cell_citation``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from summarizer.library.storage.queries import passage_ids_covering, passages_by_id
from summarizer.library.storage.store import Library
from summarizer.library.word_parts import labelled_paragraphs, word_paragraphs
from summarizer.review.evidence import Evidence, ItemResult, named_by


def flat_text(text: str) -> str:
    """``text`` as quotes are compared: white space runs as one space, lower case."""
    return re.sub(r"\s+", " ", text).strip().lower()


def quoted_paragraphs(pages: dict[int, str], quote: str, cited: Sequence[int] = ()) -> tuple[int, int] | None:
    """The first and last paragraph of ``pages`` (number -> text) that hold ``quote``, read as the
    model read them (each after its label); where it occurs more than once, the place that holds a
    ``cited`` paragraph, else the first; None where it does not occur."""
    wanted = flat_text(quote)
    if not wanted:
        return None
    joined = ""
    bounds: list[tuple[int, int, int]] = []  # (start, end, paragraph) in ``joined``
    for number, text in sorted(pages.items()):
        block = flat_text(labelled_paragraphs([(number, text)]))
        if not block:
            continue
        joined += " " if joined else ""
        bounds.append((len(joined), len(joined) + len(block), number))
        joined += block
    places = []
    at = joined.find(wanted)
    while at >= 0:
        held = [number for start, end, number in bounds if start < at + len(wanted) and end > at]
        places.append((held[0], held[-1]))
        at = joined.find(wanted, at + 1)
    return next((p for p in places if any(p[0] <= c <= p[1] for c in cited)), places[0] if places else None)


def name_by_quote(library: Library, doc_id: str, result: ItemResult, pages: dict[int, str]) -> None:
    """Put first among ``result``'s evidence the passage of a Word contract that holds the model's
    verified quote, named by the quote's paragraphs; an answer without one (unverified, not found,
    an error) keeps its evidence. ``pages``: the contract's paragraphs as the review read them
    (``read_pages``, read once for all its items)."""
    if result.status != "answered" or not result.quote:
        return
    cited = [int(c["page"]) for c in result.citations if c.get("valid")]
    found = quoted_paragraphs(pages, result.quote, cited)
    if found is None:
        return
    first, last = found
    inside = [e for e in result.evidence if e.page_start <= first and last <= e.page_end]
    if inside:
        best = min(inside, key=lambda e: e.page_end - e.page_start)
    else:
        ids = passage_ids_covering(library, doc_id, first, last) or passage_ids_covering(library, doc_id, first, first)
        if not ids:
            return
        stored = passages_by_id(library, ids[:1])[ids[0]]
        best = Evidence(stored.passage_id, stored.page_start, stored.page_end, stored.text, stored.heading)
        last = min(last, best.page_end)
    named = named_by(best, word_paragraphs(library, doc_id), first, last)
    others = [e for e in result.evidence if e.passage_id != named.passage_id]
    result.evidence = [named, *others][: max(1, len(result.evidence))]  # as many as the search kept
