"""How often the clause number Pagewise reads for a Word paragraph is the one LibreOffice draws.

    .venv/bin/python -m lab.eval.docx_numbering [--folder ../shared/data/docx-contracts]
        [--rendered DIR] [--out docs/data/docx-numbering/numbering.json]

Each ``.docx`` is rendered to PDF by LibreOffice (``soffice --headless --convert-to pdf``; an
optional tool, never needed by Pagewise itself; ``--rendered`` reuses PDFs made before). For each
paragraph that ``summarizer.library.reading.docx_extract`` reads as numbered (bullets aside), its
opening words are looked for in the PDF's text, in document order, at the start of a line; the
label LibreOffice drew before them on that line (or alone on the line above) is compared with ours.
A paragraph whose words are not found at a line start is counted as not located, apart from the
agreements and misses. The four files issue 43 holds apart are reported apart; nothing was chosen
by them.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lab.results import write_json

HELD_APART = (
    "common-paper-professional-services-agreement",
    "common-paper-data-processing-agreement",
    "common-paper-pilot-agreement",
    "bonterms-professional-services-agreement",
)
FOLDER = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "docx-contracts"
KEY_WORDS = 6
MAX_LABEL_CHARS = 24
_SPACES = re.compile(r"[ \t\u00a0\u2002\u2003\u2009]+")
# pypdf puts a space between runs drawn apart ("Services ." for "Services."): dropped on both sides.
_SPACE_BEFORE_PUNCTUATION = re.compile(r" +([.,;:)])")


@dataclass
class FileScore:
    name: str
    held_apart: bool
    numbered: int = 0
    located: int = 0
    agree: int = 0
    misses: list[dict[str, str | int]] = field(default_factory=list)
    not_located: list[dict[str, str | int]] = field(default_factory=list)
    # paragraphs we read without a number before which LibreOffice draws a list number
    numbered_only_by_libreoffice: list[dict[str, str | int]] = field(default_factory=list)


def render(files: list[Path], out: Path) -> None:
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        raise SystemExit("LibreOffice is not installed: apt-get install libreoffice-writer-nogui, or pass --rendered")
    subprocess.run(
        [soffice, "--headless", "--convert-to", "pdf", "--outdir", str(out), *map(str, files)],
        check=True,
        capture_output=True,
        timeout=1800,
    )


def pdf_lines(path: Path) -> str:
    from pypdf import PdfReader

    text = "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)
    return "\n".join(_clean(line) for line in text.splitlines())


def _clean(text: str) -> str:
    text = text.replace("\u200b", "").replace("\u00ad", "")  # zero-width spaces, soft hyphens
    return _SPACE_BEFORE_PUNCTUATION.sub(r"\1", _SPACES.sub(" ", text)).strip()


def _label_like(label: str) -> bool:
    """What may stand before a paragraph's first words on its line: nothing, or a short label with a
    letter or digit in it ("7.2", "(a)", "ARTICLE 7"), not the tail of a sentence cut by a line end."""
    return label == "" or (len(label) <= MAX_LABEL_CHARS and any(ch.isalnum() for ch in label))


def _norm(label: str) -> str:
    return re.sub(r"\s+", "", label)


def _find(rendered: str, text: str, cursor: int) -> tuple[int, str] | None:
    """Where ``text``'s first words start a line of ``rendered`` at or after ``cursor``: the end of
    the match and the label drawn before them."""
    words = _clean(text).split()[:KEY_WORDS]
    pattern = r"\s+".join(re.escape(w) for w in words)
    if len(words) < KEY_WORDS:  # a short paragraph (a heading) is matched whole: its line ends after it
        pattern += r"[ ]*(?:\n|$)"
    for match in re.finditer(pattern, rendered[cursor:]):
        start = cursor + match.start()
        line_start = rendered.rfind("\n", 0, start) + 1
        label = rendered[line_start:start].strip()
        if not label and line_start > 0:  # the label drawn alone on the line above
            above = rendered.rfind("\n", 0, line_start - 1) + 1
            candidate = rendered[above : line_start - 1].strip()
            label = candidate if len(candidate) <= MAX_LABEL_CHARS and _LIST_LABEL.match(candidate) else ""
        if _label_like(label):
            return cursor + match.end(), label
    return None


_LIST_LABEL = re.compile(
    r"^(?:ARTICLE|Article|SECTION|Section|§)?\s*\(?(?:\d+(?:\.\d+)*|[A-Za-z]{1,3}|[ivxlcdmIVXLCDM]+)[.)]?$"
)


def score_file(docx: Path, pdf: Path, held_apart: bool) -> FileScore:
    from summarizer.library.reading.docx_extract import read_docx

    document = read_docx(docx)
    rendered = pdf_lines(pdf)
    score = FileScore(docx.stem, held_apart)
    cursor = 0
    plain_cursor = 0
    for paragraph in document.paragraphs:
        if paragraph.table_row or not paragraph.text:
            continue
        if not paragraph.number or paragraph.number == "•":
            if paragraph.number is None and len(paragraph.text.split()) >= 3:
                plain = _find(rendered, paragraph.text, plain_cursor)
                if plain is not None:
                    plain_cursor = plain[0]
                    if plain[1] and _LIST_LABEL.match(plain[1]):
                        score.numbered_only_by_libreoffice.append(
                            {"paragraph": paragraph.index, "libreoffice": plain[1], "text": paragraph.text[:70]}
                        )
            continue
        score.numbered += 1
        found = _find(rendered, paragraph.text, cursor)
        row: dict[str, str | int] = {"paragraph": paragraph.index, "ours": paragraph.number}
        row["text"] = paragraph.text[:70]
        if found is None:
            score.not_located.append(row)
            continue
        cursor, label = found
        score.located += 1
        if _norm(label) == _norm(paragraph.number):
            score.agree += 1
        else:
            score.misses.append({**row, "libreoffice": label})
    return score


def _share(agree: int, total: int) -> float | None:
    return round(agree / total, 4) if total else None


def summary(scores: list[FileScore]) -> dict[str, int | float | None]:
    numbered = sum(s.numbered for s in scores)
    located = sum(s.located for s in scores)
    agree = sum(s.agree for s in scores)
    only_libreoffice = sum(len(s.numbered_only_by_libreoffice) for s in scores)
    return {
        "files": len(scores),
        "numbered": numbered,
        "located": located,
        "agree": agree,
        "share_of_located": _share(agree, located),
        "share_of_numbered": _share(agree, numbered),
        "numbered_only_by_libreoffice": only_libreoffice,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument("--rendered", type=Path, help="a folder of LibreOffice's PDFs of the same files")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    files = sorted(args.folder.glob("*.docx"))
    with tempfile.TemporaryDirectory() as scratch:
        rendered = args.rendered or Path(scratch)
        missing = [f for f in files if not (rendered / f"{f.stem}.pdf").exists()]
        if missing:
            render(missing, rendered)
        scores = [score_file(f, rendered / f"{f.stem}.pdf", f.stem in HELD_APART) for f in files]
    for s in scores:
        group = "held apart" if s.held_apart else "development"
        print(f"{s.name:<48} {group:<11} numbered {s.numbered:>4}  located {s.located:>4}  agree {s.agree:>4}")
        for miss in s.misses:
            ours, theirs = miss["ours"], miss["libreoffice"]
            print(f"    miss ¶{miss['paragraph']}: ours {ours!r}, LibreOffice {theirs!r}: {miss['text']}")
        for lost in s.not_located:
            print(f"    not located ¶{lost['paragraph']} ({lost['ours']!r}): {lost['text']}")
        for extra in s.numbered_only_by_libreoffice:
            print(f"    unnumbered by us ¶{extra['paragraph']}, LibreOffice {extra['libreoffice']!r}: {extra['text']}")
    result = {
        "development": summary([s for s in scores if not s.held_apart]),
        "held_apart": summary([s for s in scores if s.held_apart]),
        "files": [asdict(s) for s in scores],
    }
    print(json.dumps({k: result[k] for k in ("development", "held_apart")}, indent=1))
    if args.out:
        write_json(args.out, result, ensure_ascii=False)


if __name__ == "__main__":
    main()
