"""`pagewise compare`: the JSON list of changes, Markdown, files added first, and odd pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from tests.pdf_factory import make_pdf
from tests.summarizer.compare.contract_text import contract_lines, edited


def _pdf(path: Path, replacements: dict[str, str] | None = None) -> Path:
    return make_pdf(path, [contract_lines(edited(replacements or {}))])  # type: ignore[list-item]


def _json(capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    return json.loads(capsys.readouterr().out.splitlines()[-1])  # type: ignore[no-any-return]


def test_compare_files_json_lists_changes_with_kind_labels_locations_and_marks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    old = _pdf(tmp_path / "old.pdf")
    new = _pdf(tmp_path / "new.pdf", {"thirty (30)": "sixty (60)", "except for": "including"})
    assert main(["compare", str(old), str(new), "--json"]) == 0
    result = _json(capsys)
    assert result["verdict"] == "versions"
    assert [(c["kind"], c["old_label"], c["new_label"], c["material"]) for c in result["changes"]] == [
        ("changed", "2.1 Fees", "2.1 Fees", True),
        ("changed", "3.2 Exclusions", "3.2 Exclusions", True),
    ]
    fees = result["changes"][0]
    assert fees["reason"] == "a period changed"
    assert fees["old_location"]["page_start"] == 1 and fees["new_location"]["number"] == "2.1"
    assert fees["edits"] == [
        {"op": "replace", "old": "thirty", "new": "sixty"},
        {"op": "replace", "old": "30", "new": "60"},
    ]
    assert main(["list", "--json"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2, "both files were added to the library first"


def test_compare_library_ids_and_markdown(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    ids = []
    for name, edits in (("old.pdf", {}), ("new.pdf", {"Buyer shall pay": "Buyer may pay"})):
        assert main(["ingest", str(_pdf(tmp_path / name, edits)), "--json"]) == 0
        ids.append(_json(capsys)["doc_id"])
    out = tmp_path / "changes.md"
    assert main(["compare", *ids, "--format", "md", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "## ARTICLE II PAYMENT" in text and "~~shall~~ **may**" in text
    assert "**material**: an obligation's strength changed" in text


def test_the_same_file_twice_is_identical(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old = _pdf(tmp_path / "old.pdf")
    assert main(["compare", str(old), str(old), "--json"]) == 0
    result = _json(capsys)
    assert result["verdict"] == "identical" and result["changes"] == []


def test_unrelated_documents_are_different_documents(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old = _pdf(tmp_path / "old.pdf")
    other = make_pdf(
        tmp_path / "other.pdf", [[f"{n}. Garden{n}. Water the tomato plants at dawn in week {n}." for n in range(1, 9)]]
    )
    assert main(["compare", str(old), str(other), "--json"]) == 0
    result = _json(capsys)
    assert result["verdict"] == "different documents" and result["changes"] == []
    assert "different documents" in result["message"]


def test_an_unknown_id_says_what_to_give(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old = _pdf(tmp_path / "old.pdf")
    assert main(["compare", str(old), "nosuchid", "--json"]) != 0
    assert "neither a document of the library nor a file" in _json(capsys)["error"]


def test_compare_writes_a_word_redline(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import zipfile

    old = _pdf(tmp_path / "old.pdf")
    new = _pdf(tmp_path / "new.pdf", {"thirty (30)": "sixty (60)"})
    out = tmp_path / "redline.docx"
    assert main(["compare", str(old), str(new), "--format", "docx", "--out", str(out)]) == 0
    assert f"Written to {out}" in capsys.readouterr().out
    xml = zipfile.ZipFile(out).read("word/document.xml").decode()
    assert xml.count("<w:ins ") == 2 and xml.count("<w:del ") == 2  # thirty → sixty, 30 → 60
    assert 'w:author="Pagewise"' in xml


def test_explain_adds_the_model_s_sentence_to_material_changes_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 44, step 3: with a model, one sentence per material change, marked as the model's;
    the list and its marks are the fixed rules' whatever the model says."""
    from app.commands._model_args import OpenModel
    from inference.engines.fake import FakeEngine
    from inference.planning.plan import Plan

    engine = FakeEngine(default_reply="The payment period doubles from 30 to 60 days. More words here.")

    def open_model(*_args: object, **_kwargs: object) -> OpenModel:
        engine.load()
        return OpenModel(engine, "fake-sha", 2, Plan(model_path="fake.gguf", n_gpu_layers=0, n_ctx=2048))

    monkeypatch.setattr("app.commands._model_args.open_model", open_model)
    old = _pdf(tmp_path / "old.pdf")
    new = _pdf(tmp_path / "new.pdf", {"thirty (30)": "sixty (60)", "Buyer shall pay": "Buyer shall remit"})
    assert main(["compare", str(old), str(new), "--json"]) == 0
    plain = _json(capsys)
    assert main(["compare", str(old), str(new), "--json", "--explain"]) == 0
    explained = _json(capsys)
    strip = [{k: v for k, v in c.items() if k != "explanation"} for c in explained["changes"]]
    assert strip == plain["changes"]  # the model changes nothing in the list
    material = [c for c in explained["changes"] if c["material"]]
    assert material and all(
        c["explanation"]
        == {"text": "The payment period doubles from 30 to 60 days.", "by": "fake-model", "kind": "model"}
        for c in material
    )
    assert all("explanation" not in c for c in explained["changes"] if not c["material"])
    assert len(engine.prompts) == len(material)
    assert "sixty (60)" in str(engine.prompts[0]) and "thirty (30)" in str(engine.prompts[0])

    out = tmp_path / "changes.md"
    assert main(["compare", str(old), str(new), "--explain", "--format", "md", "--out", str(out)]) == 0
    assert "*fake-model's reading (a model's, not checked):* The payment period doubles" in out.read_text()
