"""Replies held to a JSON schema always parse: closed by the shortest valid ending, or an error.

Constrained decoding (a llama.cpp grammar, a server's ``response_format``) holds a reply's
shape but not its length: a reply that runs out of tokens stops wherever it is, inside a string
or before a required property. Every engine passes its schema-held replies through here:

* a reply that parses and follows the schema is returned as it is, except that raw control
  characters a grammar let into its strings are escaped (``ControlEscaper``: strict JSON refuses
  them, and the value is the same);
* a reply cut short by ``max_tokens`` (stop reason ``length``) is completed by the shortest
  text that makes it valid (``json_closing.closing``: the open string, number or key finished, the
  missing required properties given their shortest values, the open objects and arrays closed),
  and its stats say so (``json_closed``); the ending may take a few tokens past the budget;
* anything else is a ``ReplyFormatError`` naming the cause: text that no ending can make valid, a
  reply that ended otherwise (a stop string, end of text, NaN scores: closing it would invent a
  value the model did not choose).

``schema_errors`` checks a value against the schema subset ``inference.engines.json_closing``
understands, the one llama.cpp's grammar converter and Pagewise's schemas use.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from inference.engines.engine import Completion, JsonSchema, Piece
from inference.engines.json_closing import closing, compact_json, properties_of
from inference.errors import EngineError, shorten_message


class ReplyFormatError(EngineError):
    """A reply held to a JSON schema is not valid JSON of it, and no ending can make it so."""


def schema_errors(value: Any, schema: Mapping[str, Any], where: str = "reply") -> list[str]:
    """How ``value`` breaks ``schema`` (the subset above), in words; empty when it follows it."""
    for key in ("anyOf", "oneOf"):
        if key in schema:
            if any(not schema_errors(value, option, where) for option in schema[key]):
                return []
            return [f"{where} matches none of its {key} choices"]
    if "const" in schema and value != schema["const"]:
        return [f"{where} is not {compact_json(schema['const'])}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where} is not one of {compact_json(schema['enum'])}"]
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    if kinds and not any(_is_type(value, single) for single in kinds):
        return [f"{where} is not of type {'/'.join(kinds)}"]
    errors: list[str] = []
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                errors.append(f"{where} lacks {key!r}")
        for key, item in value.items():
            if key in properties_of(schema):
                errors += schema_errors(item, properties_of(schema)[key], f"{where}.{key}")
            elif schema.get("additionalProperties", True) is False:
                errors.append(f"{where} has {key!r}, which the schema does not allow")
    elif isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", math.inf):
            errors.append(f"{where} has {len(value)} items")
        if isinstance(schema.get("items"), Mapping):
            for index, item in enumerate(value):
                errors += schema_errors(item, schema["items"], f"{where}[{index}]")
    elif isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", math.inf):
            errors.append(f"{where} has {len(value)} characters")
    elif (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and not schema.get("minimum", -math.inf) <= value <= schema.get("maximum", math.inf)
    ):
        errors.append(f"{where} is out of range")
    return errors


def _is_type(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    types: dict[str, type | tuple[type, ...]] = {
        "object": dict,
        "array": list,
        "string": str,
        "boolean": bool,
        "null": type(None),
    }
    return kind not in types or isinstance(value, types[kind])


def _errors_of(text: str, schema: JsonSchema) -> list[str]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        return [f"not JSON ({error.msg} at character {error.pos})"]
    return schema_errors(value, schema)


def finish(text: str, schema: JsonSchema, stop_reason: str, max_tokens: int) -> tuple[str, str]:
    """The reply made valid: ``(text, ending)`` where ``ending`` is what was appended ("" when
    it was valid already). Raises ``ReplyFormatError`` when no ending makes it valid."""
    errors = _errors_of(text, schema)
    if not errors:
        return text, ""
    if stop_reason == "invalid":  # never closed: the scores, not the budget, ended it
        raise ReplyFormatError(
            "The model's reply is unusable: its output scores were not numbers (NaN), so it stopped "
            "inside the JSON; the model file may be damaged or not supported: check it with `pagewise doctor`."
        )
    ending = closing(text, schema) if stop_reason == "length" else None
    if ending is not None and not _errors_of(text + ending, schema):
        return text + ending, ending
    shown = shorten_message(text, 80)
    if not text.strip():
        cause = f"it is empty (it ended, {stop_reason!r}, before any JSON)"
    elif stop_reason == "length":
        cause = f"it was cut at its {max_tokens}-token limit and cannot be closed validly"
    else:
        cause = "it does not follow the JSON schema asked for"
    raise ReplyFormatError(f"The model's reply is unusable: {cause} ({'; '.join(errors[:3])}): {shown!r}")


class ControlEscaper:
    """Escapes the raw control characters (newline, tab, ...) that a grammar let into a JSON
    string (strict JSON, and so ``json.loads``, refuses them; the value is the same once escaped),
    piece by piece: it remembers whether the text so far ends inside a string."""

    __slots__ = ("escaped", "in_string")

    def __init__(self) -> None:
        self.in_string = False
        self.escaped = False

    def feed(self, text: str) -> str:
        out: list[str] = []
        for char in text:
            if self.in_string:
                if self.escaped:
                    self.escaped = False
                elif char == "\\":
                    self.escaped = True
                elif char == '"':
                    self.in_string = False
                elif char < " ":
                    out.append(json.dumps(char)[1:-1])
                    continue
            elif char == '"':
                self.in_string = True
            out.append(char)
        return "".join(out)


def hold_completion(completion: Completion, schema: JsonSchema | None, max_tokens: int) -> Completion:
    """A batch's reply made valid, or carrying its ``ReplyFormatError`` (a batch goes on)."""
    if schema is None or completion.error is not None:
        return completion
    escaped = ControlEscaper().feed(completion.text)
    try:
        text, ending = finish(escaped, schema, completion.stats.stop_reason, max_tokens)
    except ReplyFormatError as error:
        return Completion(completion.text, completion.stats, error=error)
    if not ending:
        return completion if escaped == completion.text else Completion(text, completion.stats)
    return Completion(text, replace(completion.stats, json_closed=True))


def hold_stream(pieces: Iterator[Piece], schema: JsonSchema | None, max_tokens: int) -> Iterator[Piece]:
    """A stream of pieces whose last one is preceded by the ending the reply needs; raises
    ``ReplyFormatError`` at the end of a reply no ending makes valid."""
    if schema is None:
        yield from pieces
        return
    texts: list[str] = []
    escaper = ControlEscaper()
    try:
        for piece in pieces:
            text = escaper.feed(piece.text)
            texts.append(text)
            if piece.stats is None:
                yield piece if text == piece.text else Piece(text, None, piece.cached_tokens)
                continue
            _text, ending = finish("".join(texts), schema, piece.stats.stop_reason, max_tokens)
            stats = replace(piece.stats, json_closed=True) if ending else piece.stats
            yield Piece(text + ending, stats, piece.cached_tokens)
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            close()
