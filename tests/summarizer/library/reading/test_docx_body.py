"""Text in Word text boxes and drawing shapes (issue 56, item 4): read once, in reading order,
with its numbering; only real pictures count as images."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from summarizer.errors import NoText
from summarizer.library.reading.docx_extract import read_docx
from tests.docx_factory import (
    alternate_content,
    drawing_text_box,
    level,
    numbering,
    para,
    picture,
    vml_text_box,
    write_docx,
)

NUMBERS = numbering({1: level(0, "decimal", "%1.")}, {1: '<w:abstractNumId w:val="1"/>'})
CLAUSES = para("Term. This Agreement lasts two years.", num=(1, 0)) + para(
    "Fees. The customer pays monthly.", num=(1, 0)
)


def _anchored(shape: str) -> str:
    """A paragraph of the body that anchors ``shape``, with text of its own."""
    return f"<w:p><w:r><w:t>Cover page.</w:t></w:r><w:r>{shape}</w:r></w:p>"


BOXES: dict[str, Callable[[str], str]] = {
    "drawingml": drawing_text_box,
    "vml": vml_text_box,
    "alternate content": lambda content: alternate_content(drawing_text_box(content), vml_text_box(content)),
}


@pytest.mark.parametrize("kind", list(BOXES))
def test_numbered_paragraphs_in_a_text_box_are_read_once_in_order_with_their_numbers(tmp_path: Path, kind: str) -> None:
    body = _anchored(BOXES[kind](CLAUSES)) + para("Signatures follow.")
    document = read_docx(write_docx(tmp_path / "boxed.docx", body, numbering_xml=NUMBERS))
    assert [(p.number, p.text) for p in document.paragraphs] == [
        (None, "Cover page."),
        ("1.", "Term. This Agreement lasts two years."),
        ("2.", "Fees. The customer pays monthly."),
        (None, "Signatures follow."),
    ]
    assert [p.index for p in document.paragraphs] == [1, 2, 3, 4]
    assert document.images == 0  # a shape holding text is no picture


def test_a_document_whose_text_is_all_in_shapes_is_read_not_refused_as_images(tmp_path: Path) -> None:
    body = f"<w:p><w:r>{alternate_content(drawing_text_box(CLAUSES), vml_text_box(CLAUSES))}</w:r></w:p>"
    document = read_docx(write_docx(tmp_path / "shapes.docx", body, numbering_xml=NUMBERS))
    assert [p.number for p in document.paragraphs] == ["1.", "2."]


def test_a_picture_still_counts_as_an_image_and_pictures_alone_are_refused(tmp_path: Path) -> None:
    body = _anchored(picture()) + _anchored(drawing_text_box(para("Boxed note.")))
    document = read_docx(write_docx(tmp_path / "mixed.docx", body))
    assert document.images == 1
    assert [p.text for p in document.paragraphs] == ["Cover page.", "Cover page.", "Boxed note."]
    only_pictures = f"<w:p><w:r>{picture()}</w:r><w:r>{alternate_content(picture(), '<w:pict/>')}</w:r></w:p>"
    with pytest.raises(NoText, match=r"holds only images \(2\)"):
        read_docx(write_docx(tmp_path / "scan.docx", only_pictures))


def test_a_text_box_inside_a_text_box_is_read_once(tmp_path: Path) -> None:
    inner = drawing_text_box(para("Inner note."))
    outer = drawing_text_box(para("Outer note.") + f"<w:p><w:r>{inner}</w:r></w:p>")
    document = read_docx(write_docx(tmp_path / "nested.docx", _anchored(outer)))
    assert [p.text for p in document.paragraphs] == ["Cover page.", "Outer note.", "Inner note."]
