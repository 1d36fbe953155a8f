"""Bad input for Word documents: each a typed error naming the file, or read as what it really is."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from summarizer.errors import DocumentError, NoText, PasswordRequired
from summarizer.library.reading.docx_extract import read_docx
from summarizer.library.reading.file_type import PDF, WORD, is_document_name, sniff
from tests.docx_factory import level, numbering, para, write_docx
from tests.pdf_factory import make_pdf

OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504


def _ole(path: Path, stream: str) -> Path:
    path.write_bytes(OLE + stream.encode("utf-16-le") + b"\x00" * 64)
    return path


def test_a_docx_that_is_really_a_pdf_is_read_as_a_pdf(tmp_path: Path) -> None:
    path = tmp_path / "contract.docx"
    make_pdf(path, [["Page one."]])
    assert sniff(path) == PDF


def test_a_word_document_is_a_word_document(tmp_path: Path) -> None:
    assert sniff(write_docx(tmp_path / "a.docx", para("Text."))) == WORD


def test_a_damaged_zip_names_the_file(tmp_path: Path) -> None:
    good = write_docx(tmp_path / "good.docx", para("Text. " * 200))
    broken = tmp_path / "broken.docx"
    broken.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    with pytest.raises(DocumentError, match=r"broken\.docx is damaged"):
        sniff(broken)


def test_an_encrypted_word_file_is_told_apart_from_an_old_doc(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"locked\.docx is a password-protected Word document") as locked:
        sniff(_ole(tmp_path / "locked.docx", "EncryptionInfo"))
    assert not isinstance(locked.value, PasswordRequired)  # no password can open it here: none is asked
    with pytest.raises(DocumentError, match=r"old\.doc is an old Word 97–2003 document") as caught:
        sniff(_ole(tmp_path / "old.doc", "WordDocument"))
    assert not isinstance(caught.value, PasswordRequired)


def test_rtf_and_other_zips_get_a_clear_message(tmp_path: Path) -> None:
    rtf = tmp_path / "memo.rtf"
    rtf.write_bytes(b"{\\rtf1\\ansi Hello}")
    with pytest.raises(DocumentError, match=r"memo\.rtf is a Rich Text"):
        sniff(rtf)
    sheet = tmp_path / "sheet.docx"
    with zipfile.ZipFile(sheet, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    with pytest.raises(DocumentError, match=r"sheet\.docx is an Excel workbook"):
        sniff(sheet)


def test_word_lock_files_are_not_documents(tmp_path: Path) -> None:
    assert is_document_name("contract.docx") and is_document_name("scan.PDF")
    assert not is_document_name("~$ntract.docx")
    lock = tmp_path / "~$ntract.docx"
    lock.write_bytes(b"\x05alice" + b"\x00" * 150)
    with pytest.raises(DocumentError, match=r"lock file .* add ntract\.docx itself"):
        sniff(lock)


def test_broken_numbering_falls_back_to_the_written_text(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "n.docx", para("1.1 Written number.", num=(1, 0)), numbering_xml="<w:numbering")
    document = read_docx(path)
    assert [(p.number, p.text) for p in document.paragraphs] == [(None, "1.1 Written number.")]
    assert "numbering.xml" in document.warnings[0]


def test_missing_numbering_or_unknown_num_id_reads_the_text(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "m.docx", para("Clause.", num=(3, 0)))
    assert [(p.number, p.text) for p in read_docx(path).paragraphs] == [(None, "Clause.")]
    xml = numbering({1: level(0, "decimal", "%1.")}, {1: '<w:abstractNumId w:val="1"/>'})
    path = write_docx(tmp_path / "u.docx", para("Clause.", num=(9, 0)), numbering_xml=xml)
    assert [(p.number, p.text) for p in read_docx(path).paragraphs] == [(None, "Clause.")]


def test_an_empty_document_and_an_images_only_one(tmp_path: Path) -> None:
    with pytest.raises(NoText, match=r"empty\.docx is an empty Word document"):
        read_docx(write_docx(tmp_path / "empty.docx", para("") + para("")))
    picture = "<w:p><w:r><w:drawing/></w:r></w:p>"
    with pytest.raises(NoText, match=r"scan\.docx holds only images \(2\)"):
        read_docx(write_docx(tmp_path / "scan.docx", picture * 2))


def test_xml_that_is_not_xml_names_the_part(tmp_path: Path) -> None:
    path = tmp_path / "bad.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("word/document.xml", "<w:document><w:body>")
    with pytest.raises(DocumentError, match=r"bad\.docx is damaged: its part word/document\.xml"):
        read_docx(path)


def test_strict_open_xml_is_read(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "strict.docx", para("Strict text."))
    data = {}
    with zipfile.ZipFile(path) as archive:
        data = {n: archive.read(n) for n in archive.namelist()}
    data["word/document.xml"] = data["word/document.xml"].replace(
        b"http://schemas.openxmlformats.org/wordprocessingml/2006/main",
        b"http://purl.oclc.org/ooxml/wordprocessingml/main",
    )
    with zipfile.ZipFile(path, "w") as archive:
        for name, blob in data.items():
            archive.writestr(name, blob)
    assert [p.text for p in read_docx(path).paragraphs] == ["Strict text."]


def test_macro_enabled_and_template_word_files_are_read_as_word(tmp_path: Path) -> None:
    for name in ("macros.docm", "template.dotx"):
        path = write_docx(tmp_path / name, para("Terms."))
        assert sniff(path) == WORD
        assert [p.text for p in read_docx(path).paragraphs] == ["Terms."]


def test_a_pipe_added_by_name_is_refused_without_opening_it(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.docx")
    with pytest.raises(DocumentError, match=r"pipe\.docx is not a file"):
        sniff(tmp_path / "pipe.docx")
