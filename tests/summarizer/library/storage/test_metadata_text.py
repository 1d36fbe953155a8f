"""A PDF's title without control characters, as ingest stores it and as the store reads it back
(issue 42: "imagemagick-lzw\u0000")."""

from __future__ import annotations

from pathlib import Path

from summarizer.library.storage.store import Library
from tests.summarizer.doc_factory import add_document


def test_control_and_format_characters_go_and_whitespace_becomes_one_space() -> None:
    from summarizer.library.storage.metadata_text import clean_metadata_text

    assert clean_metadata_text("imagemagick-lzw\x00") == "imagemagick-lzw"
    assert clean_metadata_text("\ufeffMaster\tServices\r\n Agreement\u200b\x7f ") == "Master Services Agreement"
    assert clean_metadata_text("Lieferv\x00ertrag — Café") == "Liefervertrag — Café"
    assert clean_metadata_text("\x00\x01") == ""


def test_a_title_stored_with_a_nul_is_read_back_clean(tmp_path: Path) -> None:
    """A library written before the cleaning holds the NUL: the store shows the title without it."""
    with Library.open(tmp_path / "library.sqlite") as library:
        doc_id = add_document(library, ["Supply agreement between Acme and Beta."], title="imagemagick-lzw\x00")
        raw = library.db.execute("SELECT title FROM documents WHERE doc_id = ?", [doc_id]).fetchone()[0]
        assert raw == "imagemagick-lzw\x00"  # as an old library holds it
        assert library.document(doc_id).title == "imagemagick-lzw"
        assert [d.title for d in library.documents()] == ["imagemagick-lzw"]
        assert library.document(doc_id).to_json()["title"] == "imagemagick-lzw"
