"""Quality of one question across the 449-contract data room (issue 46 step 6).

    PAGEWISE_HOME=/tmp/dataroom-home-449 .venv/bin/python -m lab.eval.dataroom_quality \
        [--corpus ../shared/data/cuad-train] [--manifest build/dataroom/manifest.json] \
        [--out docs/data/dataroom-quality/results.jsonl] [--lifted-passages 4000] [--set NAME=VALUE ...]

``--set NAME=VALUE`` changes a ``RetrievalParams`` field of the library's settings (``LIBRARY_PARAMS``)
under every configuration, as ``lab.eval.score_validation``'s does (``--set lexicon_ranking_weight=0.25``).

``PAGEWISE_HOME`` is a library holding the data room (``lab.bench.dataroom_scale`` builds one; opening
it writes SQLite's WAL files, so point it at a copy of a library you want untouched).

Each question goes through ``summarizer.search.by_contract.best_passage_per_contract``, the search
behind the window's library-wide question (``pagewise ask --all`` and ``search --all`` run ``search``
itself, with ``DEFAULT_PARAMS``), under four configurations: the clause
ranker on or off (``rerank_top``) times the lexicon expansions on or off (``expand_query``).

- **Category questions** (a lawyer's phrasing of a CUAD category): the contracts that have the clause
  are those whose annotation for the category has a quote. Reported: precision of the contracts shown
  (``CONTRACTS_SHOWN``), recall among them, recall with the cap lifted (every contract among the
  ``PASSAGES_SEARCHED`` passages), and, for the configuration in use, how many passages the search
  would have to rank to list half, 90% and all of them.
- **Variant questions** (lab/eval/dataroom_variant_questions.json, tuning data): recall of the
  answering contracts among those shown, the same capped at what a list of ``CONTRACTS_SHOWN`` can
  hold, precision, and the reciprocal rank of the first answering contract.
- Both: of the contracts shown that have the clause, those whose passage shown holds it (the
  annotated quote, by the evaluation's word rule): the ranker reorders only the fused ranking's
  first ``rerank_top`` passages, so it decides the passage shown more than the contracts listed.

The clause ranker and embedder were trained on 410 of these 449 contracts; the other 39 (the split of
lab.eval.cuad_corpus.is_validation) are reported on their own as ``held_out``: of the held-out
contracts that answer, the share shown.

Writes one JSON line per question and configuration, and prints the tables of
docs/data/dataroom-quality/README.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lab.eval.cuad_corpus import CORPUS, cuad_annotations, is_validation
from lab.eval.quote_match import quote_found
from lab.eval.score_retrieval import retrieval_params
from summarizer.library.storage.store import Library
from summarizer.search.by_contract import CONTRACTS_SHOWN, LIBRARY_PARAMS, PASSAGES_SEARCHED, best_passage_per_contract
from summarizer.search.retrieval import RetrievalParams, search

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = Path(__file__).with_name("dataroom_variant_questions.json")
MANIFEST = ROOT / "build" / "dataroom" / "manifest.json"
OUT = ROOT / "docs" / "data" / "dataroom-quality" / "results.jsonl"

CATEGORY_QUESTIONS = {
    "Change Of Control": "Which contracts have a change of control clause?",
    "Governing Law": "Which contracts have a governing law clause?",
    "Cap On Liability": "Which contracts have a cap on liability?",
    "Non-Compete": "Which contracts have a non-compete clause?",
    "Exclusivity": "Which contracts grant exclusivity?",
    "Anti-Assignment": "Which contracts restrict assignment without consent?",
}


@dataclass(frozen=True, slots=True)
class Configuration:
    name: str
    ranker: bool
    lexicon: bool
    rerank_top: int | None = None  # passages the ranker reorders, where not the library's setting

    def params(self, base: RetrievalParams) -> RetrievalParams:
        rerank_top = (self.rerank_top or base.rerank_top) if self.ranker else 0
        return replace(base, rerank_top=rerank_top, expand_query=self.lexicon)


CONFIGURATIONS = [
    Configuration("ranker + lexicon", True, True),
    Configuration("ranker, no lexicon", True, False),
    Configuration("no ranker, lexicon", False, True),
    Configuration("no ranker, no lexicon", False, False),
]
# Not one of the four: the ranker reorders only the fused ranking's first ``rerank_top`` (10) of the
# PASSAGES_SEARCHED passages, so which contracts are listed barely depends on it. These let it
# reorder every passage searched (about 20 ms a passage on 2 cores: seconds a question).
WIDE_RANKER = [
    Configuration("ranker over all 120, lexicon", True, True, PASSAGES_SEARCHED),
    Configuration("ranker over all 120, no lexicon", True, False, PASSAGES_SEARCHED),
]


def library_params(settings: Sequence[str]) -> RetrievalParams:
    """``LIBRARY_PARAMS`` with ``NAME=VALUE`` overrides, read as ``lab.eval.score_retrieval`` reads them."""
    names = [setting.partition("=")[0] for setting in settings]
    return replace(
        LIBRARY_PARAMS, **{n: getattr(retrieval_params([s]), n) for n, s in zip(names, settings, strict=True)}
    )


def doc_ids_by_file(library: Library, manifest: Path) -> dict[str, str]:
    """CUAD text file name -> doc_id, joined through the data room's manifest (the PDF's path)."""
    pdf_of = {name: entry["pdf"] for name, entry in json.loads(manifest.read_text()).items()}
    by_pdf = {record.path.replace("\\", "/"): record.doc_id for record in library.documents()}
    out = {}
    for name, pdf in pdf_of.items():
        found = [doc_id for path, doc_id in by_pdf.items() if path.endswith("/" + pdf)]
        if len(found) == 1:
            out[name] = found[0]
    return out


def scores(listed: Sequence[str], searched: Sequence[str], relevant: set[str], held_out: set[str]) -> dict[str, Any]:
    """The figures of one question: ``listed`` the contracts shown, ``searched`` every contract
    among the passages ranked, ``relevant`` those that have the clause or answer."""
    shown = list(listed[:CONTRACTS_SHOWN])
    hits = [d for d in shown if d in relevant]
    first = next((rank for rank, d in enumerate(shown, start=1) if d in relevant), None)

    def group(inside: bool) -> dict[str, int]:
        def member(doc_id: str) -> bool:
            return (doc_id in held_out) == inside

        return {
            "relevant": len([d for d in relevant if member(d)]),
            "hits_shown": len([d for d in hits if member(d)]),
            "hits_searched": len([d for d in set(searched) & relevant if member(d)]),
        }

    return {
        "relevant": len(relevant),
        "shown": len(shown),
        "hits_shown": len(hits),
        "precision_shown": len(hits) / len(shown) if shown else 0.0,
        "recall_shown": len(hits) / len(relevant) if relevant else 0.0,
        "recall_shown_capped": len(hits) / min(len(relevant), CONTRACTS_SHOWN) if relevant else 0.0,
        "reciprocal_rank": 1 / first if first else 0.0,
        "contracts_searched": len(searched),
        "recall_searched": len(set(searched) & relevant) / len(relevant) if relevant else 0.0,
        # the contracts outside the ranker's and embedder's training, and those inside it
        "held_out": group(True),
        "trained": group(False),
    }


def passages_needed(
    library: Library, question: str, relevant: set[str], params: RetrievalParams, limit: int
) -> dict[str, Any]:
    """How many passages the search must rank (near-copies kept) before half, 90% and all of the
    ``relevant`` contracts have one among them; None where ``limit`` passages do not reach it."""
    ranked = search(
        library, question, k=limit, params=replace(params, max_overlap=1.0, candidates=max(params.candidates, limit))
    )
    first_rank: dict[str, int] = {}
    for rank, result in enumerate(ranked, start=1):
        first_rank.setdefault(result.doc_id, rank)
    ranks = sorted(first_rank[d] for d in relevant if d in first_rank)

    def needed(share: float) -> int | None:
        count = -(-int(share * len(relevant) * 1000) // 1000)  # ceil without float noise
        return ranks[count - 1] if 0 < count <= len(ranks) else None

    return {
        "ranked": len(ranked),
        "reached": len(ranks),
        "for_half": needed(0.5),
        "for_90pct": needed(0.9),
        "for_all": needed(1.0),
    }


def clause_shown(quotes: Sequence[str], passage: str) -> bool:
    """Whether the passage shown for a contract holds one of its quotes for the question, or lies
    inside one (a clause longer than a passage): the evaluation's word rule, both ways."""
    return any(quote_found(quote, passage) or quote_found(passage, quote) for quote in quotes)


