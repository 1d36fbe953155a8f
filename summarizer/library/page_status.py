"""What a document's pages came to: its status (indexed, partial, needs_ocr) and the notes
that name the pages that could not be read or have no text layer."""

from __future__ import annotations


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


def page_warnings(total: int, ocr_pages: list[int], bad_pages: list[int]) -> list[str]:
    warnings: list[str] = []
    if bad_pages:
        warnings.append(f"pages that could not be read: {page_list(bad_pages)}")
    if ocr_pages and len(ocr_pages) + len(bad_pages) >= total:
        warnings.append(
            "no text layer on any page: this looks like a scan. OCR it (for example with ocrmypdf) and add it again."
        )
    elif ocr_pages:
        warnings.append(f"pages with no text layer (need OCR): {page_list(ocr_pages)}")
    return warnings


def final_status(total: int, ocr_pages: list[int], bad_pages: list[int]) -> str:
    """indexed, partial (some pages failed to parse) or needs_ocr (no page has text)."""
    if ocr_pages and len(ocr_pages) + len(bad_pages) >= total:
        return "needs_ocr"
    if bad_pages:
        return "partial"
    return "indexed"


__all__ = ["final_status", "page_list", "page_warnings"]
