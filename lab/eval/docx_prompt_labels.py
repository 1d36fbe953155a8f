"""What labelling each paragraph of a Word passage costs in the answer and review prompts (issue 56, item 1).

    PYTHONPATH=$PWD .venv/bin/python -m lab.eval.docx_prompt_labels --vocab VOCAB.gguf \
        [--folder ../shared/data/docx-contracts] [--out docs/data/docx-citations/prompt-labels.json]
    PYTHONPATH=$PWD .venv/bin/python -m lab.eval.docx_prompt_labels --vocab VOCAB.gguf --review \
        [--out docs/data/docx-citations/review-prompt-labels.json]

Each Word contract of ``--folder`` is added to a fresh temporary library (without vectors: the
passages are cut the same), and every passage is written as the answer prompt gives it
(``summarizer.answers.answer_wording.passages_block``) twice: its text as before, and its
paragraphs each after its label ("[¶ 74] …", what the prompt gives now). Both are counted with
the tokenizer of ``--vocab`` (a GGUF file; only its vocabulary is read, e.g. llama.cpp's
``models/ggml-vocab-qwen2.gguf``). The held-apart contracts (``lab.eval.docx_numbering.HELD_APART``)
are reported apart; nothing is chosen by these figures.

``--review``: the review's reading prompts instead (``summarizer.review.item_answers``). Each
contract's paragraphs are written as one item's prompts read them, the system message and every
reading unit with the question, before ("[Page 74]" and the paragraph on the next line, the PDF
form a Word contract was read with) and after (one paragraph a line after "[¶ 74]", and the Word
system message), the whole contract as one unit; beside the tokens, how many readings an item
takes at a context of ``REVIEW_CTX`` tokens (the units ``reading_units`` cuts, counted with
``--vocab``'s tokenizer).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lab.eval.docx_numbering import FOLDER, HELD_APART
from lab.results import write_json

K = 3  # passages in an answer prompt (summarizer.answers.answer_prompt.AnswerOptions.k)
REVIEW_CTX = 8192  # the context the review's readings are cut for (--review)
ITEM = "governing-law"  # the CUAD checklist's item whose question the review prompts end with (--review)


def vocab_counter(path: Path) -> Callable[[str], int]:
    from llama_cpp import Llama

    model = Llama(model_path=str(path), vocab_only=True, verbose=False)
    return lambda text: len(model.tokenize(text.encode("utf-8"), add_bos=False, special=False))


def passage_costs(folder: Path, names: Sequence[str], count: Callable[[str], int]) -> list[dict[str, Any]]:
    from summarizer.answers.answer_wording import PassageForPrompt, passages_block
    from summarizer.library.cutting.passages import text_by_page
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.queries import passages_by_id
    from summarizer.library.storage.store import Library

    rows: list[dict[str, Any]] = []
    for name in names:
        with Library.open() as library:
            doc_id = ingest_path(library, folder / f"{name}.docx", IngestOptions(embed=False)).doc_id
            ids = [int(r[0]) for r in library.db.execute("SELECT passage_id FROM passages WHERE doc_id = ?", [doc_id])]
            for passage in passages_by_id(library, ids).values():
                plain = PassageForPrompt(doc_id, passage.page_start, passage.page_end, passage.text)
                parts = tuple(text_by_page(passage.text, passage.spans))
                labelled = dataclasses.replace(plain, paragraphs=parts)
                before, after = count(passages_block([plain], False)), count(passages_block([labelled], False))
                rows.append({"contract": name, "held_apart": name in HELD_APART, "paragraphs": len(parts),
                             "tokens_before": before, "tokens_after": after})  # fmt: skip
        print(f"{name}: {sum(r['contract'] == name for r in rows)} passages", file=sys.stderr)
    return rows


def review_costs(folder: Path, names: Sequence[str], count: Callable[[str], int]) -> list[dict[str, Any]]:
    """One row a contract: one item's review prompts over the whole contract, before and after."""
    from inference.engines.fake import FakeEngine
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.document_text import read_pages
    from summarizer.library.storage.store import Library
    from summarizer.review.checklist import load_checklist
    from summarizer.review.item_answers import PROMPT_MARGIN, REPLY_TOKENS, reading_messages, reading_units

    class Counter(FakeEngine):
        def count_tokens(self, text: str) -> int:
            return count(text)

    engine = Counter(n_ctx=REVIEW_CTX)
    item = load_checklist("cuad").item(ITEM)
    budget = max(256, REVIEW_CTX - REPLY_TOKENS - PROMPT_MARGIN)

    def tokens(pages: dict[int, str], word: bool, budget_tokens: int) -> tuple[int, int]:
        units = reading_units(pages, engine, budget_tokens, word=word)
        messages = [m for unit in units for m in reading_messages(unit, item)]
        return sum(count(m.content) for m in messages), len(units)

    rows: list[dict[str, Any]] = []
    for name in names:
        with Library.open() as library:
            doc_id = ingest_path(library, folder / f"{name}.docx", IngestOptions(embed=False)).doc_id
            pages = read_pages(library, doc_id)
            before, _ = tokens(pages, False, 10**9)
            after, _ = tokens(pages, True, 10**9)
            _, units_before = tokens(pages, False, budget)
            _, units_after = tokens(pages, True, budget)
        rows.append({"contract": name, "held_apart": name in HELD_APART, "paragraphs": len(pages),
                     "tokens_before": before, "tokens_after": after,
                     "readings_before": units_before, "readings_after": units_after})  # fmt: skip
        print(f"{name}: {before} -> {after} tokens an item prompt", file=sys.stderr)
    return rows


