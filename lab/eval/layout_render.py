"""Versions of a contract in layouts that differ: the renderings of ``lab.eval.compare_known_edits_layouts``.

A lawyer compares a signed PDF with the next draft, or their Word draft with the PDF the other side
sent back: the two versions were laid out by different programs. Here a version's clause texts are
laid out three ways:

- ``render_layout``: a PDF drawn by fpdf2 in one of ``LAYOUTS``: its font (DejaVu, Unicode: the
  text's characters as they are) and size, margins, a running header and footer, page numbers;
- ``write_word``: a Word file, a paragraph per clause paragraph, with a running header and a
  footer with a PAGE field;
- ``libreoffice_pdf``: LibreOffice's PDF export of such Word files (``soffice --convert-to pdf``),
  its header, footer and page numbers on every page.
"""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from xml.sax.saxutils import escape

from lab.eval.compare_known_edits import ARTICLE_HEADING
from lab.eval.numbered_docx import write_numbered_docx
from tests.docx_factory import para, write_docx

FIXED_DATE = datetime(2021, 3, 1, tzinfo=UTC)  # a fixed creation date: the same bytes on each run

# The layouts' fonts: Unicode TrueType fonts, so that a rendering's text layer holds the source's
# characters as they are ("☐", "●", "∕", "§", curly quotes, U+037E for ";"); fpdf2's core fonts
# can draw only Latin-1 (WinAnsi), and the "?" written for the rest were false changes that a
# pair's truth does not count (docs/compare.md, "Across layouts"). Debian's paths.
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")  # fonts-dejavu-core
FONT_FILES = {
    "DejaVuSans": (DEJAVU / "DejaVuSans.ttf", "fonts-dejavu-core"),
    "DejaVuSerif": (DEJAVU / "DejaVuSerif.ttf", "fonts-dejavu-core"),
    # Chinese, Japanese and Korean, which DejaVu has not (license-17p names its Beijing party in
    # Chinese); needed only by a text that has such characters.
    "DroidSansFallback": (Path("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"), "fonts-droid-fallback"),
}
# Where a character is not in a layout's font, the first of these that has it draws it (DejaVu
# Serif has no "☐", DejaVu Sans has).
FALLBACK_FONTS = ("DejaVuSans", "DroidSansFallback")
# A tab has no glyph in these fonts: fpdf2 draws nothing and the text layer glues "2.1" to the
# word after it. It is written as the spaces a text view shows; other spaces a font has no glyph
# for as one space.
TAB = "    "


class FontMissing(RuntimeError):
    """A font the layouts need is not installed."""


def font_file(family: str) -> Path:
    """The font file of ``family`` (a key of ``FONT_FILES``); ``FontMissing`` names it if absent."""
    path, package = FONT_FILES[family]
    if not path.is_file():
        raise FontMissing(
            f"The layouts' font {path.name} is missing (looked for {path}): install it with "
            f"apt-get install {package}, then run again."
        )
    return path


@cache
def _characters(path: Path) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(path, lazy=True).getBestCmap())


def fonts_for(text: str, layout: Layout) -> list[str]:
    """The font families that draw ``text`` in ``layout``: its font and the fallbacks it needs, in
    ``FALLBACK_FONTS``'s order. ``FontMissing`` where a character is in none of them (a missing
    font named), rather than a box or a "?" in the rendering's text."""
    needed = {ord(c) for c in text if not c.isspace()} - _characters(font_file(layout.font))
    families = [layout.font]
    for family in FALLBACK_FONTS:
        if not needed or family == layout.font:
            continue
        path = FONT_FILES[family][0]
        if not path.is_file():
            continue
        covered = needed & _characters(path)
        if covered:
            families.append(family)
            needed -= covered
    if needed:
        shown = ", ".join(f"{chr(c)!r} (U+{c:04X})" for c in sorted(needed)[:5])
        tried = ", ".join(f"{FONT_FILES[f][0]} ({FONT_FILES[f][1]})" for f in (layout.font, *FALLBACK_FONTS))
        raise FontMissing(f"No installed font draws {shown}: looked in {tried}; install a font that has them.")
    return families


