"""What the data-room review tests share: the two-item checklist, small contracts, the scripted
replies (the fake engine's "not found", the fake server's governing law), and the checks they
repeat (every contract stored, the evidence thread gone)."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from inference.engines.fake import FakeEngine
from inference.engines.remote import RemoteEngine
from inference.engines.remote_http import Backoff
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.item_answers import stored_review

ITEMS = (
    ChecklistItem("law", "Governing Law", "Which law governs?", ("governed by the laws of",), "jurisdiction"),
    ChecklistItem("coc", "Change of Control", "Change of control?", ("change of control",), "yes_no"),
)
CHECKLIST = Checklist("two", "v1", ITEMS)
NOT_FOUND = json.dumps({"found": False, "answer": "", "quote": "", "pages": []})
N_CTX = 616  # a reading unit of 256 tokens: each page of ``pages`` is a unit of its own


def pages(n: int) -> list[str]:
    """Contract ``n`` of two long pages: the governing law on the first, a change of control on the second."""
    filler = " ".join(f"word{i}" for i in range(150))
    return [
        f"Contract {n} page one. Governing law. This agreement is governed by the laws of New York. {filler}",
        f"Contract {n} page two. Change of control. Upon a change of control either party may end it. {filler}",
    ]


def contract(n: int) -> list[str]:
    """Contract ``n`` of one short page (one reading per item)."""
    return [f"Contract {n}. This agreement is governed by the laws of New York. The term is five years."]


def answer(body: dict[str, Any]) -> str:
    """The fake server's model: finds the governing law, never a change of control clause."""
    question = body["messages"][-1]["content"]
    if "Which law governs?" in question:
        return json.dumps({"found": True, "answer": "New York", "quote": "the laws of New York", "pages": [1]})
    return NOT_FOUND


def not_found_engine() -> FakeEngine:
    """The scripted engine that finds nothing, at the context that reads ``pages`` a page a unit."""
    return FakeEngine(default_reply=NOT_FOUND, n_ctx=N_CTX)


def engine_for(url: str, **kwargs: Any) -> RemoteEngine:
    """The remote engine on the fake server at ``url``, loaded, its retries quick."""
    engine = RemoteEngine(url, backoff=Backoff(attempts=5, first_s=0.01, most_s=0.05), **kwargs)
    engine.load()
    return engine


def all_stored(library: Library, doc_ids: Sequence[str], model: str, checklist: Checklist = CHECKLIST) -> bool:
    """Whether every contract's review by ``model`` is stored."""
    return all(stored_review(library, doc_id, checklist, model) is not None for doc_id in doc_ids)


def evidence_thread_alive() -> bool:
    return any(t.name == "pagewise-room-evidence" and t.is_alive() for t in threading.enumerate())