def run_question(
    library: Library,
    question: str,
    relevant: dict[str, list[str]],
    held_out: set[str],
    configuration: Configuration,
    base: RetrievalParams = LIBRARY_PARAMS,
) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    matches = best_passage_per_contract(library, question, contracts=10**6, params=configuration.params(base))
    seconds = time.perf_counter() - started
    ordered = [m.doc_id for m in matches]
    figures = scores(ordered, ordered, set(relevant), held_out)
    # Where the ranker acts (the first rerank_top passages) it picks each contract's passage shown:
    # of the answering contracts shown, those whose passage shown holds the clause.
    hits = [m for m in matches[:CONTRACTS_SHOWN] if m.doc_id in relevant]
    figures["clause_in_passage_shown"] = len([m for m in hits if clause_shown(relevant[m.doc_id], m.best.text)])
    return figures, seconds


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--lifted-passages", type=int, default=4000, help="passages ranked to find how many are needed")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a RetrievalParams override")
    args = parser.parse_args(argv)
    base = library_params(args.set)

    annotations = cuad_annotations(args.corpus)
    variants = json.loads(VARIANTS.read_text())["questions"]
    rows: list[dict[str, Any]] = []
    with Library.open() as library:
        doc_of = doc_ids_by_file(library, args.manifest)
        held_out = {doc_id for name, doc_id in doc_of.items() if is_validation(name)}
        print(f"{len(doc_of)} contracts joined to the library, {len(held_out)} outside the ranker's training")
        best_passage_per_contract(library, "warm up the ranker and the embedder")
        questions: list[tuple[str, str, str, dict[str, list[str]]]] = []
        for category, question in CATEGORY_QUESTIONS.items():
            having: dict[str, list[str]] = {}
            for a in annotations:
                if a["category"] == category and a["quotes"] and a["file"] in doc_of:
                    having.setdefault(doc_of[a["file"]], []).extend(q["text"] for q in a["quotes"])
            questions.append(("category", category, question, having))
        for variant in variants:
            answering: dict[str, list[str]] = {}
            for a in variant["answers"]:
                if a["file"] in doc_of:
                    answering.setdefault(doc_of[a["file"]], []).append(a["quote"])
            missing = [a["file"] for a in variant["answers"] if a["file"] not in doc_of]
            if missing:
                raise SystemExit(f"{variant['id']}: not in the library: {missing}")
            questions.append(("variant", variant["id"], variant["question"], answering))
        for kind, name, question, relevant in questions:
            for configuration in CONFIGURATIONS + WIDE_RANKER:
                figures, seconds = run_question(library, question, relevant, held_out, configuration, base)
                row: dict[str, Any] = {
                    "set": kind,
                    "id": name,
                    "question": question,
                    "configuration": configuration.name,
                    "settings": args.set,
                }
                row |= figures | {"seconds": round(seconds, 3)}
                if kind == "category" and configuration is CONFIGURATIONS[0]:
                    row["passages_needed"] = passages_needed(
                        library, question, set(relevant), configuration.params(base), args.lifted_passages
                    )
                rows.append(row)
                print(json.dumps({k: row[k] for k in ("id", "configuration", "hits_shown", "relevant")}), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(row) + "\n" for row in rows))
    print_tables(rows)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _pooled(rows: list[dict[str, Any]], group: str, hits: str) -> str:
    """Hits over relevant contracts of ``group`` (held out or trained), summed over the questions."""
    hit = sum(r[group][hits] for r in rows)
    relevant = sum(r[group]["relevant"] for r in rows)
    return f"{hit}/{relevant} = {_pct(hit / relevant if relevant else 0)}"


