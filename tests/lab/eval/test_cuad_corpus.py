"""The CUAD corpus as the lab reads it: pseudo-pages cover the text, the split is stable."""

from __future__ import annotations

from lab.eval.cuad_corpus import PAGE_CHARS, is_validation, pseudo_pages


def test_pseudo_pages_cover_the_text_in_order_and_cut_at_blank_lines() -> None:
    paragraph = "word " * 120 + "\n\n"
    text = paragraph * 40
    pages = pseudo_pages(text)
    assert [number for number, _, _ in pages] == list(range(1, len(pages) + 1))
    assert "".join(page for _, page, _ in pages) == text
    assert all(text[offset : offset + len(page)] == page for _, page, offset in pages)
    assert all(page.endswith("\n") and text[offset + len(page)] == "\n" for _, page, offset in pages[:-1])
    assert all(len(page) >= PAGE_CHARS for _, page, _ in pages[:-1])


def test_the_validation_split_is_by_file_name_and_about_a_tenth() -> None:
    names = [f"contract-{i}.txt" for i in range(2000)]
    share = sum(map(is_validation, names)) / len(names)
    assert 0.07 < share < 0.13
    assert [is_validation(n) for n in names[:50]] == [is_validation(n) for n in names[:50]]
