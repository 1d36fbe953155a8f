"""A Word file's parts: the zip opened, a part read by name (Strict Open XML's namespace turned into
the usual one) and parsed as XML, and which part is the document's body.

The XML parser resolves no entities and reaches no network; a part that is not valid XML raises a
DocumentError naming the file and the part. A part is read through ``docx_limits.read_part``, which
stops at its limit however far it would inflate.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from lxml import etree

from summarizer.errors import DocumentError
from summarizer.library.reading.docx_limits import part_limit, read_part
from summarizer.library.reading.docx_numbering import W

_STRICT_W = b"http://purl.oclc.org/ooxml/wordprocessingml/main"
_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


class PartReader:
    def __init__(self, archive: zipfile.ZipFile, path: Path) -> None:
        self.archive = archive
        self.path = path
        self.names = set(archive.namelist())
        self.main = "word/document.xml"  # the body part, allowed the larger limit (set by main_part's caller)

    def read(self, name: str) -> bytes | None:
        if name not in self.names:
            return None
        data = read_part(self.archive, name, part_limit(name, self.main), self.path)
        # Strict Open XML differs from the usual (transitional) form mostly in its namespaces.
        return data.replace(_STRICT_W, W.encode()) if _STRICT_W in data else data

    def xml(self, name: str) -> etree._Element | None:
        data = self.read(name)
        if data is None:
            return None
        try:
            return etree.fromstring(data, parser=_PARSER)
        except etree.XMLSyntaxError as error:
            raise DocumentError(
                f"{self.path} is damaged: its part {name} is not valid XML ({error}). Open it in Word, which may "
                "repair it, and save it again.",
                path=self.path,
            ) from None


def main_part(parts: PartReader) -> str:
    """The name of the document's body part (``word/document.xml`` unless the package says otherwise)."""
    rels = parts.xml("_rels/.rels")
    if rels is not None:
        for rel in rels.iter(f"{{{_REL}}}Relationship"):
            if str(rel.get("Type", "")).endswith("/officeDocument"):
                return str(rel.get("Target", "")).lstrip("/")
    return "word/document.xml"
