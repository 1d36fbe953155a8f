"""Known edits: how completely ``pagewise compare`` finds the changes made to real contracts.

    .venv/bin/python -m lab.eval.compare_known_edits [--seeds 2] [--out docs/data/compare-known-edits/known_edits.json]

Each fixture contract (``tests/fixtures`` via ``/work/shared/fixtures/contracts``) is read and cut
into clauses as Pagewise cuts it; ``lab.eval.known_edits`` applies the edits negotiations make
(amounts, periods, dates, shall→may, a sentence deleted and one inserted, a definition added, a
wording change that is not material, a placeholder filled in, a clause deleted, one inserted, one
moved to another article, the articles from the middle on renumbered) to one copy; both versions
are written as PDF, the new one reflowed (another line width). Pagewise compares the two PDFs (read,
cut, aligned, classified: ``summarizer.compare``) and its list is scored against the truth, per
pair: recall and precision of changed clauses (added, removed, moved, changed) and by kind, of
material marks, and the clauses renumbered only (or only reflowed) that it reported as changed.
A plain line diff (``difflib``) of the two PDFs' text is scored on the same pairs, a line's
changes counted against the clause it falls in; with ``--redlines-site``, python-redlines
(Docxodus) on the same pairs written as Word files likewise (``lab.eval.redlines_baseline``).
``supply-16p`` and ``franchise-115p`` are held apart: reported beside the others, nothing chosen by them.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import tempfile
import textwrap
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lab.eval.known_edits import EditedPair, apply_edits, clause_key, clause_key_full
from lab.eval.redlines_baseline import changed_clause_keys, run_redline, write_docx
from lab.results import write_json
from summarizer.compare.comparison import compare_clauses
from summarizer.compare.differences import ADDED, CHANGED, MERGED, MOVED, REMOVED, SPLIT
from summarizer.library.cutting.clause_units import ClauseUnit, document_clauses, pdf_clauses
from summarizer.library.reading.pdf_extract import PdfPages
from tests.pdf_factory import make_pdf

FIXTURES = Path("/work/shared/fixtures/contracts")
DEVELOPMENT = ("collaboration-154p", "distributor-17p", "endorsement-8p", "license-17p")
HELD_APART = ("supply-16p", "franchise-115p")
OLD_WIDTH, NEW_WIDTH = 92, 76  # characters per line: the new version is reflowed
LINES_PER_PAGE = 50
REPORTED_AS_CHANGED = frozenset({ADDED, REMOVED, MOVED, CHANGED, SPLIT, MERGED})


def read_pages(path: Path) -> list[tuple[int, str]]:
    return [(p.number, p.text) for p in PdfPages(path).pages() if not p.error]


def latin1(text: str) -> str:
    """The text as the test PDF's font can draw it (WinAnsi)."""
    table = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "•": "-", "\u00a0": " "})
    return text.translate(table).encode("latin-1", "replace").decode("latin-1")


ARTICLE_HEADING = re.compile(r"((?:ARTICLE|Article)\s+[IVXLC\d]+)\s+([A-Z][A-Z ,;&'-]+?)(?=\s+[A-Z]?[a-z(\"]|$)")


def write_version(path: Path, clauses: list[str], width: int) -> Path:
    """The clauses as paragraphs wrapped at ``width``; an article's marker and title on lines of
    their own, as contracts set them."""
    lines: list[str] = []
    for clause in clauses:
        for paragraph in clause.split("\n\n"):
            heading = ARTICLE_HEADING.match(paragraph)
            if heading:
                lines += [heading.group(1), heading.group(2).strip()]
                paragraph = paragraph[heading.end() :].strip()
            lines += [*textwrap.wrap(paragraph, width, break_on_hyphens=False), ""]
    pages = [lines[k : k + LINES_PER_PAGE] for k in range(0, len(lines), LINES_PER_PAGE)]
    return make_pdf(path, pages)  # type: ignore[arg-type]


def base_clauses(path: Path, workdir: Path) -> list[str]:
    """The contract's clauses as Pagewise cuts the test PDF of them: cut the real PDF, write the
    clauses as a test PDF and cut that again (twice), so the truth is kept on the clauses the
    comparison sees."""
    return settled_clauses([c.text for c in document_clauses(read_pages(path))], path.stem, workdir)


