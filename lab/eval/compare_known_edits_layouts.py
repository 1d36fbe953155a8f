"""Known edits across layouts: the benchmark of ``lab.eval.compare_known_edits`` on versions laid
out by different programs (issue 56, item 2).

    flock /tmp/pagewise-cpu.lock .venv/bin/python -m lab.eval.compare_known_edits_layouts --seeds 2 \
        [--out docs/data/compare-known-edits/layout_pairs.json]

Each fixture contract's clauses get the same known edits (``lab.eval.known_edits``); each edited
pair is then laid out four ways (``lab.eval.layout_render``) and compared by Pagewise as it
compares two documents of its library (``score_pages``):

- ``same-layout``: both as the plain test PDFs of ``compare_known_edits`` (no running header or
  footer, no page number; the new one reflowed): today's benchmark, for reference;
- ``sec-original``: the original SEC-filed PDF of the fixture (its running headers, page numbers and
  text layer, U+037E for ";" among them) against a re-rendering of its edited text in the
  "counterparty" layout. The edits apply to the original's clauses as Pagewise cuts them with page
  furniture left out (the text a redraft starts from); no placeholder is put in the old version,
  as the old version is the original file;
- ``pdf-layouts``: the text of ``sec-original``'s old version settled through the test PDF (as
  today's benchmark settles it) and edited alike, the old version in the "firm" layout
  (DejaVu Sans 10, a confidential legend, "Page N of M") against the new one in the "counterparty"
  layout (DejaVu Serif 11.5, other margins, the document's name and a page number in the footer);
- ``word-libreoffice``: the same edited pair, the old version as a Word file (automatic
  numbering, a running header and a footer with a PAGE field) against LibreOffice's PDF of the
  new version's Word file (skipped when ``soffice`` is not installed).

Scored as the other known-edits pairs: recall and precision of changed clauses, by kind, material
marks, renumbered-only clauses reported as changed. ``supply-16p`` and ``franchise-115p`` are held
apart: reported beside the others, nothing chosen by them.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import asdict, replace
from pathlib import Path

from lab.eval.compare_known_edits import (
    DEVELOPMENT,
    FIXTURES,
    HELD_APART,
    NEW_WIDTH,
    OLD_WIDTH,
    PairScore,
    base_clauses,
    read_pages,
    score_pages,
    settled_clauses,
    summarize,
    write_version,
)
from lab.eval.compare_known_edits_word import renumbered_only, word_pages
from lab.eval.known_edits import EditedPair, apply_edits
from lab.eval.layout_render import LAYOUTS, libreoffice_pdf, render_layout, soffice, write_word
from lab.results import write_json
from summarizer.library.cutting.clause_units import document_clauses
from summarizer.library.reading.page_furniture import without_furniture

LAYOUT_PAIRS = ("same-layout", "sec-original", "pdf-layouts", "word-libreoffice")


def original_clauses(path: Path) -> list[str]:
    """The original PDF's clauses as Pagewise cuts them, its page furniture left out."""
    return [c.text for c in document_clauses(without_furniture(read_pages(path)))]


def original_pair(clauses: list[str], seed: int) -> EditedPair:
    """The known edits on the original's clauses, the old version left as the original is."""
    pair = apply_edits(clauses, seed)
    truth = [t for t in pair.truth if t.edit != "fill placeholder"]
    return replace(pair, old=list(clauses), truth=truth)


def _report(score: PairScore) -> None:
    print(
        f"{score.pair_type} {score.fixture} seed {score.seed}: {sum(score.found.values())}/"
        f"{sum(score.truth.values())} found, {score.reported_true}/{score.reported} reported true, material "
        f"{score.material_found}/{score.material_truth}, renumbered reported {score.renumbered_reported_changed}",
        flush=True,
    )