def _clause_shown(rows: list[dict[str, Any]]) -> str:
    held = sum(r["clause_in_passage_shown"] for r in rows)
    hits = sum(r["hits_shown"] for r in rows)
    return f"{held}/{hits} = {_pct(held / hits if hits else 0)}"


def print_tables(rows: list[dict[str, Any]]) -> None:
    names = [c.name for c in CONFIGURATIONS + WIDE_RANKER]
    categories = [r for r in rows if r["set"] == "category"]
    print(f"\n### Category questions ({CONTRACTS_SHOWN} contracts shown, {PASSAGES_SEARCHED} passages searched)\n")
    print("precision@shown / recall@shown / recall with the cap lifted (contracts among the passages searched)\n")
    print("| category | have it (held out) | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for category in dict.fromkeys(r["id"] for r in categories):
        by = {r["configuration"]: r for r in categories if r["id"] == category}
        first = by[names[0]]
        cells = [
            f"{_pct(by[n]['precision_shown'])} / {_pct(by[n]['recall_shown'])} / {_pct(by[n]['recall_searched'])}"
            f" ({by[n]['contracts_searched']})"
            for n in names
        ]
        print(f"| {category} | {first['relevant']} ({first['held_out']['relevant']}) | " + " | ".join(cells) + " |")
    print("\n### Passages to rank for the contracts that have the clause (ranker + lexicon)\n")
    print("| category | have it | ranked | reached | half | 90% | all |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in (r for r in rows if "passages_needed" in r):
        n = row["passages_needed"]
        print(
            f"| {row['id']} | {row['relevant']} | {n['ranked']} | {n['reached']} | {n['for_half'] or '-'} | "
            f"{n['for_90pct'] or '-'} | {n['for_all'] or '-'} |"
        )
    variants = [r for r in rows if r["set"] == "variant"]
    print("\n### Variant questions, per question (recall@shown capped / MRR)\n")
    print("| question | answers (held out) | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for qid in dict.fromkeys(r["id"] for r in variants):
        by = {r["configuration"]: r for r in variants if r["id"] == qid}
        first = by[names[0]]
        cells = [f"{_pct(by[n]['recall_shown_capped'])} / {by[n]['reciprocal_rank']:.2f}" for n in names]
        print(
            f"| {first['question']} | {first['relevant']} ({first['held_out']['relevant']}) | "
            + " | ".join(cells)
            + " |"
        )
    print("\n### Means over the questions\n")
    print(
        "| set | config | recall@shown | recall@shown capped | precision@shown | MRR | "
        "recall@shown held out / trained | recall cap lifted held out / trained | clause in passage shown | p50 s |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind in ("variant", "category"):
        for n in names:
            rs = [r for r in rows if r["set"] == kind and r["configuration"] == n]

            print(
                f"| {kind} | {n} | {_pct(statistics.mean(r['recall_shown'] for r in rs))} | "
                f"{_pct(statistics.mean(r['recall_shown_capped'] for r in rs))} | "
                f"{_pct(statistics.mean(r['precision_shown'] for r in rs))} | "
                f"{statistics.mean(r['reciprocal_rank'] for r in rs):.2f} | "
                f"{_pooled(rs, 'held_out', 'hits_shown')} / {_pooled(rs, 'trained', 'hits_shown')} | "
                f"{_pooled(rs, 'held_out', 'hits_searched')} / {_pooled(rs, 'trained', 'hits_searched')} | "
                f"{_clause_shown(rs)} | "
                f"{statistics.median(r['seconds'] for r in rs):.2f} |"
            )


if __name__ == "__main__":
    main()
