"""The known-edits benchmark's Word pairs: clause numbers written as Word's automatic numbering are
read back as written, and a small Word↔Word pair scores as its truth says."""

from __future__ import annotations

import dataclasses
import zipfile
from pathlib import Path

from lab.eval.compare_known_edits import score_pages
from lab.eval.compare_known_edits_word import renumbered_only, word_pages, word_source_clauses
from lab.eval.known_edits import apply_edits
from lab.eval.numbered_docx import write_numbered_docx
from summarizer.library.cutting.clause_units import document_clauses
from summarizer.library.reading.docx_extract import read_docx

CLAUSES = [
    "SUPPLY AGREEMENT This agreement is made on 1 March 2021 between the parties, Acme Corp and Beta Inc.",
    "ARTICLE I DEFINITIONS",
    '1.1 Agreement. "Agreement" means this supply agreement and every order form issued under it from time to time.',
    '1.2 Products. "Products" means the goods listed in the order forms, in accordance with the specifications.',
    "ARTICLE II PAYMENT",
    "2.1 Fees. Buyer shall pay the fees of $10,000 per month within thirty (30) days of each invoice it receives.",
    "2.2 Late Payment. Late amounts bear interest until they are paid in full. Interest is computed daily on them.",
    "(a) Interest accrues at one percent per month on every amount not paid when it is due under this Agreement.",
    "(b) Buyer may dispute an invoice in good faith by written notice given before the date on which it is due.",
    "ARTICLE III TERM",
    "3.1 Term. This Agreement continues for three (3) years from the date in 2021 on which both parties sign it.",
    "3.2 Renewal. Either party may renew this Agreement by notice given to the other party pursuant to Section 9.",
    "3.3 Termination. Either party may terminate this Agreement for a material breach not cured within sixty days.",
    "ARTICLE IV LAW",
    "4.1 Law. This Agreement is governed by the laws of the State of New York, without regard to its conflict rules.",
    "4.2 Venue. The courts of New York County have jurisdiction over any dispute arising out of this Agreement.",
    "ARTICLE V NOTICES",
    "5.1 Notices. Notices under this Agreement are given in writing to the addresses the parties set out above.",
    "5.2 Copies. A copy of every notice of breach is also sent to the legal department of the party receiving it.",
]


def test_clause_numbers_are_automatic_numbering_read_back_as_written(tmp_path: Path) -> None:
    path = write_numbered_docx(tmp_path / "supply.docx", CLAUSES)
    with zipfile.ZipFile(path) as archive:
        body = archive.read("word/document.xml").decode()
        assert "word/numbering.xml" in archive.namelist()
    assert "ARTICLE III" not in body and "2.2 Late" not in body and "(a) Interest" not in body
    paragraphs = read_docx(path).paragraphs
    assert [p.number for p in paragraphs[1:9]] == ["ARTICLE I", "1.1", "1.2", "ARTICLE II", "2.1", "2.2", "(a)", "(b)"]
    written = [c.text for c in document_clauses(word_pages(path))]
    assert written == [" ".join(c.split()) for c in CLAUSES]


def test_a_renumbered_article_is_renumbered_by_the_numbering(tmp_path: Path) -> None:
    pair = apply_edits(CLAUSES, seed=1)
    path = write_numbered_docx(tmp_path / "new.docx", pair.new)
    numbers = [p.number for p in read_docx(path).paragraphs if p.number and p.number.startswith("ARTICLE")]
    assert numbers == ["ARTICLE I", "ARTICLE II", "ARTICLE IV", "ARTICLE V", "ARTICLE VI"]
    with zipfile.ZipFile(path) as archive:
        assert "ARTICLE" not in archive.read("word/document.xml").decode()


def test_a_number_skipped_after_a_deleted_clause_is_counted_on_as_word_counts(tmp_path: Path) -> None:
    clauses = [CLAUSES[4], CLAUSES[5], CLAUSES[7], CLAUSES[8], CLAUSES[9], CLAUSES[11].replace("3.2", "3.4")]
    clauses[2] = clauses[2].replace("(a)", "2.3")  # 2.2 deleted: Word shows this one as 2.2
    counted = [p.number for p in read_docx(write_numbered_docx(tmp_path / "counted.docx", clauses)).paragraphs]
    kept_path = write_numbered_docx(tmp_path / "kept.docx", clauses, keep_gaps=True)
    kept = [p.number for p in read_docx(kept_path).paragraphs]
    assert counted == ["ARTICLE II", "2.1", "2.2", "(b)", "ARTICLE III", "3.1"]  # an item keeps its letter
    assert kept == ["ARTICLE II", "2.1", "2.3", "(b)", "ARTICLE III", "3.4"]


def test_a_small_word_pair_scores_as_its_truth_says(tmp_path: Path) -> None:
    pair = apply_edits(CLAUSES, seed=36)  # a seed whose edits include a clause moved, added and removed
    kinds = {t.kind for t in pair.truth}
    assert {"changed", "removed", "moved", "added"} <= kinds and pair.renumbered_keys
    old = word_pages(write_numbered_docx(tmp_path / "old.docx", pair.old))
    new = word_pages(write_numbered_docx(tmp_path / "new.docx", pair.new))
    renumbered = renumbered_only(pair, old, new)
    assert pair.renumbered_keys < renumbered  # and those Word counted on after the deleted clause
    pair = dataclasses.replace(pair, renumbered_keys=renumbered)
    score = score_pages("supply", 1, pair, old, new, held_apart=False, pair_type="word-word")
    assert score.missed == [] and sum(score.found.values()) == len(pair.truth)
    assert score.kind_right == score.truth
    assert score.reported == score.reported_true, score.false_changes
    assert score.material_found == score.material_truth > 0
    assert score.renumbered_clauses == len(pair.renumbered_keys) and score.renumbered_reported_changed == 0


def test_a_word_contract_as_source_is_written_back_with_its_clauses(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "fixtures" / "docx" / "common-paper-cloud-service-agreement.docx"
    clauses = word_source_clauses(source, tmp_path)
    assert len(clauses) > 100
    path = write_numbered_docx(tmp_path / "csa.docx", clauses)
    assert [c.text for c in document_clauses(word_pages(path))] == clauses
    assert sum(1 for p in read_docx(path).paragraphs if p.number) > 100
