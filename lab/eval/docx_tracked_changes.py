"""Tracked changes and comments counted by Pagewise's .docx reader, against the counts written into
documents made here and against what LibreOffice reports for them.

    .venv/bin/python -m lab.eval.docx_tracked_changes [--documents 6] [--shared ../shared/data/docx-contracts]
        [--out docs/data/docx-numbering/tracked-changes.json]

Each made document holds a known number of text insertions, deletions, paragraph-format changes,
inserted paragraph marks and comments, each change by an author of its own (LibreOffice joins
adjacent changes of one author and date into one region), some in a table cell. LibreOffice
(``soffice --headless --convert-to fodt``; optional) writes each change as a ``text:changed-region``
(insertion, deletion, format-change; a paragraph-format change as ``UnknownChange``) and each
comment as an ``office:annotation``. The shared redlined NDA is reported beside: one author, so
LibreOffice's regions merge its adjacent changes.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import tempfile
import zipfile
from collections import Counter
from pathlib import Path

from lab.eval.docx_numbering import FOLDER
from lab.results import write_json

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
KINDS = ("insertion", "deletion", "format", "paragraph_mark", "comment")
_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    '<Override PartName="/word/comments.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="word/document.xml"/></Relationships>'
)
_DOC_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" '
    'Target="comments.xml"/></Relationships>'
)
_DATE = "2026-03-01T10:00:00Z"


def _run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def make_document(path: Path, seed: int) -> Counter[str]:
    """A document with a random, known number of each change; returns those numbers."""
    rng = random.Random(seed)
    known: Counter[str] = Counter()
    paragraphs: list[str] = []
    comments: list[str] = []
    ids = iter(range(1, 10_000))
    for n in range(rng.randint(6, 14)):
        author = f'w:id="{next(ids)}" w:author="Reviewer {n}" w:date="{_DATE}"'
        kind = rng.choice((*KINDS, "none"))
        ppr = ""
        body = _run(f"Clause {n}: the Supplier shall deliver the goods ")
        if kind == "insertion":
            body += f"<w:ins {author}>{_run('promptly and ')}</w:ins>"
        elif kind == "deletion":
            body += f'<w:del {author}><w:r><w:delText xml:space="preserve">eventually </w:delText></w:r></w:del>'
        elif kind == "format":
            ppr = f'<w:pPr><w:jc w:val="center"/><w:pPrChange {author}><w:pPr/></w:pPrChange></w:pPr>'
        elif kind == "paragraph_mark":
            ppr = f"<w:pPr><w:rPr><w:ins {author}/></w:rPr></w:pPr>"
        elif kind == "comment":
            cid = len(comments)
            body = f'<w:commentRangeStart w:id="{cid}"/>{body}<w:commentRangeEnd w:id="{cid}"/>'
            body += f'<w:r><w:commentReference w:id="{cid}"/></w:r>'
            comments.append(
                f'<w:comment w:id="{cid}" w:author="Counsel {cid}" w:date="{_DATE}"><w:p>{_run("Check this.")}</w:p>'
                "</w:comment>"
            )
        if kind != "none":
            known[kind] += 1
        paragraph = f"<w:p>{ppr}{body}{_run('to the Customer.')}</w:p>"
        if rng.random() < 0.25:  # some in a table cell
            cell = f"<w:tc><w:p>{_run('Schedule')}</w:p></w:tc>"
            paragraph = f"<w:tbl><w:tr><w:tc>{paragraph}</w:tc>{cell}</w:tr></w:tbl>"
        paragraphs.append(paragraph)
    paragraphs.append("<w:p/>")
    namespaces = f'xmlns:w="{W}"'
    body = "".join(paragraphs)
    document = f'<?xml version="1.0" encoding="UTF-8"?><w:document {namespaces}><w:body>{body}</w:body></w:document>'
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("word/_rels/document.xml.rels", _DOC_RELS)
        archive.writestr("word/document.xml", document)
        archive.writestr(
            "word/comments.xml",
            f'<?xml version="1.0" encoding="UTF-8"?><w:comments {namespaces}>{"".join(comments)}</w:comments>',
        )
    return known


def ours(path: Path) -> Counter[str]:
    from summarizer.library.reading.docx_document import PARAGRAPH_MARK
    from summarizer.library.reading.docx_extract import read_docx

    document = read_docx(path)
    counts: Counter[str] = Counter()
    for change in document.changes:
        counts["paragraph_mark" if change.text == PARAGRAPH_MARK and change.kind == "insertion" else change.kind] += 1
    counts["comment"] = len(document.comments)
    return counts


def libreoffice(paths: list[Path], out: Path) -> dict[str, Counter[str]]:
    """LibreOffice's changed regions (by type) and annotations, per file stem."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        raise SystemExit("LibreOffice is not installed: apt-get install libreoffice-writer-nogui")
    subprocess.run(
        [soffice, "--headless", "--convert-to", "fodt", "--outdir", str(out), *map(str, paths)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    from lxml import etree

    text_ns = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    office_ns = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    result: dict[str, Counter[str]] = {}
    for path in paths:
        root = etree.parse(str(out / f"{path.stem}.fodt"))
        counts: Counter[str] = Counter()
        for region in root.iter(f"{{{text_ns}}}changed-region"):
            for child in region:
                counts[etree.QName(child).localname] += 1
        counts["annotation"] = sum(1 for _ in root.iter(f"{{{office_ns}}}annotation"))
        result[path.stem] = counts
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=6)
    parser.add_argument("--shared", type=Path, default=FOLDER)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        made = {}
        for seed in range(args.documents):
            path = folder / f"made-{seed}.docx"
            made[path] = make_document(path, seed)
        shared = args.shared / "nda-cover-page-tracked-changes.docx"
        paths = [*made, *([shared] if shared.exists() else [])]
        theirs = libreoffice(paths, folder)
        for path in paths:
            known = made.get(path)
            rows.append(
                {
                    "file": path.name,
                    "known": dict(known) if known is not None else None,
                    "ours": dict(ours(path)),
                    "libreoffice": dict(theirs[path.stem]),
                }
            )
    agree = sum(1 for r in rows if r["known"] is not None and {k: v for k, v in r["ours"].items() if v} == r["known"])
    made_count = sum(1 for r in rows if r["known"] is not None)
    for row in rows:
        print(json.dumps(row))
    print(f"{agree} of {made_count} made documents: our counts equal the known ones")
    if args.out:
        write_json(args.out, {"rows": rows, "ours_equal_known": [agree, made_count]})


if __name__ == "__main__":
    main()