def run(fixtures: list[str], seeds: int, workdir: Path, pair_types: list[str]) -> list[PairScore]:
    scores: list[PairScore] = []
    word_jobs: list[tuple[str, int, EditedPair, Path, Path]] = []
    for fixture in fixtures:
        held = fixture in HELD_APART
        original = FIXTURES / f"{fixture}.pdf"
        plain = original_clauses(original)
        # As today's benchmark settles them (the SEC filing's headers and page numbers in them)
        # for the same-layout pairs; without them for the layouts, whose furniture is their own.
        settled = base_clauses(original, workdir)
        settled_plain = settled_clauses(plain, f"{fixture}-plain", workdir)
        for seed in range(1, seeds + 1):
            stem = workdir / f"{fixture}-{seed}"
            if "same-layout" in pair_types:
                pair = apply_edits(settled, seed)
                old = read_pages(write_version(Path(f"{stem}-old.pdf"), pair.old, OLD_WIDTH))
                new = read_pages(write_version(Path(f"{stem}-new.pdf"), pair.new, NEW_WIDTH))
                scores.append(score_pages(fixture, seed, pair, old, new, held, "same-layout"))
                _report(scores[-1])
            pair = apply_edits(settled_plain, seed)
            if "sec-original" in pair_types:
                edited = original_pair(plain, seed)
                new_pdf = render_layout(Path(f"{stem}-redraft.pdf"), fixture, edited.new, LAYOUTS["counterparty"])
                scores.append(
                    score_pages(fixture, seed, edited, read_pages(original), read_pages(new_pdf), held, "sec-original")
                )
                _report(scores[-1])
            if "pdf-layouts" in pair_types:
                old_pdf = render_layout(Path(f"{stem}-firm.pdf"), fixture, pair.old, LAYOUTS["firm"])
                new_pdf = render_layout(Path(f"{stem}-counterparty.pdf"), fixture, pair.new, LAYOUTS["counterparty"])
                scores.append(
                    score_pages(fixture, seed, pair, read_pages(old_pdf), read_pages(new_pdf), held, "pdf-layouts")
                )
                _report(scores[-1])
            if "word-libreoffice" in pair_types:
                old_docx = write_word(Path(f"{stem}-old.docx"), fixture, pair.old)
                new_docx = write_word(Path(f"{stem}-new.docx"), fixture, pair.new)
                word_jobs.append((fixture, seed, pair, old_docx, new_docx))
    if word_jobs:
        pdfs = libreoffice_pdf([job[4] for job in word_jobs], workdir / "libreoffice")
        for (fixture, seed, pair, old_docx, _), new_pdf in zip(word_jobs, pdfs, strict=True):
            old, new = word_pages(old_docx), read_pages(new_pdf)
            scored = replace(pair, renumbered_keys=renumbered_only(pair, old, new))
            held = fixture in HELD_APART
            scores.append(score_pages(fixture, seed, scored, old, new, held, "word-libreoffice", (False, True)))
            _report(scores[-1])
    return scores


def figures(scores: list[PairScore]) -> dict[str, object]:
    out: dict[str, object] = {}
    for pair_type in LAYOUT_PAIRS:
        of_type = [s for s in scores if s.pair_type == pair_type]
        if of_type:
            out[pair_type] = {
                "development": summarize([s for s in of_type if not s.held_apart]),
                "held_apart": summarize([s for s in of_type if s.held_apart]),
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=2, help="edited copies per contract")
    parser.add_argument("--fixtures", nargs="*", default=[*DEVELOPMENT, *HELD_APART])
    parser.add_argument("--pairs", nargs="*", default=list(LAYOUT_PAIRS), choices=LAYOUT_PAIRS)
    parser.add_argument("--out", type=Path, help="write the figures as JSON")
    args = parser.parse_args()
    pair_types = list(args.pairs)
    if "word-libreoffice" in pair_types and soffice() is None:
        print("LibreOffice (soffice) is not installed: word-libreoffice pairs skipped")
        pair_types.remove("word-libreoffice")
    with tempfile.TemporaryDirectory() as tmp:
        scores = run(args.fixtures, args.seeds, Path(tmp), pair_types)
    result = {"figures": figures(scores), "pairs": [asdict(s) for s in scores]}
    summary = {
        t: {g: {k: v for k, v in s.items() if not k.startswith("baseline")} for g, s in groups.items()}
        for t, groups in result["figures"].items()  # type: ignore[attr-defined]
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        write_json(args.out, result, ensure_ascii=False)


if __name__ == "__main__":
    main()