def settled_clauses(texts: list[str], name: str, workdir: Path) -> list[str]:
    """Clause texts as Pagewise cuts them again from the test PDF written of them (twice)."""
    clauses = [latin1(text) for text in texts]
    for round_ in range(2):
        written = write_version(workdir / f"{name}-base{round_}.pdf", clauses, OLD_WIDTH)
        clauses = [c.text for c in document_clauses(read_pages(written))]
    return clauses


@dataclass
class PairScore:
    fixture: str  # the source contract
    seed: int
    held_apart: bool
    truth: dict[str, int] = field(default_factory=dict)  # edits by kind
    found: dict[str, int] = field(default_factory=dict)  # truth clauses reported as changed, by kind
    kind_right: dict[str, int] = field(default_factory=dict)  # ... and with the right kind
    reported: int = 0  # changes reported (added, removed, moved, changed, split, merged)
    reported_true: int = 0  # of which on a clause the truth has
    material_truth: int = 0
    material_found: int = 0  # truth-material clauses reported material
    material_reported: int = 0
    material_reported_true: int = 0
    renumbered_clauses: int = 0
    renumbered_reported_changed: int = 0
    false_changes: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    skipped_edits: list[str] = field(default_factory=list)
    baseline_reported: int = 0  # difflib: clauses with a changed line
    baseline_reported_true: int = 0
    baseline_found: int = 0
    baseline_renumbered_reported: int = 0
    redlines_ran: bool = False  # python-redlines (Docxodus) on the pair written as Word files
    redlines_reported: int = 0
    redlines_reported_true: int = 0
    redlines_renumbered_reported: int = 0
    redlines_moved_truth: int = 0
    redlines_moved_reported: int = 0  # moved clauses (truth) it reported: as a deletion and an insertion
    redlines_seconds: float = 0.0
    redlines_found: int = 0
    pair_type: str = "pdf-pdf"  # pdf-pdf, word-word or pdf-word (old version, new version)


def _key_of(clause: ClauseUnit | None) -> str:
    return clause_key(clause.text) if clause is not None else ""


def _matching_truth(clauses: list[ClauseUnit | None], truth_keys: list[str]) -> str | None:
    """The truth clause a reported change is about: the same key, or a truth clause's opening
    words inside the reported clause (where the PDF's cut joined it to its neighbour)."""
    keys = {_key_of(c) for c in clauses} - {""}
    exact = next((k for k in truth_keys if k in keys), None)
    if exact is not None:
        return exact
    texts = [clause_key_full(c.text) for c in clauses if c is not None]
    return next((k for k in truth_keys if any(k in text for text in texts)), None)


def score_pair(fixture: str, seed: int, pair: EditedPair, old_pdf: Path, new_pdf: Path) -> PairScore:
    return score_pages(fixture, seed, pair, read_pages(old_pdf), read_pages(new_pdf), fixture in HELD_APART)


