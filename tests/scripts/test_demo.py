"""`make demo`'s order: what needs no model in full, then the notice about the test model, then it."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts import demo


def test_the_demo_shows_search_and_review_then_says_what_the_test_model_is(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[list[str]] = []

    def pagewise(argv: list[str]) -> int:
        ran.append(argv)
        print(f"<ran {argv[0]}>")
        return 0

    monkeypatch.setattr(demo, "pagewise", pagewise)
    monkeypatch.setattr(demo, "sample_doc_id", lambda sample: "abc123")
    monkeypatch.setattr(demo, "smollm2_gguf", lambda: Path("SmolLM2.gguf"))
    assert demo.run(Path("assets/sample-contract.pdf")) == 0
    commands = [argv[0] for argv in ran]
    assert commands == ["ingest", "search", "search", "search", "review", "summarize", "ask"]
    assert ran[4] == ["review", "abc123", "--evidence-only"]
    out = capsys.readouterr().out
    notice = out.index("SmolLM2-135M is a 135-million-parameter test model")
    assert out.index("<ran review>") < notice < out.index("<ran summarize>")
    assert "pagewise config set model_path" in out and "remote_url" in out
