"""The layouts' renderings write the source's characters as they are: what pypdf reads back from a
rendered PDF (as Pagewise reads a PDF) holds every non-space character of the source, in order, in
both layouts; the fonts are found or named when missing (issue 56, item 2)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import lab.eval.layout_render as layout_render
from lab.eval.compare_known_edits import read_pages
from lab.eval.compare_known_edits_layouts import original_clauses
from lab.eval.layout_render import LAYOUTS, FontMissing, Layout, fonts_for, paragraphs, render_layout
from tests.conftest import CONTRACTS

# Characters contracts use that Latin-1 has not (and "§", which it has), in a clause with a tab.
SYMBOLS = [
    "1.\tCheck boxes ☐ Yes ☐ No; a bullet ● item; 3∕4 of the shares — “Fees” aren’t due (§ 2.1)",
    "2. A semicolon from an SEC filing\u037e ‘single’ quotes – and a dash",
]


def _non_space(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _body(path: Path, title: str, layout: Layout) -> str:
    """The rendering's text as pypdf reads it, each page's running header and footer taken off
    (checked to be there)."""
    pages = read_pages(path)
    body = []
    for number, text in pages:
        lines = text.splitlines()
        footer = layout.footer.format(title=title, page=number, pages=len(pages)).split("\n")
        assert lines[0] == layout.header.format(title=title) and lines[-len(footer) :] == footer
        body += lines[1 : -len(footer)]
    return "\n".join(body)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_rendering_reads_back_every_character_of_the_source(tmp_path: Path, layout: str) -> None:
    body = _body(render_layout(tmp_path / "v.pdf", "supply", SYMBOLS, LAYOUTS[layout]), "supply", LAYOUTS[layout])
    assert _non_space(body) == _non_space("".join(SYMBOLS))
    assert re.match(r"1\.\s+Check", body)  # the tab as spaces, not lost


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_development_contract_reads_back_as_its_clauses(tmp_path: Path, layout: str) -> None:
    clauses = original_clauses(CONTRACTS / "endorsement-8p.pdf")  # curly quotes, dashes, U+037E for ";"
    assert {"\u201c", "\u2019", "\u037e"} <= set("".join(clauses))
    pdf = render_layout(tmp_path / "v.pdf", "endorsement-8p", clauses, LAYOUTS[layout])
    assert _non_space(_body(pdf, "endorsement-8p", LAYOUTS[layout])) == _non_space("".join(paragraphs(clauses)))


def test_the_same_clauses_render_to_the_same_bytes(tmp_path: Path) -> None:
    first = render_layout(tmp_path / "a.pdf", "supply", SYMBOLS, LAYOUTS["counterparty"]).read_bytes()
    assert render_layout(tmp_path / "b.pdf", "supply", SYMBOLS, LAYOUTS["counterparty"]).read_bytes() == first


def test_a_character_the_layout_s_font_lacks_is_drawn_by_a_fallback() -> None:
    assert fonts_for("☐", LAYOUTS["counterparty"]) == ["DejaVuSerif", "DejaVuSans"]  # DejaVu Serif has no ☐
    assert fonts_for("● —", LAYOUTS["counterparty"]) == ["DejaVuSerif"]


def test_a_missing_font_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(layout_render.FONT_FILES, "DejaVuSerif", (tmp_path / "DejaVuSerif.ttf", "fonts-dejavu-core"))
    with pytest.raises(FontMissing, match=r"DejaVuSerif\.ttf is missing .*apt-get install fonts-dejavu-core"):
        render_layout(tmp_path / "v.pdf", "supply", SYMBOLS, LAYOUTS["counterparty"])


def test_a_character_no_font_draws_is_an_error_not_a_question_mark(tmp_path: Path) -> None:
    with pytest.raises(FontMissing, match=r"U\+10000.*DejaVuSerif\.ttf"):
        render_layout(tmp_path / "v.pdf", "supply", ["1. Linear B \U00010000"], LAYOUTS["counterparty"])
