"""Does search find the same clause in a Word contract as in its PDF rendering? (issue 43)

    .venv/bin/python -m lab.eval.docx_retrieval [--folder ../shared/data/docx-contracts]
        [--rendered DIR] [--questions lab/eval/docx_retrieval_questions.json]
        [--out docs/data/docx-retrieval/retrieval.json]

Each ``.docx`` is rendered to PDF by LibreOffice (``soffice --headless --convert-to pdf``; an
optional tool, never needed by Pagewise; ``--rendered`` reuses PDFs made before). Both files are
added to one fresh temporary library (``PAGEWISE_HOME``) with the product's ingest, embedding
included (the configured embedder), and every question of ``--questions`` written for that contract
is asked of each through ``summarizer.search.retrieval.search`` (what ``pagewise search DOC
"QUESTION" -k 3`` runs), each restricted to its own document.

What a passage holds is said in the Word document's terms: the clause reference of each of its
paragraphs ("8.1(a)", from the stored numbering; "¶ 12" for a paragraph outside any numbered
clause). A Word passage's paragraphs are its range; a PDF passage holds the Word paragraphs whose
opening words (up to ``KEY_WORDS``, at least ``MIN_WORDS``) appear in its text, both reduced to
lower-case words. For each question:

- ``pdf_first_in_word_top3``: a clause of the PDF's first passage is among the Word top 3's
  clauses (the issue's target: the Word top 3 holds the clause the PDF search leads with);
- ``word_first_in_pdf_top3``: the same the other way round;
- ``top3_share_a_clause``: the two top 3s hold at least one clause in common;
- ``first_passages_share_a_clause``: the two first passages hold at least one clause in common;
- ``top3_jaccard``: clauses in both top 3s over clauses in either.

The four files issue 43 holds apart are reported apart; nothing was chosen by them. Not a test;
run it alone on the machine (``flock /tmp/pagewise-cpu.lock``): it embeds 32 documents.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lab.eval.docx_numbering import FOLDER, HELD_APART, render
from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "lab" / "eval" / "docx_retrieval_questions.json"
K = 3
KEY_WORDS = 10
MIN_WORDS = 4
_WORDS = re.compile(r"\w+")


def words(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower()))


def paragraph_keys(library: Any, doc_id: str) -> dict[int, str]:
    """Each stored Word paragraph's clause reference, or "¶ N" outside numbered clauses."""
    from summarizer.library.word_parts import paragraph_clauses, word_paragraphs

    keys = {p.index: f"¶ {p.index}" for p in word_paragraphs(library, doc_id)}
    keys.update({index: reference for reference, index in paragraph_clauses(library, doc_id)})
    return keys


def paragraph_openings(library: Any, doc_id: str) -> dict[int, str]:
    """The opening words of each Word paragraph long enough to be found in a PDF passage."""
    from summarizer.library.word_parts import word_paragraphs

    out = {}
    for paragraph in word_paragraphs(library, doc_id):
        opening = words(paragraph.text).split()[:KEY_WORDS]
        if len(opening) >= MIN_WORDS:
            out[paragraph.index] = " ".join(opening)
    return out


def clauses_of_word_passage(result: Any, keys: dict[int, str]) -> set[str]:
    return {keys[i] for i in range(result.page_start, result.page_end + 1) if i in keys}


def clauses_of_pdf_passage(result: Any, openings: dict[int, str], keys: dict[int, str]) -> set[str]:
    text = words(result.text)
    return {keys[index] for index, opening in openings.items() if opening in text and index in keys}


