"""Known edits on Word pairs: the benchmark of ``lab.eval.compare_known_edits`` with both versions
written as PDF and as Word, and the shared Word contracts as sources beside the CUAD fixtures.

    flock /tmp/pagewise-cpu.lock .venv/bin/python -m lab.eval.compare_known_edits_word --seeds 2 \
        [--shared ../shared/data/docx-contracts] [--out docs/data/compare-known-edits/word_pairs.json]

Each source's clauses (a fixture PDF's, or a Word contract's as the .docx reader and Pagewise's cut
give them) are settled through the test PDF as in the PDF benchmark and edited with the same known
edits (``lab.eval.known_edits``). Each edited pair is then written three ways and compared by
Pagewise (``compare_pages``: ``document_clauses`` and ``compare_clauses``, the core ``pagewise
compare`` runs on the stored clauses):

- PDF↔PDF: both as test PDFs, the new one reflowed (another line width);
- Word↔Word: both as Word files whose clause numbers are automatic numbering
  (``lab.eval.numbered_docx``), read by ``DocxPages``, one page per paragraph as ingest reads them;
- PDF↔Word: the old version as PDF, the new as Word (an executed PDF against the draft).

Each is scored as the PDF pairs are (``score_pages``): recall and precision of changed clauses, by
kind, material marks, renumbered-only clauses reported as changed, difflib beside it. Held apart:
``supply-16p`` and ``franchise-115p`` and the Word contracts the Word documents issue held apart
(``HELD_APART_WORD``); nothing here was chosen by them.
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
from lab.eval.known_edits import EditedPair, apply_edits, clause_key
from lab.eval.numbered_docx import write_numbered_docx
from lab.results import write_json
from summarizer.library.cutting.clause_units import document_clauses
from summarizer.library.reading.docx_extract import DocxPages

SHARED_WORD = Path("../shared/data/docx-contracts")
HELD_APART_WORD = (
    "common-paper-professional-services-agreement",
    "common-paper-data-processing-agreement",
    "common-paper-pilot-agreement",
    "bonterms-professional-services-agreement",
)
PAIR_TYPES = ("pdf-pdf", "word-word", "pdf-word")


def word_pages(path: Path) -> list[tuple[int, str]]:
    """A Word file's paragraphs with text as ingest keeps them (``Ingest._chunk_word``)."""
    return [(page.number, page.text) for page in DocxPages(path).pages() if page.text.strip()]


def word_source_clauses(path: Path, workdir: Path) -> list[str]:
    """A Word contract's clauses as Pagewise cuts it, settled through the test PDF."""
    return settled_clauses([c.text for c in document_clauses(word_pages(path))], path.stem, workdir)


def renumbered_only(pair: EditedPair, old_pages: list[tuple[int, str]], new_pages: list[tuple[int, str]]) -> set[str]:
    """The clauses (by ``clause_key``) found once in each version, under another label, and not edited."""

    def labels(pages: list[tuple[int, str]]) -> dict[str, str]:
        found: dict[str, list[str]] = {}
        for clause in document_clauses(pages):
            found.setdefault(clause_key(clause.text), []).append(clause.label)
        return {key: values[0] for key, values in found.items() if len(values) == 1}

    old, new = labels(old_pages), labels(new_pages)
    edited = {t.key for t in pair.truth}
    return {key for key in old.keys() & new.keys() if old[key] != new[key] and key not in edited}


def score_source(name: str, clauses: list[str], seeds: int, held_apart: bool, workdir: Path) -> list[PairScore]:
    scores = []
    for seed in range(1, seeds + 1):
        pair = apply_edits(clauses, seed)
        stem = workdir / f"{name}-{seed}"
        old_pdf = read_pages(write_version(Path(f"{stem}-old.pdf"), pair.old, OLD_WIDTH))
        new_pdf = read_pages(write_version(Path(f"{stem}-new.pdf"), pair.new, NEW_WIDTH))
        old_word = word_pages(write_numbered_docx(Path(f"{stem}-old.docx"), pair.old))
        new_word = word_pages(write_numbered_docx(Path(f"{stem}-new.docx"), pair.new))
        versions = {"pdf-pdf": (old_pdf, new_pdf), "word-word": (old_word, new_word), "pdf-word": (old_pdf, new_word)}
        for pair_type, (old_pages, new_pages) in versions.items():
            scored = pair
            if pair_type != "pdf-pdf":
                # Word counts a section on where the text skipped a number, so which clauses are
                # renumbered only is read from the written versions' clause labels.
                scored = replace(pair, renumbered_keys=renumbered_only(pair, old_pages, new_pages))
            pdf = (pair_type.startswith("pdf"), pair_type.endswith("pdf"))
            score = score_pages(name, seed, scored, old_pages, new_pages, held_apart, pair_type, pdf)
            scores.append(score)
            print(
                f"{pair_type} {name} seed {seed}: {sum(score.found.values())}/{sum(score.truth.values())} found, "
                f"{score.reported_true}/{score.reported} reported true, material {score.material_found}/"
                f"{score.material_truth}, renumbered reported {score.renumbered_reported_changed}",
                flush=True,
            )
    return scores


def run(fixtures: list[str], word_files: list[Path], seeds: int, workdir: Path) -> list[PairScore]:
    scores = []
    for fixture in fixtures:
        clauses = base_clauses(FIXTURES / f"{fixture}.pdf", workdir)
        scores += score_source(fixture, clauses, seeds, fixture in HELD_APART, workdir)
    for path in word_files:
        clauses = word_source_clauses(path, workdir)
        scores += score_source(path.stem, clauses, seeds, path.stem in HELD_APART_WORD, workdir)
    return scores


def figures(scores: list[PairScore], fixtures: set[str]) -> dict[str, object]:
    """Per pair type: development and held apart, all sources and by source (fixtures, Word)."""
    out: dict[str, object] = {}
    for pair_type in PAIR_TYPES:
        of_type = [s for s in scores if s.pair_type == pair_type]
        groups: dict[str, object] = {}
        for group, held in (("development", False), ("held_apart", True)):
            chosen = [s for s in of_type if s.held_apart == held]
            groups[group] = summarize(chosen)
            groups[f"{group}_cuad_fixtures"] = summarize([s for s in chosen if s.fixture in fixtures])
            groups[f"{group}_word_contracts"] = summarize([s for s in chosen if s.fixture not in fixtures])
        out[pair_type] = groups
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=2, help="edited copies per contract")
    parser.add_argument("--fixtures", nargs="*", default=[*DEVELOPMENT, *HELD_APART])
    parser.add_argument("--shared", type=Path, default=SHARED_WORD, help="the shared Word contracts' folder")
    parser.add_argument("--word", nargs="*", help="Word contracts to use (names without .docx); default: all there")
    parser.add_argument("--out", type=Path, help="write the figures as JSON")
    args = parser.parse_args()
    names = args.word if args.word is not None else sorted(p.stem for p in args.shared.glob("*.docx"))
    with tempfile.TemporaryDirectory() as tmp:
        scores = run(args.fixtures, [args.shared / f"{n}.docx" for n in names], args.seeds, Path(tmp))
    result = {"figures": figures(scores, set(args.fixtures)), "pairs": [asdict(s) for s in scores]}
    summary = {
        t: {g: {k: v for k, v in s.items() if not k.startswith("baseline")} for g, s in groups.items()}  # type: ignore[attr-defined]
        for t, groups in result["figures"].items()  # type: ignore[attr-defined]
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        write_json(args.out, result, ensure_ascii=False)


if __name__ == "__main__":
    main()