def summarize_review(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for group, held in (("development", False), ("held_apart", True)):
        chosen = [r for r in rows if r["held_apart"] == held]
        if not chosen:
            continue
        before = sum(r["tokens_before"] for r in chosen)
        after = sum(r["tokens_after"] for r in chosen)
        out[group] = {
            "contracts": len(chosen),
            "paragraphs_per_contract": round(statistics.mean(r["paragraphs"] for r in chosen), 1),
            "tokens_per_item_prompt_before": round(before / len(chosen), 1),
            "tokens_per_item_prompt_after": round(after / len(chosen), 1),
            "share_added": round((after - before) / before, 3),
            "tokens_per_paragraph_before": round(before / sum(r["paragraphs"] for r in chosen), 2),
            "tokens_per_paragraph_after": round(after / sum(r["paragraphs"] for r in chosen), 2),
            f"readings_per_item_at_{REVIEW_CTX}_before": sum(r["readings_before"] for r in chosen),
            f"readings_per_item_at_{REVIEW_CTX}_after": sum(r["readings_after"] for r in chosen),
        }
    return out


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for group, held in (("development", False), ("held_apart", True)):
        chosen = [r for r in rows if r["held_apart"] == held]
        if not chosen:
            continue
        added = [r["tokens_after"] - r["tokens_before"] for r in chosen]
        before = sum(r["tokens_before"] for r in chosen)
        out[group] = {
            "contracts": len({r["contract"] for r in chosen}),
            "passages": len(chosen),
            "paragraphs_per_passage": round(statistics.mean(r["paragraphs"] for r in chosen), 2),
            "tokens_per_passage_before": round(before / len(chosen), 1),
            "tokens_added_per_passage": round(statistics.mean(added), 1),
            "tokens_added_max": max(added),
            "tokens_added_per_prompt_of_3": round(K * statistics.mean(added), 1),
            "share_added": round(sum(added) / before, 3),
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vocab", type=Path, required=True, help="a GGUF file whose tokenizer counts the tokens")
    ap.add_argument("--folder", type=Path, default=FOLDER)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--review", action="store_true", help="the review's reading prompts, not the answer's passages")
    args = ap.parse_args()
    count = vocab_counter(args.vocab)
    names = sorted(p.stem for p in args.folder.glob("*.docx"))
    with tempfile.TemporaryDirectory(prefix="pagewise-prompt-labels-") as scratch:
        os.environ["PAGEWISE_HOME"] = str(Path(scratch) / "home")
        rows = (review_costs if args.review else passage_costs)(args.folder, names, count)
    summary = summarize_review(rows) if args.review else summarize(rows)
    prompt = "review" if args.review else "answer"
    result = {"vocab": args.vocab.name, "prompt": prompt, "summary": summary, "rows": rows}
    if args.out is not None:
        write_json(args.out, result)
    print(json.dumps(result["summary"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
