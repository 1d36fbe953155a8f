from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from summarizer.errors import DocumentError, PasswordRequired
from summarizer.library.reading.pdf_extract import PdfPages
from tests.conftest import CONTRACTS
from tests.pdf_factory import make_pdf, text_pages


@pytest.mark.parametrize(
    ("name", "pages", "phrase", "page"),
    [
        ("license-17p.pdf", 17, "Termination\xa0for\xa0Bankruptcy", 8),
        ("endorsement-8p.pdf", 8, "ENDORSEMENT", 1),
        ("supply-16p.pdf", 16, "Purchase Schedule", 1),
    ],
)
def test_fixture_contracts_extract_page_by_page(name: str, pages: int, phrase: str, page: int) -> None:
    pdf = PdfPages(CONTRACTS / name)
    texts = list(pdf.pages())
    assert pdf.page_count == pages == len(texts)
    assert [t.number for t in texts] == list(range(1, pages + 1))
    assert phrase.lower() in texts[page - 1].text.lower()
    assert all(t.error is None for t in texts)
    # Stored text is exactly what pypdf extracts.
    assert texts[page - 1].text == PdfReader(CONTRACTS / name).pages[page - 1].extract_text()
    assert len(pdf.content_sha256) == 64


def test_title_comes_from_metadata_or_file_name(tmp_path: Path) -> None:
    titled = make_pdf(tmp_path / "a.pdf", text_pages(1), title="Master Services Agreement")
    assert PdfPages(titled).title == "Master Services Agreement"
    untitled = make_pdf(tmp_path / "supply-deal.pdf", text_pages(1))
    assert PdfPages(untitled).title == "supply-deal"
    # An SEC filing's metadata often holds its accession number: no title a reader knows.
    numbered = make_pdf(tmp_path / "NIKE_2019_10K.pdf", text_pages(1), title="0000320187-19-000051")
    assert PdfPages(numbered).title == "NIKE_2019_10K"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"missing\.pdf: no such file"):
        PdfPages(tmp_path / "missing.pdf")


def test_folder_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="is a folder"):
        PdfPages(tmp_path)


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_pdf(tmp_path / "locked.pdf", text_pages(1))

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", denied)
    with pytest.raises(DocumentError, match=r"locked\.pdf cannot be read: permission denied"):
        PdfPages(path)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    with pytest.raises(DocumentError, match=r"empty\.pdf is empty"):
        PdfPages(path)


def test_not_a_pdf(tmp_path: Path) -> None:
    path = tmp_path / "notes.pdf"
    path.write_text("Just some notes, saved with the wrong extension.\n")
    with pytest.raises(DocumentError, match=r"notes\.pdf is not a PDF"):
        PdfPages(path)


@pytest.mark.parametrize("keep", [0.2, 0.5, 0.9])
def test_truncated_pdf(tmp_path: Path, keep: float) -> None:
    data = (CONTRACTS / "endorsement-8p.pdf").read_bytes()
    path = tmp_path / "truncated.pdf"
    path.write_bytes(data[: int(len(data) * keep)])
    # Either it cannot be opened at all, or the pages that survive are read and the rest
    # reported as bad: never an unhandled exception.
    try:
        pdf = PdfPages(path)
    except DocumentError as error:
        assert "truncated.pdf" in str(error)
        assert "damaged" in str(error) or "no pages" in str(error)
        return
    pages = list(pdf.pages())
    assert any(p.error for p in pages) or all(p.text is not None for p in pages)


def test_garbage_after_header(tmp_path: Path) -> None:
    path = tmp_path / "garbage.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 40)
    with pytest.raises(DocumentError, match=r"garbage\.pdf is damaged"):
        PdfPages(path)


def _encrypt(source: Path, target: Path, user_password: str) -> Path:
    writer = PdfWriter(clone_from=source)
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="AES-256")
    with target.open("wb") as handle:
        writer.write(handle)
    return target


def test_encrypted_pdf_asks_for_a_password(tmp_path: Path) -> None:
    plain = make_pdf(tmp_path / "plain.pdf", text_pages(2))
    locked = _encrypt(plain, tmp_path / "secret.pdf", "hunter2")
    with pytest.raises(PasswordRequired, match=r"secret\.pdf is encrypted.*--password") as info:
        PdfPages(locked)
    assert not info.value.wrong_password
    with pytest.raises(PasswordRequired, match=r"secret\.pdf: wrong password") as info:
        PdfPages(locked, password="wrong")
    assert info.value.wrong_password
    pages = list(PdfPages(locked, password="hunter2").pages())
    assert "Page marker 1" in pages[0].text


def test_owner_password_only_pdf_opens_without_asking(tmp_path: Path) -> None:
    plain = make_pdf(tmp_path / "plain.pdf", text_pages(1))
    locked = _encrypt(plain, tmp_path / "owner-only.pdf", "")
    assert "Page marker 1" in next(PdfPages(locked).pages()).text


def test_a_page_that_fails_to_parse_is_reported_and_the_others_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_pdf(tmp_path / "mixed.pdf", [*text_pages(2), [], *text_pages(1, tag="c")])
    from pypdf import PageObject

    real = PageObject.extract_text

    def flaky(self: PageObject, *args: object, **kwargs: object) -> str:
        text = real(self, *args, **kwargs)  # type: ignore[arg-type]
        if not text.strip():
            raise ValueError("bad content stream")
        return text

    monkeypatch.setattr(PageObject, "extract_text", flaky)
    pages = list(PdfPages(path).pages())
    assert [p.error is not None for p in pages] == [False, False, True, False]
    assert "bad content stream" in (pages[2].error or "")


def test_a_page_with_a_damaged_stream_is_listed_as_bad(tmp_path: Path) -> None:
    from tests.pdf_factory import make_pdf_with_broken_page

    path = make_pdf_with_broken_page(tmp_path / "damaged-page.pdf", good_pages=3, broken_page=2)
    pages = list(PdfPages(path).pages())
    assert len(pages) == 4
    assert [p.error is not None for p in pages] == [False, True, False, False]
    assert "Page marker 3" in pages[3].text
