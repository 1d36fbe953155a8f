"""How much a Word file may ask of Pagewise: a contract from the other side is untrusted input, and
its size on disk (``file_type.MAX_DOCUMENT_BYTES``) says little about what its zip parts inflate
to, how much text it makes or the work its numbering asks for. Each limit is named here with its
reason; a file past one is refused with a ``DocumentError`` naming the file, the part and the limit.

``read_part`` reads a part through ``ZipFile.open`` and stops as soon as it passes its limit, so a
part that inflates to gigabytes costs at most the limit in memory (and never a full ``testzip``).
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

from summarizer.errors import DocumentError

# The body part (word/document.xml). A 2,000-page contract's is about 10 MiB; lxml's tree takes
# about 9.5 times the XML in memory, so 64 MiB keeps a read under about 600 MB.
MAX_BODY_PART_BYTES = 64 * 1024**2
# Any other part read (styles, numbering, comments, headers, footers, notes, properties): a few
# hundred kB in real files.
MAX_OTHER_PART_BYTES = 16 * 1024**2
# A document's paragraphs and table rows: each becomes a stored "page", cut and embedded. A
# 2,000-page contract has about 40,000.
MAX_PARAGRAPHS = 200_000
# A document's text in all: about 5,000 pages of dense text.
MAX_TEXT_CHARS = 16_000_000
# One paragraph's text: a paragraph is cut into sentences whole, so one of 50 MB takes gigabytes.
# A million characters is about 300 pages with no paragraph break.
MAX_PARAGRAPH_CHARS = 1_000_000
# A numbering level's start (w:start, w:startOverride): Word's own dialog stops at 32767.
MAX_NUMBER_START = 32_767
# A numbering level's text (w:lvlText, "%1.%2."): Word keeps it to a few characters.
MAX_LEVEL_TEXT_CHARS = 64
# Letters repeat past z (aa, bbb...): past this many repeats a number is shown in digits.
MAX_LETTER_REPEAT = 10
# Roman numerals past this are shown in digits (roman() writes "m" once per thousand).
MAX_ROMAN = 3_999

_CHUNK = 1 << 20


def part_limit(name: str, main: str) -> int:
    return MAX_BODY_PART_BYTES if name == main else MAX_OTHER_PART_BYTES


def read_part(archive: zipfile.ZipFile, name: str, limit: int, path: Path) -> bytes:
    """The part ``name``, inflated; a DocumentError naming the file and the part when it inflates past
    ``limit``, is encrypted, uses a compression Pagewise cannot read, or is corrupt."""
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise _too_large(path, name, limit)
    if info.flag_bits & 0x1:
        raise DocumentError(
            f"{path} cannot be read: its part {name} is encrypted inside the zip (not Word's own password "
            "protection). Open it in Word and save it again, or ask the sender for an unencrypted copy.",
            path=path,
        )
    chunks: list[bytes] = []
    size = 0
    try:
        with archive.open(info) as source:
            while chunk := source.read(_CHUNK):
                size += len(chunk)
                if size > limit:  # the header's size was forged: stop here, never inflate the rest
                    raise _too_large(path, name, limit)
                chunks.append(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:
        raise DocumentError(
            f"{path} is damaged: its part {name} is corrupt ({error}). Re-download it, or open it in Word, which "
            "may repair it, and save it again.",
            path=path,
        ) from None
    except (NotImplementedError, RuntimeError) as error:  # a compression method or an encryption zipfile lacks
        raise DocumentError(
            f"{path} cannot be read: its part {name} is stored in a way Pagewise cannot unpack ({error}). Open it "
            "in Word and save it again.",
            path=path,
        ) from None
    return b"".join(chunks)


def _too_large(path: Path, name: str, limit: int) -> DocumentError:
    return DocumentError(
        f"{path} was not added: its part {name} inflates to more than the {limit // 1024**2} MiB Pagewise reads "
        "for it (a real Word file's is far smaller, so the file may be made to exhaust memory). If it is a "
        "genuine document, export it as PDF and add that.",
        path=path,
    )


def check_text(paragraphs: list[str], path: Path) -> None:
    """A DocumentError, naming the limit, when a document has too many paragraphs, too much text, or
    one paragraph too long to cut into passages."""
    if len(paragraphs) > MAX_PARAGRAPHS:
        raise DocumentError(
            f"{path} was not added: it has {len(paragraphs):,} paragraphs, more than the {MAX_PARAGRAPHS:,} "
            "Pagewise reads in one Word document. Split it into parts (or export it as PDF) and add those.",
            path=path,
        )
    total = 0
    for number, text in enumerate(paragraphs, start=1):
        if len(text) > MAX_PARAGRAPH_CHARS:
            raise DocumentError(
                f"{path} was not added: its paragraph {number} holds {len(text):,} characters, more than the "
                f"{MAX_PARAGRAPH_CHARS:,} Pagewise reads in one paragraph. Break it into paragraphs in Word, "
                "or export the document as PDF, and add that.",
                path=path,
            )
        total += len(text)
    if total > MAX_TEXT_CHARS:
        raise DocumentError(
            f"{path} was not added: it holds {total:,} characters of text, more than the {MAX_TEXT_CHARS:,} "
            "Pagewise reads in one Word document. Split it into parts and add those.",
            path=path,
        )
