"""A ~1M-token library for the compression benchmark (issue 10): the fixture contracts joined
into one long PDF in several different orders, added with `pagewise ingest`, then checked for
segments that share their text (the summary store would answer those from cache).
``--no-embed`` skips the vectors (the summary benchmark does not read them).

    python3 -m lab.bench.long_library --home /tmp/long-home --copies 6 \
        --vocab /tmp/lsrc/llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-llama-bpe.gguf

The segment check counts tokens with ``--vocab`` (a tokenizer-only GGUF of the benchmark
model's family) at ``--segment-tokens``; it prints the document id, pages, segments and
prompt tokens as JSON, and exits 1 when two segments share their text.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT.parent / "shared" / "fixtures" / "contracts"


def build_pdf(out: Path, copies: int) -> int:
    """Every page of the fixtures, ``copies`` times, each copy in its own seeded shuffle: joining
    whole contracts in different orders still gave 14 of 167 segments twice (the segmenter
    falls back into step inside the 154-page contract), shuffled pages give none."""
    from pypdf import PdfReader, PdfWriter

    readers = [PdfReader(str(p)) for p in sorted(FIXTURES.glob("*.pdf"))]
    pages = [page for reader in readers for page in reader.pages]
    writer = PdfWriter()
    for copy in range(copies):
        order = list(range(len(pages)))
        random.Random(copy).shuffle(order)
        for index in order:
            writer.add_page(pages[index])
    with out.open("wb") as handle:
        writer.write(handle)
    return len(writer.pages)


def _ingest_without_vectors(home: Path, pdf: Path) -> str:
    os.environ["PAGEWISE_HOME"] = str(home)
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.store import Library

    with Library.open() as library:
        return ingest_path(library, pdf, IngestOptions(embed=False)).doc_id


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="the library folder (PAGEWISE_HOME)")
    parser.add_argument("--copies", type=int, default=6)
    parser.add_argument("--vocab", type=Path, required=True, help="tokenizer-only GGUF for counting tokens")
    parser.add_argument("--segment-tokens", type=int, default=8192)
    parser.add_argument(
        "--no-embed", action="store_true", help="skip the vectors (summaries do not read them; ~4x faster here)"
    )
    args = parser.parse_args()

    args.home.mkdir(parents=True, exist_ok=True)
    pdf = args.home / "contracts-long.pdf"
    pages = build_pdf(pdf, args.copies)
    env = {**os.environ, "PAGEWISE_HOME": str(args.home)}
    cli = [sys.executable, "-c", "import sys; from app.cli import main; sys.exit(main())"]
    if args.no_embed:
        doc_id = _ingest_without_vectors(args.home, pdf)
    else:
        done = subprocess.run([*cli, "ingest", str(pdf), "--json"], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stdout, done.stderr, file=sys.stderr)
            return 2
        doc_id = json.loads(done.stdout.strip().splitlines()[-1])["doc_id"]

    import llama_cpp

    from summarizer.library.storage.store import Library
    from summarizer.summaries.segments import build_segments

    os.environ["PAGEWISE_HOME"] = str(args.home)
    vocab = llama_cpp.Llama(str(args.vocab), vocab_only=True, verbose=False)

    def count(text: str) -> int:
        return len(vocab.tokenize(text.encode(), add_bos=False, special=False))

    with Library.open() as library:
        segments = build_segments(
            library, doc_id, count_tokens=count, tokenizer_id="check", segment_tokens=args.segment_tokens
        )
    digests = [hashlib.sha256(s.text.encode()).hexdigest() for s in segments]
    duplicates = len(digests) - len(set(digests))
    tokens = sum(count(s.text) for s in segments)
    print(
        json.dumps(
            {
                "doc_id": doc_id,
                "pages": pages,
                "segments": len(segments),
                "prompt_tokens": tokens,
                "duplicate_segments": duplicates,
            }
        )
    )
    return 1 if duplicates else 0


if __name__ == "__main__":
    sys.exit(main())
