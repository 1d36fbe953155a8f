"""What the window's data-room review tests share: a library of small contracts, the two-item
checklist chosen on the Review tab, the scripted engine that answers its questions (slowly, so a
test sees the job under way), and the waits for the job."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inference.engines.fake import FakeEngine
from tests.summarizer.doc_factory import add_document

CHECKLIST_CSV = (
    "id,category,question,queries,type,expected\n"
    "law,Governing Law,Which law governs the agreement?,governed by the laws of,jurisdiction,\n"
    "coc,Change of Control,Is there a change of control clause?,change of control,yes_no,\n"
)


def pages(n: int) -> list[str]:
    filler = " ".join(f"word{i}" for i in range(60))
    return [
        f"Contract {n} page one. This agreement is governed by the laws of New York. {filler}",
        f"Contract {n} page two. Upon a change of control either party may end it. {filler}",
    ]


def reply(prompt: str) -> str:
    """The scripted model: New York for the law, not found for the change of control."""
    if "Which law governs" in prompt and "laws of New York" in prompt:
        quote = "This agreement is governed by the laws of New York."
        return json.dumps({"found": True, "answer": "New York", "quote": quote, "pages": [1]})
    return json.dumps({"found": False, "answer": "", "quote": "", "pages": []})


class SlowFake(FakeEngine):
    """The scripted engine, each reply taking a while (so a test sees the job under way)."""

    def _next_reply(self) -> Any:
        from inference.engines.engine import render_plain

        return reply(render_plain(self.calls[-1].prompt))


def slow_fake(piece_delay_s: float = 0.01) -> SlowFake:
    """``SlowFake`` not loaded yet, with an 8K context, ``piece_delay_s`` a piece."""
    return SlowFake(autoload=False, n_ctx=8192, piece_delay_s=piece_delay_s)


def add_contracts(window: Any, n: int) -> list[str]:
    """``n`` two-page contracts added to the window's library; their ids."""
    return [add_document(window.library, pages(k), title=f"Contract {k}", words_per_passage=30) for k in range(n)]


def open_room(window: Any, tmp_path: Path) -> None:
    """The Review tab open with the two-item checklist chosen and every contract checked; the room's
    "review N contracts?" question answered yes."""
    checklist = tmp_path / "two.csv"
    checklist.write_text(CHECKLIST_CSV)
    window.tabs.setCurrentWidget(window.review)
    assert window.reviews.use_checklist(str(checklist))
    window.reviews.refresh_documents()
    window.review.check_all(True)
    window.reviews.room.confirm = lambda _question: True


def room_window(make_window: Any, tmp_path: Path, n: int = 3, engine: Any = None) -> tuple[Any, list[str]]:
    """A window whose library holds ``n`` contracts, the two-item checklist chosen, the Review tab open."""
    window = make_window(engine=engine)
    ids = add_contracts(window, n)
    open_room(window, tmp_path)
    return window, ids


def wait_done(qtbot: Any, window: Any, timeout: int = 60_000) -> None:
    room = window.reviews.room
    qtbot.waitUntil(lambda: room.job is None and not room.showing, timeout=timeout)  # every cell shown


def wait_first_contract(qtbot: Any, room: Any) -> None:
    """Until the room's job has finished its first contract."""
    qtbot.waitUntil(lambda: room.last_status is not None and room.last_status.contracts_done >= 1, timeout=60_000)
