"""The known-edits benchmark across layouts: the renderings carry their running headers, footers
and page numbers, the Word file its header and footer parts, and a small pair laid out two ways
scores as its truth says (issue 56, item 2)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from lab.eval.compare_known_edits import read_pages, score_pages
from lab.eval.compare_known_edits_layouts import original_pair
from lab.eval.compare_known_edits_word import word_pages
from lab.eval.known_edits import apply_edits
from lab.eval.layout_render import LAYOUTS, paragraphs, render_layout, write_word
from tests.lab.eval.test_compare_known_edits_word import CLAUSES

LONG = [f"{c} {c.split('. ', 1)[-1]}" if c[:1].isdigit() else c for c in CLAUSES]  # clauses over page breaks


def test_each_layout_draws_its_header_footer_and_page_numbers(tmp_path: Path) -> None:
    firm = read_pages(render_layout(tmp_path / "firm.pdf", "supply", LONG * 3, LAYOUTS["firm"]))
    counterparty = read_pages(render_layout(tmp_path / "cp.pdf", "supply", LONG * 3, LAYOUTS["counterparty"]))
    assert len(firm) >= 2 and firm[1][1].splitlines()[1] != counterparty[1][1].splitlines()[1]  # other page breaks
    assert "CONFIDENTIAL - supply" in firm[1][1] and f"Page 2 of {len(firm)}" in firm[1][1]
    assert "Execution Version" in counterparty[1][1] and "supply (Version 2)" in counterparty[1][1]


def test_the_word_file_has_its_header_footer_and_page_field(tmp_path: Path) -> None:
    path = write_word(tmp_path / "v.docx", "supply", CLAUSES)
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        rels = archive.read("word/_rels/document.xml.rels").decode()
        footer = archive.read("word/footer1.xml").decode()
    assert {"word/header1.xml", "word/footer1.xml"} <= names and "footer1.xml" in rels
    assert 'w:instr="PAGE"' in footer
    assert [text for _, text in word_pages(path)] == paragraphs(CLAUSES)  # header and footer kept apart


def test_the_original_s_pair_keeps_the_old_version_as_it_is() -> None:
    pair = original_pair(CLAUSES, seed=1)
    assert pair.old == CLAUSES
    assert "fill placeholder" not in {t.edit for t in pair.truth}
    assert {t.edit for t in apply_edits(CLAUSES, 1).truth} - {t.edit for t in pair.truth} <= {"fill placeholder"}


def test_a_pair_in_two_layouts_scores_as_its_truth_says(tmp_path: Path) -> None:
    pair = apply_edits(LONG * 2, seed=2)
    old = read_pages(render_layout(tmp_path / "old.pdf", "supply", pair.old, LAYOUTS["firm"]))
    new = read_pages(render_layout(tmp_path / "new.pdf", "supply", pair.new, LAYOUTS["counterparty"]))
    score = score_pages("supply", 2, pair, old, new, False, "pdf-layouts")
    assert sum(score.found.values()) == sum(score.truth.values()) > 0
    assert score.false_changes == [] and score.reported == score.reported_true
