"""Render the CUAD training contracts to PDF: the data room that issue 46's benchmark adds.

``../shared/data/cuad-train`` holds 449 contracts as text (CUAD v1, (c) The Atticus Project,
CC BY 4.0). This script lays each out on US-letter pages in Helvetica 10 pt (fpdf2, a dev
dependency) into ``build/dataroom/`` (ignored), in one sub-folder per kind of agreement (read from
the end of CUAD's file name: "…-DISTRIBUTOR AGREEMENT.txt" goes to ``distribution/``), so the
library's folder column has something to show.

Deterministic: a fixed creation date, so the PDF's /ID (fpdf2 hashes the bytes and that date)
and every byte are the same on each run. Resumable: ``manifest.json`` records each PDF's source
hash; a file whose PDF exists with the same hash is skipped, and the manifest is written after
each file, so a run stopped half-way continues where it stopped.

    python -m lab.bench.dataroom_render [--out build/dataroom] [--limit N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

from lab.eval.cuad_corpus import CORPUS, ROOT, cuad_texts

DEFAULT_OUT = ROOT / "build" / "dataroom"
RENDERER = "fpdf2 helvetica-10 letter v1"  # changing the layout: change this, and every PDF is redone
FIXED_DATE = datetime(2021, 3, 1, tzinfo=UTC)  # CUAD v1's release month

# The agreement's kind, from words at the end of CUAD's file name; the first that matches wins.
FOLDERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("distribution", ("DISTRIBUT", "RESELLER", "DEALER")),
    ("licensing", ("LICENS", "FRANCHISE")),
    ("supply-manufacturing", ("SUPPLY", "MANUFACTUR", "PURCHASE")),
    ("services", ("SERVICE", "CONSULT", "OUTSOURC", "MAINTENANCE", "HOSTING")),
    ("alliances", ("JOINT VENTURE", "ALLIANCE", "COLLABORAT", "DEVELOPMENT", "CO-BRANDING", "AFFILIATE")),
    ("marketing-agency", ("AGENCY", "ENDORSEMENT", "SPONSOR", "MARKETING", "PROMOTION", "TRANSPORT")),
)
OTHER_FOLDER = "other"

# Characters outside Latin-1 (Helvetica's encoding here) that contracts use, written as Latin-1.
REPLACEMENTS = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u2013": "-",
    "\u2014": "-",
    "\u2022": "*",
    "\u2026": "...",
    "\u00a0": " ",
    "\t": "    ",
}


def latin1(text: str) -> str:
    out = []
    for char in text:
        char = REPLACEMENTS.get(char, char)
        if len(char) == 1 and ord(char) > 255:
            decomposed = unicodedata.normalize("NFKD", char).encode("latin-1", "ignore").decode("latin-1")
            char = decomposed or "?"
        out.append(char)
    return "".join(out)


def folder_for(file_name: str) -> str:
    kind = file_name.rsplit("-", 1)[-1].rsplit("_", 1)[-1].upper()
    for folder, words in FOLDERS:
        if any(word in kind for word in words):
            return folder
    for folder, words in FOLDERS:  # the kind is sometimes earlier in the name
        if any(word in file_name.upper() for word in words):
            return folder
    return OTHER_FOLDER


def render_pdf(title: str, text: str) -> tuple[bytes, int]:
    """The PDF's bytes and its page count."""
    from fpdf import FPDF

    pdf = FPDF(orientation="portrait", unit="pt", format="letter")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_title(latin1(title))
    pdf.set_producer(RENDERER)
    pdf.set_margins(72, 72, 72)
    pdf.set_auto_page_break(True, margin=72)
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    for paragraph in latin1(text).split("\n"):
        if paragraph.strip():
            pdf.multi_cell(0, 12, paragraph.rstrip(), new_x="LMARGIN", new_y="NEXT")
        else:
            pdf.ln(6)
    return bytes(pdf.output()), pdf.page_no()


def render_room(out: Path, limit: int | None = None) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    manifest: dict[str, dict[str, str]] = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    counts = {"rendered": 0, "skipped": 0, "pages": 0}
    texts = sorted(cuad_texts(CORPUS))
    for name, text in texts[:limit]:
        source_hash = hashlib.sha256((RENDERER + "\0" + text).encode()).hexdigest()
        relative = f"{folder_for(name)}/{Path(name).stem.strip()}.pdf"
        target = out / relative
        entry = manifest.get(name)
        if entry and entry["source"] == source_hash and entry["pdf"] == relative and target.is_file():
            counts["skipped"] += 1
            continue
        data, pages = render_pdf(Path(name).stem, text)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".pdf.part")
        partial.write_bytes(data)
        os.replace(partial, target)
        manifest[name] = {"source": source_hash, "pdf": relative, "sha256": hashlib.sha256(data).hexdigest()}
        partial_manifest = manifest_path.with_suffix(".json.part")
        partial_manifest.write_text(json.dumps(manifest, indent=1, sort_keys=True))
        os.replace(partial_manifest, manifest_path)
        counts["rendered"] += 1
        counts["pages"] += pages
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the PDFs go (default build/dataroom)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N contracts by name")
    args = parser.parse_args(argv)
    started = time.monotonic()
    counts = render_room(args.out, args.limit)
    elapsed = time.monotonic() - started
    print(
        f"{counts['rendered']} rendered ({counts['pages']} pages), {counts['skipped']} already there, "
        f"in {elapsed:.1f} s → {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
