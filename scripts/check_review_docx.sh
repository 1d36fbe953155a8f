#!/usr/bin/env bash
# The review memo opens in a Word-compatible reader: builds a DOCX with `pagewise review` (the
# bundled CUAD checklist, evidence only, on the bundled sample) and converts it to PDF with
# LibreOffice in headless mode. Needs LibreOffice (Debian: apt-get install libreoffice-writer-nogui).
#   bash scripts/check_review_docx.sh [OUT_DIR]
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,5p' "$0" | cut -c3-; exit 0 ;; esac
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
command -v soffice >/dev/null || { echo "soffice not found: apt-get install libreoffice-writer-nogui" >&2; exit 2; }
home=$(mktemp -d)
export PAGEWISE_HOME=$home
doc=$(.venv/bin/pagewise ingest assets/sample-contract.pdf --json | .venv/bin/python -c 'import json,sys; print(json.loads(sys.stdin.readline())["doc_id"])')
.venv/bin/pagewise review "$doc" --evidence-only --format docx --out "$out/review.docx"
soffice --headless --convert-to pdf --outdir "$out" "$out/review.docx" >/dev/null 2>&1
.venv/bin/python - "$out/review.pdf" <<'PY'
import sys
from pypdf import PdfReader
reader = PdfReader(sys.argv[1])
text = "".join(page.extract_text() or "" for page in reader.pages)
assert "CONFIDENTIAL" in text and "Governing Law" in text, "the converted memo lacks its header or grid"
print(f"LibreOffice opened the memo: {sys.argv[1]}, {len(reader.pages)} pages, {len(text)} characters")
PY
rm -rf "$home"
