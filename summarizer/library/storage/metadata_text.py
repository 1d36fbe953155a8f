"""A PDF's metadata strings (its Info dictionary's title, author) made fit to show.

Producers leave control characters in them: ImageMagick ends a title with a NUL
("imagemagick-lzw\\x00", issue 42), others put tabs, line breaks or zero-width marks. They are
cleaned when a PDF is read (``summarizer.library.reading.pdf_extract``) and again when the store
reads a title back, so a library written before the cleaning shows them clean too.
"""

from __future__ import annotations

import unicodedata

REMOVED = ("Cc", "Cf")  # control and format characters: NUL, BEL, DEL, zero-width space, BOM, ...


def clean_metadata_text(text: str) -> str:
    """``text`` without control or format characters: whitespace (tabs, line breaks) becomes one
    space, the others are removed, and the ends are stripped."""
    kept = "".join(
        " " if char.isspace() else char for char in text if char.isspace() or unicodedata.category(char) not in REMOVED
    )
    return " ".join(kept.split())
