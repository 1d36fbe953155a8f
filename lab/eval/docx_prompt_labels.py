"""What labelling each paragraph of a Word passage costs in the answer prompt (issue 56, item 1).

    PYTHONPATH=$PWD .venv/bin/python -m lab.eval.docx_prompt_labels --vocab VOCAB.gguf \
        [--folder ../shared/data/docx-contracts] [--out docs/data/docx-citations/prompt-labels.json]

Each Word contract of ``--folder`` is added to a fresh temporary library (without vectors: the
passages are cut the same), and every passage is written as the answer prompt gives it
(``summarizer.answers.answer_wording.passages_block``) twice: its text as before, and its
paragraphs each after its label ("[¶ 74] …", what the prompt gives now). Both are counted with
the tokenizer of ``--vocab`` (a GGUF file; only its vocabulary is read, e.g. llama.cpp's
``models/ggml-vocab-qwen2.gguf``). The held-apart contracts (``lab.eval.docx_numbering.HELD_APART``)
are reported apart; nothing is chosen by these figures.
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

K = 3  # passages in an answer prompt (summarizer.answers.answer_prompt.AnswerOptions.k)


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
    args = ap.parse_args()
    count = vocab_counter(args.vocab)
    names = sorted(p.stem for p in args.folder.glob("*.docx"))
    with tempfile.TemporaryDirectory(prefix="pagewise-prompt-labels-") as scratch:
        os.environ["PAGEWISE_HOME"] = str(Path(scratch) / "home")
        rows = passage_costs(args.folder, names, count)
    result = {"vocab": args.vocab.name, "summary": summarize(rows), "rows": rows}
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result["summary"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
