"""The CLI contract of `pagewise summarize` and `pagewise ask`: JSON keys, errors, exit codes.

The model is a scripted ``FakeEngine`` (the loading function is replaced); the real model runs
in tests/summarizer/test_smollm2_end_to_end.py.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.cli import main
from app.commands._model_args import OpenModel
from inference.engines.engine import render_plain
from inference.engines.fake import FakeEngine
from inference.planning.plan import Plan
from summarizer.library.storage.store import Library
from tests.inference.engines.openai_fake import FakeServer, serving
from tests.summarizer.doc_factory import add_document, numbered_pages


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as lib:
        yield lib


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> FakeEngine:
    engine = FakeEngine(default_reply="The buyer pays monthly [p. 7] and [p. 99].", n_ctx=2048)

    def open_model(
        args: argparse.Namespace, library: Library, progress: Any, *, batch: bool, summaries_only: bool = False
    ) -> OpenModel:
        if not engine.loaded:  # closed by the command before: each command loads its model
            engine.load()
        return OpenModel(engine, "fake-sha", 2, Plan(model_path="fake.gguf", n_gpu_layers=0, n_ctx=2048))

    def planned_model(
        args: argparse.Namespace, library: Library, *, batch: bool, summaries_only: bool = False, progress: Any = None
    ) -> tuple[Plan, int, str]:
        return Plan(model_path="fake.gguf", n_gpu_layers=0, n_ctx=2048), 2, "fake-sha"

    monkeypatch.setattr("app.commands._model_args.open_model", open_model)
    monkeypatch.setattr("app.commands._model_args.planned_model", planned_model)
    return engine


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main([*argv, "--json"])
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return code, json.loads(lines[0])


def test_summarize_json(
    capsys: pytest.CaptureFixture[str], library: Library, fake_model: FakeEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc_id = add_document(library, numbered_pages(12, 110), title="Supply")
    code, data = run_json(capsys, "summarize", doc_id, "--segment-tokens", "400")
    assert code == 0
    assert {"doc_id", "segments", "super_summary", "levels", "stats"} <= set(data)
    assert data["doc_id"] == doc_id and len(data["segments"]) >= 3
    for segment in data["segments"]:
        assert set(segment) == {"page_start", "page_end", "text"} and 1 <= segment["page_start"] <= 12
    assert data["super_summary"]["page_start"] == 1 and data["super_summary"]["page_end"] == 12
    calls = len(fake_model.calls)
    assert data["stats"]["model_calls"] == calls
    assert any(c.batch for c in fake_model.calls), "the plan left room for 2 sequences: batched"
    loads = []
    monkeypatch.setattr("app.commands._model_args.open_model", lambda *a, **k: loads.append(a))
    code, again = run_json(capsys, "summarize", doc_id, "--segment-tokens", "400")
    assert code == 0 and again["stats"]["model_calls"] == 0 and len(fake_model.calls) == calls
    assert loads == [], "a stored summary is shown without loading the model"
    assert again["super_summary"] == data["super_summary"] and again["segments"] == data["segments"]


def test_ask_json_has_the_issue_keys(
    capsys: pytest.CaptureFixture[str], library: Library, fake_model: FakeEngine
) -> None:
    doc_id = add_document(library, numbered_pages(30, 110), title="Supply")
    code, data = run_json(capsys, "ask", doc_id, "clause7 clause9", "--segment-tokens", "600")
    assert code == 0
    assert set(data) == {"answer", "mode", "citations", "passages", "sources", "stats"}
    assert data["mode"] == "passages" and data["answer"].startswith("The buyer pays")  # no summary stored
    assert [(c["page"], c["valid"]) for c in data["citations"]] == [(7, True), (99, False)]
    assert {"doc_id", "page", "passage_id", "text", "valid", "locator"} <= set(data["citations"][0])
    assert data["citations"][0]["locator"] is None  # a PDF's page says where it is
    assert data["citations"][0]["passage_id"] is not None and data["citations"][1]["passage_id"] is None
    assert data["passages"] and set(data["passages"][0]) == {
        "passage_id",
        "doc_id",
        "heading",
        "text",
        "page_start",
        "page_end",
        "score",
        "locator",
    }
    assert {"prompt_tokens", "completion_tokens", "ttft_s", "prefill_tok_s", "decode_tok_s"} <= set(data["stats"])


def test_ask_answers_from_passages_without_a_summary_and_makes_one_with_with_summary(
    capsys: pytest.CaptureFixture[str], library: Library, fake_model: FakeEngine
) -> None:
    """Issue 25: `ask` summarized a document first (minutes on a CPU); now only with --with-summary."""
    from summarizer.summaries.store import count_summaries

    doc_id = add_document(library, numbered_pages(30, 110), title="Supply")
    code, data = run_json(capsys, "ask", doc_id, "clause7 clause9", "--segment-tokens", "600")
    assert code == 0 and data["mode"] == "passages" and data["passages"]
    assert len(fake_model.calls) == 1, "only the answer: no summary call"
    assert count_summaries(library, doc_id) == 0
    code, data = run_json(capsys, "ask", doc_id, "clause7 clause9", "--segment-tokens", "600", "--with-summary")
    assert code == 0 and data["mode"] == "retrieval"
    assert len(fake_model.calls) > 3 and count_summaries(library, doc_id, "super") == 1
    fake_model.calls.clear()
    code, data = run_json(capsys, "ask", doc_id, "clause9", "--segment-tokens", "600")
    assert code == 0 and data["mode"] == "retrieval" and len(fake_model.calls) == 1  # the stored summary is used


def test_ask_whole_document_and_all(
    capsys: pytest.CaptureFixture[str], library: Library, fake_model: FakeEngine
) -> None:
    add_document(library, ["The buyer pays 10 dollars."] * 7, title="Short")
    code, data = run_json(capsys, "ask", "--all", "How much?")
    assert code == 0 and data["mode"] == "whole-document" and data["passages"] == []
    assert data["citations"][0]["valid"] and data["citations"][0]["passage_id"] is None


def test_ask_streams_text_and_lists_citations(
    capsys: pytest.CaptureFixture[str], library: Library, fake_model: FakeEngine
) -> None:
    doc_id = add_document(library, ["The buyer pays 10 dollars."] * 7, title="Short")
    assert main(["ask", doc_id, "How much?"]) == 0
    out = capsys.readouterr().out
    assert "The buyer pays monthly [p. 7]" in out and "NOT VALID" in out and "[whole-document]" in out


def test_ask_about_a_word_document_names_its_clauses(
    capsys: pytest.CaptureFixture[str], library: Library, fake_model: FakeEngine, tmp_path: Path
) -> None:
    from summarizer.library.ingest import IngestOptions, ingest_path
    from tests.docx_factory import para, write_heading_clauses_docx

    body = para("Payment", style="Heading1") + para("Invoices. The buyer pays monthly.", num=(1, 1))
    body += para("Term", style="Heading1") + para("Renewal. The term renews each year.", num=(1, 1))
    path = write_heading_clauses_docx(tmp_path / "supply.docx", body)
    doc_id = ingest_path(library, path, IngestOptions(embed=False)).doc_id
    fake_model.default_reply = "The buyer pays monthly [p. 2]."
    code, data = run_json(capsys, "ask", doc_id, "When does the buyer pay?")
    assert code == 0 and data["citations"][0]["valid"]
    assert data["citations"][0]["locator"] == "§ 1.1 Invoices, ¶ 2"
    assert main(["ask", doc_id, "When does the buyer pay?"]) == 0
    assert f"{doc_id} § 1.1 Invoices, ¶ 2" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("reply", "valid", "locator"),
    [
        ("The buyer pays monthly [¶ 2].", True, "§ 1.1 Invoices, ¶ 2"),
        ("The buyer pays monthly [§ 1.1].", True, "§ 1.1 Invoices, ¶ 2"),
        ("The buyer pays monthly [§ 1.1, ¶ 2].", True, "§ 1.1 Invoices, ¶ 2"),
        ("The term renews [§ 2.1].", True, "§ 2.1 Renewal, ¶ 4"),
        ("The buyer pays monthly [§ 9.4].", False, None),
        ("The buyer pays monthly [¶ 40].", False, "¶ 40"),
    ],
)
def test_word_citations_by_clause_and_paragraph_are_checked_and_located(
    capsys: pytest.CaptureFixture[str],
    library: Library,
    fake_model: FakeEngine,
    tmp_path: Path,
    reply: str,
    valid: bool,
    locator: str | None,
) -> None:
    """Whole-document mode: every paragraph was given, each labelled [¶ N]; a clause or paragraph
    not in the document is invalid, with the reason in --json."""
    from summarizer.library.ingest import IngestOptions, ingest_path
    from tests.docx_factory import para, write_heading_clauses_docx

    body = para("Payment", style="Heading1") + para("Invoices. The buyer pays monthly.", num=(1, 1))
    body += para("Term", style="Heading1") + para("Renewal. The term renews each year.", num=(1, 1))
    path = write_heading_clauses_docx(tmp_path / "supply.docx", body)
    doc_id = ingest_path(library, path, IngestOptions(embed=False)).doc_id
    fake_model.default_reply = reply
    code, data = run_json(capsys, "ask", doc_id, "When does the buyer pay?")
    (citation,) = data["citations"]
    assert code == 0 and data["mode"] == "whole-document"
    assert citation["valid"] is valid and citation["locator"] == locator
    assert bool(citation["reason"]) is not valid
    last = fake_model.last_prompt
    prompt = last if isinstance(last, str) else render_plain(last)
    assert "[¶ 2] 1.1 Invoices. The buyer pays monthly." in prompt and "[Page" not in prompt
    assert "cite its paragraph like [¶ 12]" in prompt


def test_the_prompt_lists_the_tracked_changes_and_comments_of_a_word_passage(
    capsys: pytest.CaptureFixture[str], library: Library, fake_model: FakeEngine, tmp_path: Path
) -> None:
    from summarizer.library.ingest import IngestOptions, ingest_path
    from tests.docx_factory import comments, para, write_docx

    filler = "".join(
        para(f"Clause {n}. The parties agree on schedule item {n} of the services. " * 6) for n in range(40)
    )
    changed = (
        '<w:p><w:commentRangeStart w:id="0"/><w:r><w:t xml:space="preserve">Indemnity. The Supplier indemnifies '
        'the Customer against </w:t></w:r><w:ins w:id="1" w:author="Other Side" w:date="2026-02-01T00:00:00Z">'
        '<w:r><w:t>direct </w:t></w:r></w:ins><w:del w:id="2" w:author="Other Side" w:date="2026-02-01T00:00:00Z">'
        "<w:r><w:delText>all </w:delText></w:r></w:del><w:r><w:t>claims by third parties.</w:t></w:r></w:p>"
    )
    path = write_docx(tmp_path / "draft.docx", filler + changed, comments_xml=comments((0, "Counsel", "Push back.")))
    doc_id = ingest_path(library, path, IngestOptions(embed=False)).doc_id
    fake_model.default_reply = "The other side narrowed it to direct claims [p. 41]."
    code, data = run_json(capsys, "ask", doc_id, "What did the other side change in the indemnity?")
    assert code == 0 and data["mode"] == "passages"
    prompt = (
        render_plain(fake_model.last_prompt) if not isinstance(fake_model.last_prompt, str) else fake_model.last_prompt
    )
    assert "Indemnity. The Supplier indemnifies the Customer against direct claims by third parties." in prompt
    assert "- Other Side inserted “direct” (¶ 41)" in prompt
    assert "- Other Side deleted “all” (¶ 41)" in prompt
    assert "- comment by Counsel on ¶ 41: “Push back.”" in prompt
    assert re.search(r"Passage 1 \(¶ \d+(–\d+)?\):", prompt) and "cite its paragraph like [¶ 12]" in prompt
    assert "p. 41" not in prompt  # a Word document's paragraphs are not called pages


def test_summarize_names_a_word_documents_parts_by_paragraph(
    capsys: pytest.CaptureFixture[str], library: Library, fake_model: FakeEngine, tmp_path: Path
) -> None:
    from summarizer.library.ingest import IngestOptions, ingest_path
    from tests.docx_factory import para, write_docx

    body = para("Payment. The buyer pays monthly.") + para("Term. The term renews each year.")
    doc_id = ingest_path(library, write_docx(tmp_path / "supply.docx", body), IngestOptions(embed=False)).doc_id
    fake_model.default_reply = "Monthly payments; yearly renewal."
    assert main(["summarize", doc_id]) == 0
    out = capsys.readouterr().out
    assert "[¶ 1–2]" in out and "Summary (¶ 1–2):" in out and "p. " not in out


def test_a_word_document_given_whole_brings_its_tracked_changes_and_comments(
    capsys: pytest.CaptureFixture[str], library: Library, fake_model: FakeEngine, tmp_path: Path
) -> None:
    """Whole-document mode lists the document's changes and comments after its text, as passages
    mode lists a passage's under it; a PDF given whole beside it gets no such list."""
    from summarizer.library.ingest import IngestOptions, ingest_path
    from tests.docx_factory import comments, para, write_docx

    changed = (
        '<w:p><w:commentRangeStart w:id="0"/><w:r><w:t xml:space="preserve">Indemnity. The Supplier indemnifies '
        'the Customer against </w:t></w:r><w:ins w:id="1" w:author="Other Side" w:date="2026-02-01T00:00:00Z">'
        '<w:r><w:t>direct </w:t></w:r></w:ins><w:del w:id="2" w:author="Other Side" w:date="2026-02-01T00:00:00Z">'
        "<w:r><w:delText>all </w:delText></w:r></w:del><w:r><w:t>claims by third parties.</w:t></w:r></w:p>"
    )
    body = para("Payment. The buyer pays monthly.") + changed
    path = write_docx(tmp_path / "draft.docx", body, comments_xml=comments((0, "Counsel", "Push back.")))
    doc_id = ingest_path(library, path, IngestOptions(embed=False)).doc_id
    fake_model.default_reply = "The other side narrowed it to direct claims [¶ 2]."
    code, data = run_json(capsys, "ask", doc_id, "What did the other side change in the indemnity?")
    assert code == 0 and data["mode"] == "whole-document"
    prompt = (
        render_plain(fake_model.last_prompt) if not isinstance(fake_model.last_prompt, str) else fake_model.last_prompt
    )
    text_at = prompt.index("[¶ 2] Indemnity. The Supplier indemnifies the Customer against direct claims")
    notes_at = prompt.index("Tracked changes and comments in this document (the text above has the changes accepted):")
    assert text_at < notes_at
    notes = prompt[notes_at:]
    assert "- Other Side inserted “direct” (¶ 2)" in notes and "- Other Side deleted “all” (¶ 2)" in notes
    assert "- comment by Counsel on ¶ 2: “Push back.”" in notes
    (citation,) = data["citations"]
    assert citation["valid"] is True


