"""The data-room GPU benchmark's parts that need no GPU: a timed review with the scripted engine,
its replies held to the review's JSON schema unless ``--no-schema`` says not."""

from __future__ import annotations

from pathlib import Path

import pytest

from inference.engines.fake import FakeEngine
from lab.bench.gpu_room import main, review_for
from summarizer.library.storage.store import Library
from summarizer.review import room_review
from summarizer.review.item_answers import REPLY_SCHEMA
from tests.summarizer.doc_factory import add_document
from tests.summarizer.review.room_contracts import NOT_FOUND, contract


@pytest.mark.parametrize(("schema", "held_to"), [(True, REPLY_SCHEMA), (False, None)])
def test_the_replies_are_held_to_the_schema_unless_told_not(schema: bool, held_to: object, tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as library:
        doc_id = add_document(library, contract(0))
        engine = FakeEngine(default_reply=NOT_FOUND, n_ctx=4096)
        row = review_for(library, engine, [doc_id], "scripted", limit_s=120, schema=schema)
    assert (row["contracts_finished"], row["stopped_at_limit"]) == (1, False)
    assert row["items_answered"] == row["checklist_items"] > 0
    assert engine.calls and all(call.json_schema == held_to for call in engine.calls)


def test_no_schema_leaves_the_products_schema_alone() -> None:
    with pytest.raises(SystemExit):  # an unknown configuration: stopped after the options are read
        main(["run", "--no-schema", "--configs", "no-such-config"])
    assert room_review.REPLY_SCHEMA is REPLY_SCHEMA