def score_question(word_top: list[set[str]], pdf_top: list[set[str]]) -> dict[str, Any]:
    word_all = set().union(*word_top) if word_top else set()
    pdf_all = set().union(*pdf_top) if pdf_top else set()
    either = word_all | pdf_all
    return {
        "pdf_first_in_word_top3": bool(pdf_top and pdf_top[0] & word_all),
        "word_first_in_pdf_top3": bool(word_top and word_top[0] & pdf_all),
        "top3_share_a_clause": bool(word_all & pdf_all),
        "first_passages_share_a_clause": bool(word_top and pdf_top and word_top[0] & pdf_top[0]),
        "top3_jaccard": len(word_all & pdf_all) / len(either) if either else 0.0,
        "pdf_first_unplaced": bool(pdf_top and not pdf_top[0]),
    }


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def share(subset: list[dict[str, Any]], key: str) -> float:
        return round(sum(float(r[key]) for r in subset) / len(subset), 3) if subset else 0.0

    def agg(subset: list[dict[str, Any]]) -> dict[str, Any]:
        measures = (
            "pdf_first_in_word_top3",
            "word_first_in_pdf_top3",
            "top3_share_a_clause",
            "first_passages_share_a_clause",
            "top3_jaccard",
        )
        out: dict[str, Any] = {"questions": len(subset)}
        out.update({key: share(subset, key) for key in measures})
        out["pdf_first_unplaced"] = sum(r["pdf_first_unplaced"] for r in subset)
        return out

    development = [r for r in rows if r["contract"] not in HELD_APART]
    held = [r for r in rows if r["contract"] in HELD_APART]
    contracts = sorted({r["contract"] for r in rows})
    return {
        "development": agg(development),
        "held_apart": agg(held),
        "by_contract": {c: agg([r for r in rows if r["contract"] == c]) for c in contracts},
    }


def run(folder: Path, rendered: Path, questions: dict[str, list[str]]) -> dict[str, Any]:
    from summarizer.library.ingest import ingest_path
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import search

    rows: list[dict[str, Any]] = []
    ingests: list[dict[str, Any]] = []
    with Library.open() as library:
        for name, asked in questions.items():
            doc_ids = {}
            for label, path in (("docx", folder / f"{name}.docx"), ("pdf", rendered / f"{name}.pdf")):
                started = time.perf_counter()
                result = ingest_path(library, path)
                doc_ids[label] = result.doc_id
                ingests.append(
                    {
                        "contract": name,
                        "file": label,
                        "seconds_in_this_process": round(time.perf_counter() - started, 2),
                        "pages": result.pages,
                        "passages": result.passages,
                        "kind": library.document(result.doc_id).kind,
                    }
                )
                print(f"ingested {name}.{label}: {result.pages} pages, {result.passages} passages", file=sys.stderr)
            keys = paragraph_keys(library, doc_ids["docx"])
            openings = paragraph_openings(library, doc_ids["docx"])
            for question in asked:
                word = search(library, question, doc_ids=[doc_ids["docx"]], k=K)
                pdf = search(library, question, doc_ids=[doc_ids["pdf"]], k=K)
                word_top = [clauses_of_word_passage(r, keys) for r in word]
                pdf_top = [clauses_of_pdf_passage(r, openings, keys) for r in pdf]
                row: dict[str, Any] = {"contract": name, "held_apart": name in HELD_APART, "question": question}
                row.update(score_question(word_top, pdf_top))
                row["word_top3"] = [sorted(c) for c in word_top]
                row["pdf_top3"] = [sorted(c) for c in pdf_top]
                rows.append(row)
    return {"summary": summarize(rows), "ingests": ingests, "rows": rows}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folder", type=Path, default=FOLDER)
    ap.add_argument("--rendered", type=Path, help="a folder holding the PDFs LibreOffice made of the files")
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    questions = {k: v for k, v in json.loads(args.questions.read_text()).items() if not k.startswith("_")}
    with tempfile.TemporaryDirectory(prefix="pagewise-docx-retrieval-") as scratch:
        os.environ["PAGEWISE_HOME"] = str(Path(scratch) / "home")
        rendered = args.rendered or Path(scratch)
        missing = [args.folder / f"{n}.docx" for n in questions if not (rendered / f"{n}.pdf").exists()]
        if missing:
            render(missing, rendered)
        result = run(args.folder, rendered, questions)
    print(json.dumps(result["summary"], indent=1))
    if args.out:
        write_json(args.out, result, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
