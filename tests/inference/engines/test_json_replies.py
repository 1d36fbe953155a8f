"""Replies held to a JSON schema always parse: every cut reply is closed validly, or it is a
typed error (inference/engines/json_replies.py), for the fake engine here; the local and remote engines
have their own tiny-budget tests (test_local.py, test_remote_llama_server.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inference.engines.engine import collect
from inference.engines.fake import FakeEngine
from inference.engines.json_closing import closing, shortest_value
from inference.engines.json_replies import ReplyFormatError, finish, schema_errors

REVIEW = {
    "type": "object",
    "properties": {
        "found": {"type": "boolean"},
        "answer": {"type": "string", "maxLength": 200},
        "quote": {"type": "string", "maxLength": 300},
        "pages": {"type": "array", "items": {"type": "integer"}, "maxItems": 4},
    },
    "required": ["found", "answer", "quote", "pages"],
    "additionalProperties": False,
}
NESTED = {
    "type": "object",
    "properties": {
        "amount": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "status": {"enum": ["match", "deviation", "missing"]},
        "parties": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string", "minLength": 2}},
                "required": ["name"],
            },
            "minItems": 2,
        },
    },
    "required": ["amount", "status", "parties"],
}
REPLIES: list[tuple[dict[str, Any], str]] = [
    (
        REVIEW,
        json.dumps(
            {"answer": 'yes, "capped" \\ at 1.5x é \u2014', "found": True, "pages": [1, 12, -3], "quote": "Thé"}
        ),
    ),
    (REVIEW, json.dumps({"answer": "no", "found": False, "pages": [], "quote": ""}, indent=2, sort_keys=True)),
    (NESTED, json.dumps({"amount": -1.5e3, "status": "deviation", "parties": [{"name": "Acme"}, {"name": "B\\n"}]})),
    (
        NESTED,
        json.dumps({"amount": None, "status": "missing", "parties": [{"name": "ab"}, {"name": "cd"}, {"name": "ef"}]}),
    ),
]


@pytest.mark.parametrize(("schema", "text"), REPLIES)
def test_every_cut_of_a_reply_is_closed_into_valid_json_of_its_schema(schema: dict[str, Any], text: str) -> None:
    for cut in range(len(text) + 1):
        ending = closing(text[:cut], schema)
        assert ending is not None, text[:cut]
        closed = text[:cut] + ending
        assert schema_errors(json.loads(closed), schema) == [], closed
    assert closing(text, schema) == ""


def test_the_ending_is_the_shortest_way_to_close() -> None:
    assert closing('{"found": false, "value": "1000000000000.000000, 10', REVIEW) is None  # not a property of REVIEW
    assert closing('{"answer": "the cap is 1', REVIEW) == '","found":false,"quote":"","pages":[]}'
    assert closing('{"answer":"x","found":tr', REVIEW) == 'ue,"quote":"","pages":[]}'
    assert closing('{"answer":"x","found":true,"pages":[1,2', REVIEW) == '],"quote":""}'
    assert closing('{"answer":"x","found":true,"pa', REVIEW) == 'ges":[],"quote":""}'
    assert closing('{"amount": 12.', NESTED) == '0,"status":"match","parties":[{"name":"aa"},{"name":"aa"}]}'
    assert shortest_value(NESTED) == '{"amount":0,"status":"match","parties":[{"name":"aa"},{"name":"aa"}]}'


def test_text_no_ending_can_fix_is_a_typed_error_naming_the_cause() -> None:
    assert closing("Sure! Here is the JSON:", REVIEW) is None
    assert closing('{"answer": "x"}', REVIEW) is None  # closed without the required properties
    assert closing('{"colour": "red"', REVIEW) is None  # additionalProperties: false
    with pytest.raises(ReplyFormatError, match="does not follow the JSON schema"):
        finish("Sure! Here is the JSON:", REVIEW, "stop", 160)
    with pytest.raises(ReplyFormatError, match="cut at its 160-token limit"):
        finish('{"colour": "red', REVIEW, "length", 160)


def _fake(*replies: str) -> FakeEngine:
    engine = FakeEngine(list(replies))
    engine.load()
    return engine


def test_the_fake_engine_closes_a_reply_cut_by_a_tiny_budget_single_and_batched() -> None:
    reply = '{"answer": "The liability of either party is capped at twelve months of fees", "found": true}'
    single = _fake(reply).complete("q", max_tokens=4, json_schema=REVIEW)
    assert schema_errors(json.loads(single.text), REVIEW) == [] and single.stats.json_closed
    assert single.stats.stop_reason == "length"
    batch = _fake(reply, reply).generate_batch(["a", "b"], max_tokens=3, json_schema=REVIEW)
    assert all(not schema_errors(json.loads(c.text), REVIEW) and c.stats.json_closed and c.error is None for c in batch)
    whole = _fake(json.dumps({"answer": "no", "found": False, "pages": [], "quote": ""})).complete(
        "q", max_tokens=100, json_schema=REVIEW
    )
    assert not whole.stats.json_closed


def test_an_unusable_reply_raises_alone_or_comes_back_with_its_error_in_a_batch() -> None:
    with pytest.raises(ReplyFormatError):
        collect(_fake("I cannot answer that.").generate("q", max_tokens=50, json_schema=REVIEW))
    good = json.dumps({"answer": "no", "found": False, "pages": [], "quote": ""})
    first, second = _fake("I cannot answer that.", good).generate_batch(["a", "b"], max_tokens=50, json_schema=REVIEW)
    assert (
        isinstance(first.error, ReplyFormatError) and second.error is None and json.loads(second.text)["found"] is False
    )
    with pytest.raises(ReplyFormatError, match="it is empty"):
        _fake("").complete("q", max_tokens=50, json_schema=REVIEW)
    plain = _fake("I cannot answer that.").complete("q", max_tokens=50)  # no schema: text as it is
    assert plain.text == "I cannot answer that." and plain.error is None


def test_raw_control_characters_in_strings_are_escaped_single_and_batched() -> None:
    """llama.cpp's JSON grammar lets a newline or a tab into a string, which strict JSON refuses
    (3 of the 41 SmolLM2 review items before this): the reply is escaped, its value unchanged."""
    raw = '{"answer": "line one\nline\ttwo", "found": true, "pages": [1], "quote": "a \\" b"}'
    single = _fake(raw).complete("q", max_tokens=100, json_schema=REVIEW)
    assert json.loads(single.text)["answer"] == "line one\nline\ttwo" and not single.stats.json_closed
    assert json.loads(single.text)["quote"] == 'a " b'
    (batched,) = _fake(raw).generate_batch(["q"], max_tokens=100, json_schema=REVIEW)
    assert batched.text == single.text and batched.error is None
    cut = _fake('{"answer": "line one\nline two and more words here"}').complete("q", max_tokens=4, json_schema=REVIEW)
    assert json.loads(cut.text)["answer"].startswith("line one\n") and cut.stats.json_closed