def score_pages(
    source: str,
    seed: int,
    pair: EditedPair,
    old_pages: list[tuple[int, str]],
    new_pages: list[tuple[int, str]],
    held_apart: bool,
    pair_type: str = "pdf-pdf",
    pdf: tuple[bool, bool] = (True, True),
) -> PairScore:
    """Pagewise's comparison of the two versions' pages (PDF pages or Word paragraphs, as ``pdf``
    says for the old and the new version) scored against the pair's truth, with difflib's line
    diff beside it. The clauses are cut as ingest cuts them: a PDF's without its page furniture."""
    score = PairScore(source, seed, held_apart, skipped_edits=pair.skipped, pair_type=pair_type)
    comparison = compare_clauses(
        pdf_clauses(old_pages) if pdf[0] else document_clauses(old_pages),
        pdf_clauses(new_pages) if pdf[1] else document_clauses(new_pages),
    )
    truth_by_key = {t.key: t for t in pair.truth}
    for t in pair.truth:
        score.truth[t.kind] = score.truth.get(t.kind, 0) + 1
    score.material_truth = sum(1 for t in pair.truth if t.material)
    score.renumbered_clauses = len(pair.renumbered_keys)
    hits: dict[str, str] = {}  # truth key -> reported kind
    material_hits: set[str] = set()
    for change in comparison.changes:
        if change.kind not in REPORTED_AS_CHANGED:
            continue
        keys = {_key_of(change.old), _key_of(change.new)} - {""}
        matched = _matching_truth([change.old, change.new], [k for k in truth_by_key if k not in hits])
        matched = matched or _matching_truth([change.old, change.new], list(truth_by_key))
        score.reported += 1
        if change.material:
            score.material_reported += 1
        if matched is None:
            if keys & pair.renumbered_keys:
                score.renumbered_reported_changed += 1
            label = (change.new or change.old).display_label  # type: ignore[union-attr]
            score.false_changes.append(f"{change.kind} {label}: {'; '.join(change.reasons)}")
            continue
        score.reported_true += 1
        hits.setdefault(matched, change.kind)
        if change.material and truth_by_key[matched].material:
            score.material_reported_true += 1
            material_hits.add(matched)
    for t in pair.truth:
        if t.key in hits:
            score.found[t.kind] = score.found.get(t.kind, 0) + 1
            right = hits[t.key] == t.kind or (t.kind == ADDED and hits[t.key] == SPLIT)
            score.kind_right[t.kind] = score.kind_right.get(t.kind, 0) + int(right)
        else:
            score.missed.append(f"{t.edit}: {t.key[:60]}")
    score.material_found = sum(1 for t in pair.truth if t.material and t.key in material_hits)
    _score_baseline(score, pair, old_pages, new_pages)
    return score


def _line_clauses(pages: list[tuple[int, str]]) -> list[tuple[str, str]]:
    """Each text line with the key of the clause it falls in."""
    clauses = document_clauses(pages)
    out = []
    k = 0
    for _, text in pages:
        for line in text.splitlines():
            words = " ".join(line.split())
            if not words:
                continue
            while k + 1 < len(clauses) and words not in clauses[k].text:
                k += 1
            out.append((words, _key_of(clauses[k]) if clauses else ""))
    return out


def _score_baseline(
    score: PairScore, pair: EditedPair, old_pages: list[tuple[int, str]], new_pages: list[tuple[int, str]]
) -> None:
    old_lines, new_lines = _line_clauses(old_pages), _line_clauses(new_pages)
    matcher = difflib.SequenceMatcher(None, [w for w, _ in old_lines], [w for w, _ in new_lines], autojunk=False)
    changed: set[str] = set()
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "equal":
            changed |= {key for _, key in old_lines[i1:i2]} | {key for _, key in new_lines[j1:j2]}
    changed.discard("")
    truth_keys = {t.key for t in pair.truth}
    score.baseline_reported = len(changed)
    score.baseline_reported_true = len(changed & truth_keys)
    score.baseline_found = len(truth_keys & changed)
    score.baseline_renumbered_reported = len(changed & pair.renumbered_keys)


