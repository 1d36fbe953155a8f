"""Does a Word passage's label name a clause that holds the words it was found by? (issue 56, item 1)

    PYTHONPATH=$PWD .venv/bin/python -m lab.eval.docx_citations [--folder ../shared/data/docx-contracts]
        [--questions lab/eval/docx_retrieval_questions.json] [--out docs/data/docx-citations/after.json]
    PYTHONPATH=$PWD .venv/bin/python -m lab.eval.docx_citations --summarize docs/data/docx-citations/after.json

Each Word contract of ``--folder`` that has questions in ``--questions`` is added to a fresh
temporary library (``PAGEWISE_HOME``) with the product's ingest, and its labels are read as a user
sees them:

- ``review``: an evidence-only review against the bundled CUAD checklist
  (``summarizer.review.evidence.review_evidence``): each item's best evidence's locator, what the
  grid cell, the exports and Copy reference show; its query is the item's question and searches;
- ``search``: ``pagewise search DOC "QUESTION" --json -k 3`` (``app.commands.search.run``), each
  result's locator, for every question of the file;
- ``answer``: the same passages as an answer's passage links name them
  (``app.services.answering._given_views``, retrieval mode), the question being the query.

The judge, which the product does not share: a passage's *matched words* are the query's content
words (not stop words, three letters or more, cut to five letters) that occur in the passage. The
clause a label names ("§ 12.3 …", or "§§ 12.3–12.6" from the first paragraph of 12.3 to the last
of 12.6) is read within the label's paragraphs, from the stored numbering
(``word_parts.paragraph_clauses``). A label *holds all* when that clause's paragraphs hold every
matched word of the passage, *holds any* when they hold at least one; a label that names no clause
("¶ 3–5") holds none; labels of passages with no matched word are left out (counted). Beside the
shares, ``paragraphs_named``: how many paragraphs a judged label names on average (a label that
names the whole passage holds all its words; this says how much narrower they are).
``--summarize`` writes an earlier ``--out``'s summary again from its rows (after this figure was added).

Run it on the code before a change (a ``git worktree add /tmp/before HEAD~N`` with this file copied
in) and after: the held-apart Word contracts (``lab.eval.docx_numbering.HELD_APART``) are
reported apart, and nothing was chosen by them. Not a test; run it alone (``flock
/tmp/pagewise-cpu.lock``): it embeds 16 documents and runs 41 items on each.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lab.eval.docx_numbering import FOLDER, HELD_APART
from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "lab" / "eval" / "docx_retrieval_questions.json"
K = 3
STEM_CHARS = 5
_WORD = re.compile(r"[^\W_]+")
_PARAGRAPHS = re.compile(r"¶ (\d+)(?:–(\d+))?")


def judge_stems(text: str) -> set[str]:
    from summarizer.search.fts_query import STOPWORDS

    return {w[:STEM_CHARS] for w in (m.lower() for m in _WORD.findall(text)) if len(w) > 2 and w not in STOPWORDS}


def _in_clause(key: str, clause: str) -> bool:
    """``key`` (a paragraph's clause reference) is ``clause`` or one of its sub-clauses."""
    return key == clause or (key.startswith(clause) and not key[len(clause)].isdigit())


def _clause_at(head: str, clauses: set[str]) -> str:
    """The longest clause reference that ``head`` opens with ("12.3 Governing Law" → "12.3")."""
    found = [c for c in clauses if head == c or head.startswith(c + " ")]
    return max(found, key=len, default="")


def named_paragraphs(label: str, keys: dict[int, str]) -> set[int] | None:
    """The paragraphs of the clause(s) ``label`` names, within its paragraphs; None when it names
    no clause."""
    paragraphs = _PARAGRAPHS.search(label)
    if paragraphs is None:
        return None
    first = int(paragraphs.group(1))
    last = int(paragraphs.group(2) or first)
    head = label[: paragraphs.start()].rstrip(", ").removeprefix("§§ ").removeprefix("§ ")
    if not head:
        return None
    clauses = set(keys.values())
    within = [p for p in sorted(keys) if first <= p <= last]
    if "–" in head:
        start, _, end = head.partition("–")
        a, b = _clause_at(start, clauses), _clause_at(end, clauses)
        if not a or not b:
            return None
        starts = [p for p in within if _in_clause(keys[p], a)]
        ends = [p for p in within if _in_clause(keys[p], b)]
        return {p for p in within if starts and ends and starts[0] <= p <= ends[-1]}
    clause = _clause_at(head, clauses)
    return {p for p in within if _in_clause(keys[p], clause)} if clause else None


def judge(label: str, query: str, passage: tuple[int, int], texts: dict[int, str], keys: dict[int, str]) -> str:
    """``all``, ``any``, ``none`` (names a clause without the words, or no clause) or ``unmatched``."""
    wanted = judge_stems(query)
    first, last = passage
    matched = wanted & judge_stems(" ".join(texts.get(p, "") for p in range(first, last + 1)))
    if not matched:
        return "unmatched"
    named = named_paragraphs(label, keys)
    if not named:
        return "none"
    held = wanted & judge_stems(" ".join(texts.get(p, "") for p in named))
    return "all" if matched <= held else "any" if matched & held else "none"


def document_keys(library: Any, doc_id: str) -> tuple[dict[int, str], dict[int, str]]:
    """Each paragraph's text with its number, and its clause reference ("" outside any clause)."""
    from summarizer.library.word_parts import paragraph_clauses, word_paragraphs

    paragraphs = word_paragraphs(library, doc_id)
    texts = {p.index: f"{p.number or ''} {p.text}" for p in paragraphs}
    keys = {p.index: "" for p in paragraphs}
    keys.update({index: reference for reference, index in paragraph_clauses(library, doc_id)})
    return texts, keys


def search_labels(doc_id: str, question: str) -> list[dict[str, Any]]:
    """What ``pagewise search DOC QUESTION --json -k 3`` prints: each result with its locator."""
    from app.commands.search import run

    args = argparse.Namespace(target=doc_id, query=question, all=False, k=K, json=True)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run(args)
    return list(json.loads(out.getvalue())["results"])


def answer_labels(library: Any, doc_id: str, question: str, results: Sequence[dict[str, Any]]) -> list[str]:
    """The answer's passage links for ``results`` given to the model (retrieval mode)."""
    from app.services.answering import _given_views

    given = {"passages": [{**r, "doc_id": doc_id} for r in results]}
    if "question" in inspect.signature(_given_views).parameters:
        views = _given_views(library, doc_id, "retrieval", given, question)
    else:  # the code before issue 56
        views = _given_views(library, doc_id, "retrieval", given)  # type: ignore[call-arg]
    return [v.label for v in views]


def run(folder: Path, names: Sequence[str], questions: dict[str, list[str]], out: Path | None = None) -> dict[str, Any]:
    from summarizer.library.ingest import ingest_path
    from summarizer.library.storage.store import Library
    from summarizer.review.checklist import load_checklist
    from summarizer.review.evidence import review_evidence

    checklist = load_checklist("cuad")
    rows: list[dict[str, Any]] = []
    for name in names:
        with Library.open() as library:
            doc_id = ingest_path(library, folder / f"{name}.docx").doc_id
            texts, keys = document_keys(library, doc_id)
            (review,) = review_evidence(library, [doc_id], checklist)
            for item, spec in zip(review.items, checklist.items, strict=True):
                if not item.evidence:
                    continue
                best = item.evidence[0]
                query = " ".join((spec.question, *spec.queries))
                span = (best.page_start, best.page_end)
                rows.append(_row(name, "review", item.category, best.locator, query, span, texts, keys))
        for question in questions.get(name, []):
            results = search_labels(doc_id, question)
            for r in results:
                span = (int(r["page_start"]), int(r["page_end"]))
                rows.append(_row(name, "search", question, str(r["locator"] or ""), question, span, texts, keys))
            with Library.open() as library:
                labels = answer_labels(library, doc_id, question, results)
            for r, label in zip(results, labels, strict=True):
                span = (int(r["page_start"]), int(r["page_end"]))
                rows.append(_row(name, "answer", question, label, question, span, texts, keys))
        print(f"{name}: {sum(r['contract'] == name for r in rows)} labels", file=sys.stderr)
        if out is not None:  # written after each contract: a long run can be read part-way
            write_json(out, {"summary": summarize(rows), "rows": rows}, ensure_ascii=False)
    return {"summary": summarize(rows), "rows": rows}


def _row(
    name: str,
    kind: str,
    asked: str,
    label: str,
    query: str,
    span: tuple[int, int],
    texts: dict[int, str],
    keys: dict[int, str],
) -> dict[str, Any]:
    return {
        "contract": name,
        "held_apart": name in HELD_APART,
        "kind": kind,
        "asked": asked,
        "passage": list(span),
        "label": label,
        "verdict": judge(label, query, span, texts, keys),
    }


def named_count(label: str) -> int:
    """How many paragraphs ``label`` names ("¶ 95–97": 3)."""
    paragraphs = _PARAGRAPHS.search(label)
    if paragraphs is None:
        return 0
    return int(paragraphs.group(2) or paragraphs.group(1)) - int(paragraphs.group(1)) + 1


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def agg(subset: list[dict[str, Any]]) -> dict[str, Any]:
        judged = [r for r in subset if r["verdict"] != "unmatched"]
        n = len(judged)
        return {
            "labels": len(subset),
            "judged": n,
            "holds_all": round(sum(r["verdict"] == "all" for r in judged) / n, 3) if n else None,
            "holds_any": round(sum(r["verdict"] in ("all", "any") for r in judged) / n, 3) if n else None,
            "ranges": sum(r["label"].startswith("§§") for r in judged),
            "paragraphs_named": round(sum(named_count(r["label"]) for r in judged) / n, 2) if n else None,
        }

    out: dict[str, Any] = {}
    for group, held in (("development", False), ("held_apart", True)):
        chosen = [r for r in rows if r["held_apart"] == held]
        out[group] = {kind: agg([r for r in chosen if r["kind"] == kind]) for kind in ("review", "search", "answer")}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folder", type=Path, default=FOLDER)
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--only", nargs="*", help="these contracts (file names without .docx) alone")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--summarize", type=Path, help="summarize the rows of this earlier --out again, run nothing")
    args = ap.parse_args()
    if args.summarize is not None:
        rows = json.loads(args.summarize.read_text())["rows"]
        write_json(args.summarize, {"summary": summarize(rows), "rows": rows}, ensure_ascii=False)
        print(json.dumps(summarize(rows), indent=1))
        return 0
    questions = {k: v for k, v in json.loads(args.questions.read_text()).items() if not k.startswith("_")}
    names = args.only or sorted(questions)
    with tempfile.TemporaryDirectory(prefix="pagewise-docx-citations-") as scratch:
        os.environ["PAGEWISE_HOME"] = str(Path(scratch) / "home")
        result = run(args.folder, names, questions, args.out)
    print(json.dumps(result["summary"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
