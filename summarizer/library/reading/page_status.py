"""What a document's pages came to: its status (indexed, partial, needs_ocr) and the notes
that name the pages that could not be read or have no text layer."""

from __future__ import annotations

# What a user does with a scan added without OCR (``--ocr never``, or OCR that could not run):
# Pagewise reads it itself, only those pages (summarizer.library.reindex, ``ocr=True``).
OCR_ADVICE = "Read its pages by OCR: re-index it (the Library menu in the window, or `pagewise reindex --ocr`)."


def page_list(pages: list[int]) -> str:
    """``[1, 2, 3, 7]`` → ``"1-3, 7"``."""
    parts: list[str] = []
    start = prev = None
    for page in sorted(pages):
        if start is None:
            start = prev = page
        elif prev is not None and page == prev + 1:
            prev = page
        else:
            parts.append(f"{start}-{prev}" if start != prev else str(start))
            start = prev = page
    if start is not None:
        parts.append(f"{start}-{prev}" if start != prev else str(start))
    return ", ".join(parts)


def _no_text_anywhere(total: int, ocr_pages: list[int], bad_pages: list[int]) -> bool:
    """Every page either has no text layer or could not be read."""
    return bool(ocr_pages) and len(ocr_pages) + len(bad_pages) >= total


def page_warnings(
    total: int, ocr_pages: list[int], bad_pages: list[int], blank: frozenset[int] | set[int] = frozenset()
) -> list[str]:
    """``blank``: pages OCR looked at and found to draw no image (nothing it could read)."""
    warnings: list[str] = []
    if bad_pages:
        warnings.append(f"pages that could not be read: {page_list(bad_pages)}")
    if _no_text_anywhere(total, ocr_pages, bad_pages):
        if set(ocr_pages) <= set(blank):
            warnings.append(
                "no text on any page, and no image for OCR to read: the pages are blank or only drawn. "
                "Export the document to PDF again from the program that made it."
            )
        else:
            warnings.append(f"no text layer on any page: this looks like a scan. {OCR_ADVICE}")
    elif ocr_pages:
        warnings.append(f"pages with no text layer (need OCR): {page_list(ocr_pages)}")
    return warnings


def final_status(total: int, ocr_pages: list[int], bad_pages: list[int]) -> str:
    """indexed, partial (some pages failed to parse) or needs_ocr (no page has text)."""
    if _no_text_anywhere(total, ocr_pages, bad_pages):
        return "needs_ocr"
    if bad_pages:
        return "partial"
    return "indexed"


__all__ = ["OCR_ADVICE", "final_status", "page_list", "page_warnings"]