def _spaces(text: str, drawn: frozenset[int]) -> str:
    return "".join(TAB if c == "\t" else " " if c.isspace() and c != "\n" and ord(c) not in drawn else c for c in text)


@dataclass(frozen=True)
class Layout:
    name: str
    font: str  # a key of FONT_FILES
    size: float  # points
    margins: tuple[float, float, float]  # left, top, right (points); the bottom is the top's
    header: str  # running header ("" for none); "{title}" is the contract's name
    footer: str  # running footer; "{page}" and "{pages}" are numbered
    paragraph_gap: float  # points between paragraphs


LAYOUTS = {
    # The way a firm's template sets a draft: a confidential legend above, "Page N of M" below.
    "firm": Layout("firm", "DejaVuSans", 10, (72, 72, 72), "CONFIDENTIAL - {title}", "Page {page} of {pages}", 6),
    # The counterparty's: another font, narrower margins, the document name in the footer and a
    # bare page number under it.
    "counterparty": Layout(
        "counterparty",
        "DejaVuSerif",
        11.5,
        (54, 60, 90),
        "Execution Version",
        "{title} (Version 2) - free to use under CC BY 4.0.\n{page}",
        4,
    ),
}


def paragraphs(clauses: list[str]) -> list[str]:
    """The clauses as paragraphs; an article's marker and title on lines of their own, as contracts
    set them (``compare_known_edits.write_version``)."""
    out: list[str] = []
    for clause in clauses:
        for paragraph in clause.split("\n\n"):
            heading = ARTICLE_HEADING.match(paragraph)
            if heading:
                out += [heading.group(1), heading.group(2).strip()]
                paragraph = paragraph[heading.end() :].strip()
            if paragraph.strip():
                out.append(paragraph)
    return out


