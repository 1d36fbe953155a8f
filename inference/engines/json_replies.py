"""Replies held to a JSON schema always parse: closed by the shortest valid ending, or an error.

Constrained decoding (a llama.cpp grammar, a server's ``response_format``) holds a reply's
shape but not its length: a reply that runs out of tokens stops wherever it is, inside a string
or before a required property. Every engine passes its schema-held replies through here:

* a reply that parses and follows the schema is returned as it is, except that raw control
  characters a grammar let into its strings are escaped (``ControlEscaper``: strict JSON refuses
  them, and the value is the same);
* a reply cut short by ``max_tokens`` (stop reason ``length``) is completed by the shortest
  text that makes it valid (``closing``: the open string, number or key finished, the
  missing required properties given their shortest values, the open objects and arrays closed),
  and its stats say so (``json_closed``); the ending may take a few tokens past the budget;
* anything else is a ``ReplyFormatError`` naming the cause: text that no ending can make valid, a
  reply that ended otherwise (a stop string, end of text, NaN scores: closing it would invent a
  value the model did not choose).

The schema subset understood is the one llama.cpp's grammar converter and Pagewise's schemas use:
``type`` (or a list of types), ``const``, ``enum``, ``anyOf``/``oneOf``, ``properties``,
``required``, ``additionalProperties``, ``items``, ``minItems``/``maxItems``,
``minLength``/``maxLength``, ``minimum``/``maximum``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from inference.engines.engine import Completion, JsonSchema, Piece
from inference.errors import EngineError

_WS = " \t\n\r"
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_NUMBER_CHARS = set("-+.eE0123456789")


class ReplyFormatError(EngineError):
    """A reply held to a JSON schema is not valid JSON of it, and no ending can make it so."""


class _Mismatch(Exception):
    """The text cannot be the beginning of a value of the schema."""


@dataclass(frozen=True, slots=True)
class _Open:
    """The text ended inside a value; ``suffix`` is the shortest text that completes it."""

    suffix: str


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _alternatives(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The schema as a list of single-type schemas (``anyOf``/``oneOf`` and type lists expanded)."""
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return [alt for option in schema[key] for alt in _alternatives(option)]
    kind = schema.get("type")
    if isinstance(kind, list):
        return [{**schema, "type": single} for single in kind]
    if kind is None and "const" not in schema and "enum" not in schema:
        return [{**schema, "type": single} for single in ("object", "array", "string", "number", "boolean", "null")]
    return [schema]


def shortest_value(schema: Mapping[str, Any]) -> str:
    """The shortest JSON text that follows ``schema``."""
    options = _alternatives(schema)
    if len(options) > 1:
        return min((shortest_value(option) for option in options), key=len)
    schema = options[0]
    if "const" in schema:
        return _dump(schema["const"])
    if "enum" in schema:
        return min((_dump(value) for value in schema["enum"]), key=len)
    kind = schema.get("type")
    if kind == "object":
        return "{" + _close_object(schema, [])
    if kind == "array":
        return "[" + _close_array(schema, 0)
    if kind == "string":
        return '"' + "a" * int(schema.get("minLength", 0)) + '"'
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        if low is not None and low >= 0:
            return str(math.floor(low) + 1 if "exclusiveMinimum" in schema else math.ceil(low))
        if high is not None and high < 0:
            return str(math.ceil(high) - 1 if "exclusiveMaximum" in schema else math.floor(high))
        return "0"
    if kind == "boolean":
        return "false"
    return "null"


