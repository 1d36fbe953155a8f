"""Table passages laid out for the model: one row a line, the figures in aligned columns.

A statement's passage reads "Cash and equivalents $ 4,466 $ 4,249" line by line (the table
text of ``summarizer.library.reading.table_pages``). In the prompt each row's label is padded to one
width and each column of figures is right-aligned, so that a model reading "the 2018 column"
finds the second figure of the row under the second year of the header:

    (Dollars in millions)                 2019     2018
    Cash and equivalents               $4,466   $4,249
    Short-term investments                197      996

Text that is not a table is returned unchanged.
"""

from __future__ import annotations

import re

MIN_ROWS = 4  # a table has at least this many rows with figures...
ROW_SHARE = 0.5  # ... and they are at least this share of its lines
MAX_LABEL = 48  # labels longer than this are not padded further (the row just runs on)

_TAIL = re.compile(
    r"(?:\s+(?:\$\s?)?(?:\(?-?(?:\d[\d,]*\d|\d)(?:\.\d+)?\s?\)?%?|[—–]|-{1,2}|n/?m))+\s*$", re.IGNORECASE
)


def split_row(line: str) -> tuple[str, list[str]]:
    """``(label, figures)`` of a table row: "Inventories 5,622 5,261" → ("Inventories", ["5,622",
    "5,261"]); a "$" joins the figure after it, "(92 )" closes up."""
    match = _TAIL.search(" " + line)
    if match is None:
        return line.rstrip(), []
    start = max(0, match.start() - 1)
    tail = line[start:]
    cells: list[str] = []
    pending = ""
    for token in tail.split():
        if token == "$":
            pending = "$"
            continue
        if token == ")" and cells:
            cells[-1] += ")"
            continue
        cells.append(pending + token)
        pending = ""
    return line[:start].rstrip(), cells


def aligned_table(text: str) -> str | None:
    """``text`` with its rows aligned, or None when it is not a table."""
    lines = text.split("\n")
    rows = [split_row(line) for line in lines]
    with_figures = [r for r in rows if r[1]]
    filled = [line for line in lines if line.strip()]
    if len(with_figures) < MIN_ROWS or len(with_figures) < ROW_SHARE * len(filled):
        return None
    columns = max(len(cells) for _, cells in with_figures)
    widths = [0] * columns
    for _, cells in with_figures:
        offset = columns - len(cells)  # short rows fill the rightmost columns
        for i, cell in enumerate(cells):
            widths[offset + i] = max(widths[offset + i], len(cell))
    label_width = min(MAX_LABEL, max(len(label) for label, _ in with_figures))
    out = []
    for line, (label, cells) in zip(lines, rows, strict=True):
        if not cells:
            out.append(line.rstrip())
            continue
        offset = columns - len(cells)
        padded = [" " * widths[i] for i in range(offset)] + [c.rjust(widths[offset + i]) for i, c in enumerate(cells)]
        out.append(f"{label.ljust(label_width)}  " + "  ".join(padded).rstrip())
    return "\n".join(out)