def test_a_word_document_without_changes_given_whole_has_no_changes_list(
    capsys: pytest.CaptureFixture[str], library: Library, fake_model: FakeEngine, tmp_path: Path
) -> None:
    from summarizer.library.ingest import IngestOptions, ingest_path
    from tests.docx_factory import para, write_docx

    path = write_docx(tmp_path / "clean.docx", para("Payment. The buyer pays monthly."))
    doc_id = ingest_path(library, path, IngestOptions(embed=False)).doc_id
    fake_model.default_reply = "Monthly [¶ 1]."
    code, data = run_json(capsys, "ask", doc_id, "When does the buyer pay?")
    prompt = (
        render_plain(fake_model.last_prompt) if not isinstance(fake_model.last_prompt, str) else fake_model.last_prompt
    )
    assert code == 0 and data["mode"] == "whole-document"
    assert "[¶ 1] Payment. The buyer pays monthly." in prompt and "Tracked changes" not in prompt


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ask", "only-a-question"], "give one or more DOC_IDs"),
        (["ask", "--all", "a", "b"], "with --all give only the question"),
        (["ask", "nope", "question?"], "No document 'nope'"),
        (["summarize", "nope"], "No document 'nope'"),
    ],
)
def test_usage_errors(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code = main([*argv, "--json"])
    assert code != 0 and message in json.loads(capsys.readouterr().out)["error"]


def test_no_model_configured(
    capsys: pytest.CaptureFixture[str], library: Library, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PAGEWISE_MODEL", raising=False)
    doc_id = add_document(library, ["Text."], title="Short")
    assert main(["summarize", doc_id]) == 1
    assert "No model is configured. Pass --model PATH" in capsys.readouterr().err
    assert main(["ask", doc_id, "q?", "--model", str(tmp_path / "missing.gguf"), "--json"]) == 1
    assert "not found" in json.loads(capsys.readouterr().out)["error"]


def test_summarize_plans_a_context_sized_for_summaries_unless_told() -> None:
    """A smaller main context leaves more memory to the batch context (docs/benchmarks.md)."""
    import argparse

    from app.commands._model_args import _context

    def args(ctx: int | None = None, segment_tokens: int | None = None) -> argparse.Namespace:
        return argparse.Namespace(ctx=ctx, segment_tokens=segment_tokens)

    assert _context(args(), summaries_only=True) == 8192 + 256 + 512 + 1024
    assert _context(args(segment_tokens=2048), summaries_only=True) == 2048 + 256 + 512 + 1024
    assert _context(args(ctx=4096), summaries_only=True) == 4096
    assert _context(args(), summaries_only=False) is None  # answers: the planner's default context
    assert _context(args(ctx=4096), summaries_only=False) == 4096


def test_asking_about_a_scanned_pdf_gives_a_notice_not_an_answer(
    capsys: pytest.CaptureFixture[str], library: Library, fake_model: FakeEngine, tmp_path: Path
) -> None:
    """Issue 24: a question about a scanned (no-text) document got an ungrounded answer."""
    from summarizer.library.ingest import ingest_path
    from tests.pdf_factory import make_pdf

    scan = ingest_path(library, make_pdf(tmp_path / "scan.pdf", [None, None]))
    code, data = run_json(capsys, "ask", scan.doc_id, "What is this agreement about?")
    assert code == 1 and data["error"].startswith("scan.pdf has no text to answer from")
    assert "OCR" in data["error"] and not fake_model.calls  # nothing was asked
    assert "pagewise reindex --ocr" in data["error"]  # Pagewise reads it itself
    text = add_document(library, numbered_pages(3, 60), title="Supply")
    code, data = run_json(capsys, "ask", scan.doc_id, text, "What is it about?")
    assert code == 0 and data["answer"]  # the scan is left out, the other document answers


@pytest.fixture
def keyed_server() -> Iterator[tuple[FakeServer, str]]:
    """A fake OpenAI-compatible server started with --api-key s3cret."""
    state = FakeServer(api_key="s3cret")
    with serving(state) as url:
        yield state, url


def test_the_remote_servers_key_comes_from_the_keyring_or_the_environment(
    capsys: pytest.CaptureFixture[str],
    library: Library,
    keyed_server: tuple[FakeServer, str],
    memory_keyring: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No --api-key flag (it would sit in the shell's history): the keyring's entry for the
    server (service "pagewise", its base address), or $PAGEWISE_API_KEY, which wins."""
    server, url = keyed_server
    doc_id = add_document(library, numbered_pages(2), title="Supply")
    memory_keyring.set_password("pagewise", url, "s3cret")
    code, data = run_json(capsys, "summarize", doc_id, "--remote", url + "/v1")
    assert code == 0, data
    assert data["super_summary"]["text"] == "Hello there, friend."
    assert set(server.authorizations) == {"Bearer s3cret"}
    memory_keyring.set_password("pagewise", url, "stale")
    monkeypatch.setenv("PAGEWISE_API_KEY", "s3cret")
    code, data = run_json(capsys, "ask", doc_id, "When are invoices paid?", "--remote", url)
    assert code == 0, data
    assert data["answer"] == "Hello there, friend."


def test_a_refused_key_says_whether_one_was_sent(
    capsys: pytest.CaptureFixture[str],
    library: Library,
    keyed_server: tuple[FakeServer, str],
    memory_keyring: Any,
) -> None:
    _server, url = keyed_server
    doc_id = add_document(library, numbered_pages(2), title="Supply")
    code, data = run_json(capsys, "ask", doc_id, "When are invoices paid?", "--remote", url)
    assert code == 1
    assert data["error"].startswith(f"The server at {url} needs an API key (HTTP 401) and none was sent.")
    assert "PAGEWISE_API_KEY" in data["error"] and data["detail"] == "Invalid API key"
    memory_keyring.set_password("pagewise", url, "wrong")
    code, data = run_json(capsys, "summarize", doc_id, "--remote", url)
    assert code == 1 and data["error"].startswith(f"The server at {url} refused the API key it was sent (HTTP 401).")


def test_plain_http_to_another_computer_is_warned_of_before_connecting(
    capsys: pytest.CaptureFixture[str], library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    import inference.engines.remote
    from inference.errors import EngineError

    class Unreachable:
        def __init__(self, url: str, *, api_key: str | None, **_options: object) -> None:
            pass

        def load(self, *args: object) -> None:
            raise EngineError("The server at http://10.0.0.5:8080 did not answer.")

        def close(self) -> None:
            pass

    monkeypatch.setattr(inference.engines.remote, "RemoteEngine", Unreachable)
    doc_id = add_document(library, numbered_pages(2), title="Supply")
    code = main(["ask", doc_id, "When are invoices paid?", "--remote", "http://10.0.0.5:8080", "--json"])
    assert code == 1
    assert "pagewise: warning: http://10.0.0.5:8080 is plain http to another computer" in capsys.readouterr().err
