"""A hostile Word file is refused with its limit named, or read within bounds: what its parts inflate
to, its paragraphs and text, its nesting and what its numbering asks for
(shared/reports/hostile-inputs-2026-12-06.md, section 1)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from summarizer.errors import DocumentError
from summarizer.library.reading import docx_limits
from summarizer.library.reading.docx_extract import read_docx
from summarizer.library.reading.docx_limits import MAX_LEVEL_TEXT_CHARS, read_part
from summarizer.library.reading.docx_numbering import NumberCounter, Numbering, letters, roman
from summarizer.library.reading.file_type import WORD, sniff
from tests.docx_factory import level, numbering, para, write_docx


def test_a_body_part_inflating_past_its_limit_is_refused_naming_the_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(docx_limits, "MAX_BODY_PART_BYTES", 64 * 1024)
    path = write_docx(tmp_path / "bomb.docx", para("x" * 100_000))  # compresses to a few hundred bytes
    assert sniff(path) == WORD  # only the zip's directory is read to tell what it is
    with pytest.raises(DocumentError, match=r"bomb\.docx was not added: its part word/document\.xml inflates"):
        read_docx(path)


def test_a_part_whose_header_understates_its_size_is_refused_as_damaged(tmp_path: Path) -> None:
    path = tmp_path / "a.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", b"x" * 300_000)
    with zipfile.ZipFile(path) as archive:
        archive.getinfo("word/document.xml").file_size = 10  # as a forged header would say
        with pytest.raises(DocumentError, match=r"its part word/document\.xml is corrupt"):
            read_part(archive, "word/document.xml", 100_000, path)  # zipfile stops at the declared size


def _mark_encrypted(path: Path, name: str) -> None:
    """Set the "encrypted" flag of one member in its local header and its central directory entry, as
    ZipCrypto inside the package would (zipfile writes no encrypted members itself)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        offset = archive.getinfo(name).header_offset
    data[offset + 6] |= 0x1
    central = data.index(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(name)] != name.encode():
        central = data.index(b"PK\x01\x02", central + 4)
    data[central + 8] |= 0x1
    path.write_bytes(bytes(data))


def test_a_zip_encrypted_part_is_the_file_s_error(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "locked.docx", para("Text."))
    _mark_encrypted(path, "word/document.xml")
    with pytest.raises(DocumentError, match=r"its part word/document\.xml is encrypted inside the zip"):
        read_docx(path)


def test_too_many_paragraphs_or_too_much_text_is_refused_with_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_docx(tmp_path / "many.docx", "".join(para(f"Clause {i}.") for i in range(12)))
    monkeypatch.setattr(docx_limits, "MAX_PARAGRAPHS", 10)
    with pytest.raises(DocumentError, match=r"many\.docx was not added: it has 12 paragraphs, more than the 10"):
        read_docx(path)
    monkeypatch.setattr(docx_limits, "MAX_PARAGRAPHS", 100)
    monkeypatch.setattr(docx_limits, "MAX_TEXT_CHARS", 50)
    with pytest.raises(DocumentError, match=r"characters of text, more than the 50"):
        read_docx(path)


def test_one_paragraph_too_long_to_cut_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(docx_limits, "MAX_PARAGRAPH_CHARS", 1000)
    path = write_docx(tmp_path / "long.docx", para("Short.") + para("word " * 300))
    with pytest.raises(DocumentError, match=r"its paragraph 2 holds 1,499 characters, more than the 1,000"):
        read_docx(path)


def test_content_nested_a_thousand_deep_is_refused_not_a_recursion_error(tmp_path: Path) -> None:
    depth = 1500  # under libxml2's 2,048 levels, past Python's 1,000 frames
    run = "<w:r><w:t>Deep.</w:t></w:r>"
    nested = "<w:p>" + "<w:hyperlink>" * depth + run + "</w:hyperlink>" * depth + "</w:p>"
    path = write_docx(tmp_path / "deep.docx", para("Top.") + nested)
    with pytest.raises(DocumentError, match=r"deep\.docx was not added: its content is nested deeper"):
        read_docx(path)


def test_a_huge_numbering_start_is_kept_small(tmp_path: Path) -> None:
    for start in (200_000_000, 10**30):
        path = write_docx(
            tmp_path / f"start{len(str(start))}.docx",
            para("", num=(1, 0)) * 3 + para("Clause.", num=(1, 0)),
            numbering_xml=numbering(
                {1: level(0, "lowerLetter", "(%1)", start=start)}, {1: '<w:abstractNumId w:val="1"/>'}
            ),
        )
        number = read_docx(path).paragraphs[-1].number
        assert number is not None and len(number) < 10, number  # 32,767 at most, shown in digits


def test_number_formats_fall_back_to_digits_past_their_limits() -> None:
    assert letters(27) == "aa"
    assert letters(26 * docx_limits.MAX_LETTER_REPEAT + 1) == str(26 * docx_limits.MAX_LETTER_REPEAT + 1)
    assert roman(3999) == "mmmcmxcix"
    assert roman(200_000_000) == "200000000"


def test_a_level_text_is_cut_to_its_limit() -> None:
    xml = numbering({1: level(0, "decimal", "%1" * 100_000)}, {1: '<w:abstractNumId w:val="1"/>'}).encode()
    shown = NumberCounter(Numbering.parse(xml)).next_number("1", 0)
    assert shown == "1" * (MAX_LEVEL_TEXT_CHARS // 2)