def _properties(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    return schema.get("properties") or {}


def _property_schema(schema: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    properties = _properties(schema)
    if key in properties:
        return properties[key]  # type: ignore[no-any-return]
    additional = schema.get("additionalProperties", True)
    if additional is False:
        raise _Mismatch
    return additional if isinstance(additional, Mapping) else {}


def _close_object(schema: Mapping[str, Any], seen: Sequence[str], *, comma: bool | None = None) -> str:
    """The missing required properties with their shortest values, then ``}``."""
    parts: list[str] = []
    first = not seen if comma is None else not comma
    for key in schema.get("required", ()):
        if key not in seen:
            parts.append(("" if first else ",") + _dump(key) + ":" + shortest_value(_property_schema(schema, key)))
            first = False
    return "".join(parts) + "}"


def _close_array(schema: Mapping[str, Any], count: int) -> str:
    item = schema.get("items") if isinstance(schema.get("items"), Mapping) else {}
    assert isinstance(item, Mapping)
    parts = []
    for index in range(count, int(schema.get("minItems", 0))):
        parts.append(("," if index else "") + shortest_value(item))
    return "".join(parts) + "]"


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _value(text: str, i: int, schema: Mapping[str, Any]) -> int | _Open:
    i = _skip(text, i)
    if i == len(text):
        return _Open(shortest_value(schema))
    results: list[int | _Open] = []
    for option in _alternatives(schema):
        try:
            results.append(_single(text, i, option))
        except _Mismatch:
            continue
    if not results:
        raise _Mismatch
    complete = [result for result in results if isinstance(result, int)]
    if complete:
        return complete[0]
    return min((result for result in results if isinstance(result, _Open)), key=lambda r: len(r.suffix))


def _literal(text: str, i: int, choices: Sequence[str]) -> int | _Open:
    rest = text[i:]
    opens: list[_Open] = []
    for choice in choices:
        if rest.startswith(choice):
            return i + len(choice)
        if choice.startswith(rest):
            opens.append(_Open(choice[len(rest) :]))
    if not opens:
        raise _Mismatch
    return min(opens, key=lambda o: len(o.suffix))


def _single(text: str, i: int, schema: Mapping[str, Any]) -> int | _Open:
    if "const" in schema:
        return _literal(text, i, [_dump(schema["const"]), json.dumps(schema["const"])])
    if "enum" in schema:
        return _literal(text, i, [form for value in schema["enum"] for form in (_dump(value), json.dumps(value))])
    kind = schema.get("type")
    if kind == "object":
        return _object(text, i, schema)
    if kind == "array":
        return _array(text, i, schema)
    if kind == "string":
        return _string(text, i, schema)
    if kind in ("integer", "number"):
        return _number(text, i, integer=kind == "integer")
    if kind == "boolean":
        return _literal(text, i, ["true", "false"])
    if kind == "null":
        return _literal(text, i, ["null"])
    raise _Mismatch


def _string_end(text: str, i: int) -> tuple[int | None, str]:
    """Scan the string that opens at ``i``: its end (after the closing quote), or None with the
    text that finishes a cut escape when the text ends inside it."""
    if text[i] != '"':
        raise _Mismatch
    j = i + 1
    while j < len(text):
        char = text[j]
        if char == '"':
            return j + 1, ""
        if char == "\\":
            if j + 1 == len(text):
                return None, "n"
            if text[j + 1] == "u":
                digits = text[j + 2 : j + 6]
                if not re.fullmatch(r"[0-9a-fA-F]*", digits):
                    raise _Mismatch
                if len(digits) < 4 and j + 2 + len(digits) == len(text):
                    return None, "0" * (4 - len(digits))
                j += 6
                continue
            j += 2
            continue
        j += 1
    return None, ""


def _string(text: str, i: int, schema: Mapping[str, Any]) -> int | _Open:
    end, finish = _string_end(text, i)
    if end is not None:
        return end
    written = len(text) - i - 1
    return _Open(finish + "a" * max(0, int(schema.get("minLength", 0)) - written) + '"')


def _number(text: str, i: int, *, integer: bool) -> int | _Open:
    j = i
    while j < len(text) and text[j] in _NUMBER_CHARS:
        j += 1
    run = text[i:j]
    if j == len(text):  # the text ends in the number: it may be cut
        if _NUMBER.fullmatch(run) and not (integer and re.search(r"[.eE]", run)):
            return j
        if _NUMBER.fullmatch(run + "0"):
            return _Open("0")
        raise _Mismatch
    match = _NUMBER.match(text, i)
    if match is None or (integer and re.search(r"[.eE]", match.group())):
        raise _Mismatch
    return match.end()


def _object(text: str, i: int, schema: Mapping[str, Any]) -> int | _Open:
    if text[i] != "{":
        raise _Mismatch
    i += 1
    seen: list[str] = []
    after_comma = False
    while True:
        i = _skip(text, i)
        if i == len(text):
            if after_comma:
                key = _next_key(schema, seen)
                head = _dump(key) + ":" + shortest_value(_property_schema(schema, key))
                return _Open(head + _close_object(schema, [*seen, key], comma=True))
            return _Open(_close_object(schema, seen))
        if text[i] == "}" and not after_comma:
            if any(key not in seen for key in schema.get("required", ())):
                raise _Mismatch
            return i + 1
        end, _finish = _string_end(text, i)
        if end is None:  # cut inside a key: finish it as the shortest property it can still be
            return _Open(_finish_key(schema, seen, text[i + 1 :]))
        key = json.loads(text[i:end])
        if key in seen:
            raise _Mismatch
        value_schema = _property_schema(schema, key)
        i = _skip(text, end)
        if i == len(text):
            return _Open(":" + shortest_value(value_schema) + _close_object(schema, [*seen, key]))
        if text[i] != ":":
            raise _Mismatch
        result = _value(text, i + 1, value_schema)
        seen.append(key)
        if isinstance(result, _Open):
            return _Open(result.suffix + _close_object(schema, seen))
        i = _skip(text, result)
        if i == len(text):
            return _Open(_close_object(schema, seen))
        if text[i] == ",":
            after_comma, i = True, i + 1
            continue
        after_comma = False  # "}" is checked at the top of the loop


def _next_key(schema: Mapping[str, Any], seen: Sequence[str]) -> str:
    """The property to add after a trailing comma: a missing required one, else the shortest."""
    for key in schema.get("required", ()):
        if key not in seen:
            return str(key)
    options = [key for key in _properties(schema) if key not in seen]
    if options:
        return min(options, key=lambda key: len(key) + len(shortest_value(_properties(schema)[key])))
    if schema.get("additionalProperties", True) is False:
        raise _Mismatch
    return next(name for name in ("x", "y", "z", "xx") if name not in seen)


def _finish_key(schema: Mapping[str, Any], seen: Sequence[str], partial: str) -> str:
    endings: list[str] = []
    for key in _properties(schema):
        quoted = _dump(key)[1:]  # the key's JSON text after its opening quote
        if key not in seen and quoted.startswith(partial):
            value = shortest_value(_properties(schema)[key])
            endings.append(quoted[len(partial) :] + ":" + value + _close_object(schema, [*seen, key]))
    if not endings and schema.get("additionalProperties", True) is not False and "\\" not in partial:
        key = partial or "x"
        endings.append(('"' if partial else 'x"') + ":null" + _close_object(schema, [*seen, key]))
    if not endings:
        raise _Mismatch
    return min(endings, key=len)


def _array(text: str, i: int, schema: Mapping[str, Any]) -> int | _Open:
    if text[i] != "[":
        raise _Mismatch
    raw_item = schema.get("items")
    item: Mapping[str, Any] = raw_item if isinstance(raw_item, Mapping) else {}
    i += 1
    count = 0
    after_comma = False
    while True:
        i = _skip(text, i)
        if i == len(text):
            if after_comma:
                return _Open(shortest_value(item) + _close_array(schema, count + 1))
            return _Open(_close_array(schema, count))
        if text[i] == "]" and not after_comma:
            return i + 1
        result = _value(text, i, item)
        count += 1
        if isinstance(result, _Open):
            return _Open(result.suffix + _close_array(schema, count))
        i = _skip(text, result)
        if i == len(text):
            return _Open(_close_array(schema, count))
        if text[i] == ",":
            after_comma, i = True, i + 1
            continue
        if text[i] != "]":
            raise _Mismatch
        after_comma = False


def closing(text: str, schema: JsonSchema) -> str | None:
    """The shortest text that, appended to ``text``, makes a value of ``schema`` ("" when it
    is one already); None when ``text`` cannot be the beginning of one."""
    try:
        result = _value(text, 0, schema)
    except _Mismatch:
        return None
    if isinstance(result, _Open):
        return result.suffix
    return "" if _skip(text, result) == len(text) else None


def schema_errors(value: Any, schema: Mapping[str, Any], where: str = "reply") -> list[str]:
    """How ``value`` breaks ``schema`` (the subset above), in words; empty when it follows it."""
    for key in ("anyOf", "oneOf"):
        if key in schema:
            if any(not schema_errors(value, option, where) for option in schema[key]):
                return []
            return [f"{where} matches none of its {key} choices"]
    if "const" in schema and value != schema["const"]:
        return [f"{where} is not {_dump(schema['const'])}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where} is not one of {_dump(schema['enum'])}"]
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
            if key in _properties(schema):
                errors += schema_errors(item, _properties(schema)[key], f"{where}.{key}")
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
    shown = text if len(text) <= 80 else text[:77] + "..."
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
