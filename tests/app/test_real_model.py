"""One end-to-end run of the window with a real model: SmolLM2-135M on the CPU.

A 135M model rarely cites well: the test asserts the invariants (the worker loads, tokens
stream into the conversation, the answer is stored, citations are parsed and checked), not
the quality of the answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.services.model_session import ModelSession
from tests.app.conftest import wait_for_document
from tests.conftest import CONTRACTS

pytestmark = pytest.mark.slow


def test_ask_with_smollm2_on_the_cpu(qtbot: Any, make_window: Any, smollm2_path: Path) -> None:
    session = ModelSession({"model_path": str(smollm2_path), "vram_budget": "0", "context_size": 8192}, n_threads=2)
    window = make_window(session=session)
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    wait_for_document(qtbot, window)
    pieces: list[str] = []
    job = window.ask("Who are the parties to this agreement?")
    assert job is not None
    job.piece.connect(pieces.append)
    with qtbot.waitSignal(job.finished, timeout=300_000):
        pass
    errors = [m.text for m in window.messages.history if m.level == "error"]
    assert not errors, errors
    assert window.session.report is not None and window.session.report.backend in ("CPU", "CUDA")
    assert pieces, "the answer streamed"
    turn = window.conversation.turns[-1]
    assert turn.text and turn.mode in ("passages", "retrieval", "whole-document")
    for citation in turn.citations:
        assert citation.valid == bool(citation.passage_id is not None or turn.mode == "whole-document")
    assert window.status.last_rate is not None and window.status.last_rate > 0
    window.session.close()