def render_layout(path: Path, title: str, clauses: list[str], layout: Layout) -> Path:
    """The clauses drawn as a PDF in ``layout``, their characters as they are (tabs as spaces).
    No text shaping: fpdf2's shaping cannot number pages with "{nb}" (fpdf2 issue #1090), and its
    ligatures ("fi" as one glyph) would change the text layer."""
    from fpdf import FPDF

    drawn = _characters(font_file(layout.font))
    texts = [_spaces(p, drawn) for p in paragraphs(clauses)]
    running = [layout.header.format(title=title), layout.footer.format(title=title, page=0, pages=0)]
    families = fonts_for("".join(texts + running), layout)

    class _Pdf(FPDF):
        def header(self) -> None:
            if layout.header:
                self.set_font(layout.font, size=layout.size - 2)
                self.cell(0, layout.size, layout.header.format(title=title), align="R")
                self.ln(layout.size * 2)

        def footer(self) -> None:
            lines = layout.footer.format(title=title, page=self.page_no(), pages="{nb}").split("\n")
            self.set_y(-layout.margins[1] + 12)
            self.set_font(layout.font, size=layout.size - 2)
            for line in lines:
                self.cell(0, layout.size, line, align="C", new_x="LMARGIN", new_y="NEXT")

    pdf = _Pdf(orientation="portrait", unit="pt", format="letter")
    pdf.set_creation_date(FIXED_DATE)
    for family in families:
        pdf.add_font(family, fname=font_file(family))
    pdf.set_fallback_fonts(families[1:])
    pdf.set_margins(*layout.margins)
    pdf.set_auto_page_break(True, margin=layout.margins[1] + 12)
    pdf.alias_nb_pages()
    pdf.add_page()
    pdf.set_font(layout.font, size=layout.size)
    for text in texts:
        pdf.multi_cell(0, layout.size * 1.2, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(layout.paragraph_gap)
    pdf.output(str(path))
    return path


_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_WML = "application/vnd.openxmlformats-officedocument.wordprocessingml"
_PARTS = {  # part: (relationship type, content type)
    "numbering.xml": ("numbering", f"{_WML}.numbering+xml"),
    "styles.xml": ("styles", f"{_WML}.styles+xml"),
    "header1.xml": ("header", f"{_WML}.header+xml"),
    "footer1.xml": ("footer", f"{_WML}.footer+xml"),
}


def _running(tag: str, body: str) -> str:
    declaration = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    return f'{declaration}<w:{tag} xmlns:w="{_W}" xmlns:r="{_R}">{body}</w:{tag}>'


def write_word(path: Path, title: str, clauses: list[str], *, numbered: bool = False) -> Path:
    """The clauses as a Word file, a paragraph each, with a running header (the contract's name)
    and a footer with a PAGE field, on US letter pages; the parts written with their
    relationships, as Word writes them (the test factory's files have none). The clause numbers are
    the text's own, or with ``numbered`` automatic numbering (``write_numbered_docx``): LibreOffice 7.4
    draws its legal numbering under a roman article ("2.2" in Word) as "II.2.", a
    renumbering that is the renderer's, not the layout's."""
    plain = path.with_suffix(".plain.docx")
    if numbered:
        write_numbered_docx(plain, clauses)
    else:
        write_docx(plain, "".join(para(escape(p)) for p in paragraphs(clauses)))
    with zipfile.ZipFile(plain) as archive:
        parts = {name: archive.read(name).decode("utf-8") for name in archive.namelist()}
    plain.unlink()
    name = escape(title)
    parts["word/header1.xml"] = _running(
        "hdr", f'<w:p><w:pPr><w:jc w:val="right"/></w:pPr><w:r><w:t>{name.upper()}</w:t></w:r></w:p>'
    )
    parts["word/footer1.xml"] = _running(
        "ftr",
        f'<w:p><w:pPr><w:jc w:val="center"/></w:pPr><w:r><w:t xml:space="preserve">{name} - Professional Services '
        "Agreement (Version 1.1). Page </w:t></w:r>"
        '<w:fldSimple w:instr="PAGE"><w:r><w:t>1</w:t></w:r></w:fldSimple></w:p>',
    )
    section = (
        '<w:sectPr><w:headerReference w:type="default" r:id="rIdHeader"/>'
        '<w:footerReference w:type="default" r:id="rIdFooter"/><w:pgSz w:w="12240" w:h="15840"/>'
        '<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" '
        'w:gutter="0"/></w:sectPr>'
    )
    parts["word/document.xml"] = parts["word/document.xml"].replace("</w:body>", f"{section}</w:body>")
    present = {part: kinds for part, kinds in _PARTS.items() if f"word/{part}" in parts}
    ids = {"header1.xml": "rIdHeader", "footer1.xml": "rIdFooter"}
    relationships = "".join(
        f'<Relationship Id="{ids.get(part, "rId" + part.split(".")[0])}" Type="{_R}/{kind}" Target="{part}"/>'
        for part, (kind, _) in present.items()
    )
    parts["word/_rels/document.xml.rels"] = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships '
        f'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{relationships}</Relationships>'
    )
    overrides = "".join(
        f'<Override PartName="/word/{part}" ContentType="{ctype}"/>' for part, (_, ctype) in present.items()
    )
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace("</Types>", f"{overrides}</Types>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for part, data in parts.items():
            archive.writestr(part, data)
    return path


def soffice() -> str | None:
    return shutil.which("soffice") or shutil.which("libreoffice")


def libreoffice_pdf(docx_files: list[Path], outdir: Path) -> list[Path]:
    """LibreOffice's PDFs of the Word files (one ``soffice`` run for all)."""
    program = soffice()
    if program is None:
        raise RuntimeError("LibreOffice (soffice) is not installed: apt-get install libreoffice-writer-nogui")
    outdir.mkdir(parents=True, exist_ok=True)
    profile = outdir / "lo-profile"
    subprocess.run(
        [
            program,
            f"-env:UserInstallation=file://{profile}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(outdir),
            *map(str, docx_files),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return [outdir / f"{f.stem}.pdf" for f in docx_files]
