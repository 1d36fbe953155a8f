"""The shortest text that completes a cut JSON reply into a value of its schema.

``closing(text, schema)`` parses ``text`` as the beginning of a value of ``schema`` and returns
what to append: the open string, number, literal or key finished, the missing required
properties given their shortest values (``shortest_value``), the open arrays and objects
closed; "" for a whole value, None for text that cannot begin one. ``inference.engines.json_replies``
uses it on replies that ran out of tokens.

The schema subset understood is the one llama.cpp's grammar converter and Pagewise's schemas use:
``type`` (or a list of types), ``const``, ``enum``, ``anyOf``/``oneOf``, ``properties``,
``required``, ``additionalProperties``, ``items``, ``minItems``/``maxItems``,
``minLength``/``maxLength``, ``minimum``/``maximum``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inference.engines.engine import JsonSchema

_WS = " \t\n\r"
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_NUMBER_CHARS = set("-+.eE0123456789")


class _Mismatch(Exception):
    """The text cannot be the beginning of a value of the schema."""


@dataclass(frozen=True, slots=True)
class _Open:
    """The text ended inside a value; ``suffix`` is the shortest text that completes it."""

    suffix: str


def compact_json(value: Any) -> str:
    """JSON text without spaces (as the shortest ending writes values)."""
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
        return compact_json(schema["const"])
    if "enum" in schema:
        return min((compact_json(value) for value in schema["enum"]), key=len)
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


def properties_of(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """An object schema's properties ({} when it names none)."""
    return schema.get("properties") or {}


def _property_schema(schema: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    properties = properties_of(schema)
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
            parts.append(
                ("" if first else ",") + compact_json(key) + ":" + shortest_value(_property_schema(schema, key))
            )
            first = False
    return "".join(parts) + "}"


def _items(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """An array schema's item schema ({}: any value)."""
    item = schema.get("items")
    return item if isinstance(item, Mapping) else {}


def _close_array(schema: Mapping[str, Any], count: int) -> str:
    item = _items(schema)
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
        return _literal(text, i, [compact_json(schema["const"]), json.dumps(schema["const"])])
    if "enum" in schema:
        return _literal(
            text, i, [form for value in schema["enum"] for form in (compact_json(value), json.dumps(value))]
        )
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
                head = compact_json(key) + ":" + shortest_value(_property_schema(schema, key))
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
    options = [key for key in properties_of(schema) if key not in seen]
    if options:
        return min(options, key=lambda key: len(key) + len(shortest_value(properties_of(schema)[key])))
    if schema.get("additionalProperties", True) is False:
        raise _Mismatch
    return next(name for name in ("x", "y", "z", "xx") if name not in seen)


def _finish_key(schema: Mapping[str, Any], seen: Sequence[str], partial: str) -> str:
    endings: list[str] = []
    for key in properties_of(schema):
        quoted = compact_json(key)[1:]  # the key's JSON text after its opening quote
        if key not in seen and quoted.startswith(partial):
            value = shortest_value(properties_of(schema)[key])
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
    item = _items(schema)
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
