"""Small Word documents for tests, written part by part so that each test says exactly which
numbering, styles, tracked changes and comments its file holds."""

from __future__ import annotations

import zipfile
from pathlib import Path

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_NAMESPACES = (
    f'xmlns:w="{W_NS}" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
)
_CONTENT_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml"
 ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
</Types>"""
_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1"
 Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
 Target="word/document.xml"/>
</Relationships>"""


def para(text: str, *, style: str | None = None, num: tuple[int, int] | None = None, extra: str = "") -> str:
    """A ``w:p``: ``num`` is (numId, ilvl) set on the paragraph itself."""
    ppr = ""
    if style or num:
        style_xml = f'<w:pStyle w:val="{style}"/>' if style else ""
        num_xml = f'<w:numPr><w:ilvl w:val="{num[1]}"/><w:numId w:val="{num[0]}"/></w:numPr>' if num else ""
        ppr = f"<w:pPr>{style_xml}{num_xml}</w:pPr>"
    run = f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>' if text else ""
    return f"<w:p>{ppr}{extra}{run}</w:p>"


def level(ilvl: int, num_format: str, text: str, *, start: int = 1, style: str | None = None, extra: str = "") -> str:
    pstyle = f'<w:pStyle w:val="{style}"/>' if style else ""
    return (
        f'<w:lvl w:ilvl="{ilvl}"><w:start w:val="{start}"/><w:numFmt w:val="{num_format}"/>{pstyle}'
        f'<w:lvlText w:val="{text}"/>{extra}</w:lvl>'
    )


def numbering(abstracts: dict[int, str], nums: dict[int, str]) -> str:
    """``abstracts``: abstractNumId → its levels' XML; ``nums``: numId → the inside of its ``w:num``."""
    body = "".join(f'<w:abstractNum w:abstractNumId="{k}">{v}</w:abstractNum>' for k, v in abstracts.items())
    body += "".join(f'<w:num w:numId="{k}">{v}</w:num>' for k, v in nums.items())
    return f'<?xml version="1.0" encoding="UTF-8"?><w:numbering {_NAMESPACES}>{body}</w:numbering>'


def style(style_id: str, name: str, *, based_on: str | None = None, num: tuple[int, int | None] | None = None) -> str:
    based = f'<w:basedOn w:val="{based_on}"/>' if based_on else ""
    num_xml = ""
    if num:
        ilvl = f'<w:ilvl w:val="{num[1]}"/>' if num[1] is not None else ""
        num_xml = f'<w:pPr><w:numPr>{ilvl}<w:numId w:val="{num[0]}"/></w:numPr></w:pPr>'
    return f'<w:style w:type="paragraph" w:styleId="{style_id}"><w:name w:val="{name}"/>{based}{num_xml}</w:style>'


def styles(*entries: str) -> str:
    normal = '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
    return f'<?xml version="1.0" encoding="UTF-8"?><w:styles {_NAMESPACES}>{normal}{"".join(entries)}</w:styles>'


def write_docx(
    path: Path,
    body: str,
    *,
    numbering_xml: str | None = None,
    styles_xml: str | None = None,
    comments_xml: str | None = None,
    title: str | None = None,
    extra_parts: dict[str, str] | None = None,
) -> Path:
    document = f'<?xml version="1.0" encoding="UTF-8"?><w:document {_NAMESPACES}><w:body>{body}</w:body></w:document>'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("word/document.xml", document)
        archive.writestr("word/styles.xml", styles_xml or styles())
        if numbering_xml is not None:
            archive.writestr("word/numbering.xml", numbering_xml)
        if comments_xml is not None:
            archive.writestr("word/comments.xml", comments_xml)
        if title is not None:
            archive.writestr(
                "docProps/core.xml",
                '<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties '
                'xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
                f'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title></cp:coreProperties>',
            )
        for name, data in (extra_parts or {}).items():
            archive.writestr(name, data)
    return path


def write_heading_clauses_docx(path: Path, body: str) -> Path:
    """``body`` written with the numbering most tests' contracts use: list 1, whose level 0 numbers
    the "Heading 1" paragraphs ("1.", "2.", ...) and level 1 the clauses under them
    (``para(text, num=(1, 1))``: "1.1", "1.2", ...)."""
    numbers = numbering(
        {1: level(0, "decimal", "%1.", style="Heading1") + level(1, "decimal", "%1.%2")},
        {1: '<w:abstractNumId w:val="1"/>'},
    )
    return write_docx(
        path, body, numbering_xml=numbers, styles_xml=styles(style("Heading1", "heading 1", num=(1, None)))
    )


def comments(*entries: tuple[int, str, str]) -> str:
    """``entries``: (id, author, text)."""
    body = "".join(
        f'<w:comment w:id="{i}" w:author="{author}" w:date="2026-01-05T10:00:00Z"><w:p><w:r><w:t>{text}</w:t>'
        "</w:r></w:p></w:comment>"
        for i, author, text in entries
    )
    return f'<?xml version="1.0" encoding="UTF-8"?><w:comments {_NAMESPACES}>{body}</w:comments>'


_WPS = "http://schemas.microsoft.com/office/word/2010/wordprocessingShape"
_WP = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_V = "urn:schemas-microsoft-com:vml"


def drawing_text_box(content: str) -> str:
    """A DrawingML shape (``wps:wsp``) with a text box holding the paragraphs ``content``."""
    return (
        f'<w:drawing><wp:anchor xmlns:wp="{_WP}"><a:graphic xmlns:a="{_A}"><a:graphicData '
        f'uri="{_WPS}"><wps:wsp xmlns:wps="{_WPS}"><wps:txbx><w:txbxContent>{content}</w:txbxContent>'
        "</wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing>"
    )


def vml_text_box(content: str) -> str:
    """A VML shape (``v:shape``) with a text box holding the paragraphs ``content``."""
    return (
        f'<w:pict><v:shape xmlns:v="{_V}" style="width:200pt;height:100pt"><v:textbox>'
        f"<w:txbxContent>{content}</w:txbxContent></v:textbox></v:shape></w:pict>"
    )


def alternate_content(choice: str, fallback: str) -> str:
    """Word's way of writing a shape twice: DrawingML for Word 2010 on, VML for older readers."""
    return (
        f'<mc:AlternateContent><mc:Choice Requires="wps">{choice}</mc:Choice>'
        f"<mc:Fallback>{fallback}</mc:Fallback></mc:AlternateContent>"
    )


def picture() -> str:
    """A DrawingML picture (no text box): an image."""
    return f'<w:drawing><wp:inline xmlns:wp="{_WP}"><a:graphic xmlns:a="{_A}"/></wp:inline></w:drawing>'
