"""Progress stages are typed values shared by the floors, with the words they always had."""

from __future__ import annotations

import json

import pytest

from inference.progress import Progress, Stage


def test_a_free_string_is_not_a_stage() -> None:
    with pytest.raises(TypeError, match="not a Stage"):
        Progress("Reading pages", 1, 2)  # type: ignore[arg-type]


def test_stages_keep_the_words_shown_and_written_by_json() -> None:
    progress = Progress(Stage.READ_PAGES, 4, 10)
    assert json.dumps({"stage": progress.stage}) == '{"stage": "Reading pages"}'
    assert f"{Stage.SUMMARIZE_SEGMENTS}" == "summarizing segments" and Stage("load") is Stage.LOAD
    assert len({stage.value for stage in Stage}) == len(Stage)