def score_redlines(score: PairScore, pair: EditedPair, workdir: Path, name: str, site: Path) -> None:
    """python-redlines' tracked changes on the same pair written as Word files, scored as difflib's."""
    old_docx = write_docx(workdir / f"{name}-old.docx", pair.old)
    new_docx = write_docx(workdir / f"{name}-new.docx", pair.new)
    started = time.perf_counter()
    redline = run_redline(old_docx, new_docx, workdir / f"{name}-redline.docx", site)
    score.redlines_seconds = round(time.perf_counter() - started, 2)
    changed = changed_clause_keys(pair.old, pair.new, redline)
    truth_keys = {t.key for t in pair.truth}
    moved_keys = {t.key for t in pair.truth if t.kind == MOVED}
    score.redlines_ran = True
    score.redlines_reported = len(changed)
    score.redlines_reported_true = len(changed & truth_keys)
    score.redlines_renumbered_reported = len(changed & pair.renumbered_keys)
    score.redlines_moved_truth = len(moved_keys)
    score.redlines_moved_reported = len(changed & moved_keys)
    score.redlines_found = len(changed & truth_keys)


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def summarize(scores: list[PairScore]) -> dict[str, object]:
    def total(name: str) -> int:
        return sum(int(getattr(s, name)) for s in scores)

    truth = sum(sum(s.truth.values()) for s in scores)
    found = sum(sum(s.found.values()) for s in scores)
    kinds = sorted({k for s in scores for k in s.truth})
    return {
        "pairs": len(scores),
        "changed_clauses": truth,
        "recall_changed": _ratio(found, truth),
        "precision_changed": _ratio(total("reported_true"), total("reported")),
        "recall_by_kind": {
            k: _ratio(sum(s.found.get(k, 0) for s in scores), sum(s.truth.get(k, 0) for s in scores)) for k in kinds
        },
        "right_kind_by_kind": {
            k: _ratio(sum(s.kind_right.get(k, 0) for s in scores), sum(s.truth.get(k, 0) for s in scores))
            for k in kinds
        },
        "material_recall": _ratio(total("material_found"), total("material_truth")),
        "material_precision": _ratio(total("material_reported_true"), total("material_reported")),
        "renumbered_clauses": total("renumbered_clauses"),
        "renumbered_reported_changed": total("renumbered_reported_changed"),
        "baseline_difflib": {
            "recall_changed": _ratio(total("baseline_found"), truth),
            "precision_changed": _ratio(total("baseline_reported_true"), total("baseline_reported")),
            "renumbered_reported_changed": total("baseline_renumbered_reported"),
        },
        "baseline_python_redlines": {
            "pairs": sum(1 for s in scores if s.redlines_ran),
            "recall_changed": _ratio(total("redlines_found"), truth) if any(s.redlines_ran for s in scores) else None,
            "precision_changed": _ratio(total("redlines_reported_true"), total("redlines_reported")),
            "renumbered_reported_changed": total("redlines_renumbered_reported"),
            "moved_reported": f"{total('redlines_moved_reported')} of {total('redlines_moved_truth')}",
            "seconds_per_pair": round(sum(s.redlines_seconds for s in scores) / max(1, len(scores)), 2),
        },
    }


def run(fixtures: list[str], seeds: int, workdir: Path, redlines_site: Path | None = None) -> list[PairScore]:
    scores = []
    for fixture in fixtures:
        clauses = base_clauses(FIXTURES / f"{fixture}.pdf", workdir)
        for seed in range(1, seeds + 1):
            pair = apply_edits(clauses, seed)
            old_pdf = write_version(workdir / f"{fixture}-{seed}-old.pdf", pair.old, OLD_WIDTH)
            new_pdf = write_version(workdir / f"{fixture}-{seed}-new.pdf", pair.new, NEW_WIDTH)
            score = score_pair(fixture, seed, pair, old_pdf, new_pdf)
            if redlines_site is not None:
                score_redlines(score, pair, workdir, f"{fixture}-{seed}", redlines_site)
            scores.append(score)
            print(
                f"{fixture} seed {seed}: {sum(score.found.values())}/{sum(score.truth.values())} found, "
                f"{score.reported_true}/{score.reported} reported true, material {score.material_found}/"
                f"{score.material_truth}, renumbered reported {score.renumbered_reported_changed}"
            )
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=2, help="edited copies per contract")
    parser.add_argument("--fixtures", nargs="*", default=[*DEVELOPMENT, *HELD_APART])
    parser.add_argument("--out", type=Path, help="write the figures as JSON")
    parser.add_argument(
        "--redlines-site",
        type=Path,
        help="a folder python-redlines[docxodus] was installed into (pip install --target): scores it as a "
        "baseline on the pairs written as Word files (lab/eval/redlines_baseline.py)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scores = run(args.fixtures, args.seeds, Path(tmp), args.redlines_site)
    result = {
        "development": summarize([s for s in scores if not s.held_apart]),
        "held_apart": summarize([s for s in scores if s.held_apart]),
        "pairs": [asdict(s) for s in scores],
    }
    print(json.dumps({k: result[k] for k in ("development", "held_apart")}, indent=1))
    if args.out:
        write_json(args.out, result, ensure_ascii=False)


if __name__ == "__main__":
    main()
