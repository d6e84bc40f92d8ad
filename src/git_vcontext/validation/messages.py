"""Schema errors in words that say what to do (jsonschema's own messages say only what is wrong)."""

from __future__ import annotations

from ..jsoncodec import dumps as plain_dumps
from ..spelling import dumps as json_dumps
from ..values import type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "object": "an object",
    "array": "an array",
    "boolean": "true or false",
    "null": "null",
}


def schema_message(err: Any) -> str:
    """One sentence for one jsonschema ``ValidationError``."""
    kind, expected, value = err.validator, err.validator_value, err.instance
    writer: Any = _WRITERS.get(kind)
    if writer is None:
        return f"{err.message}; fix the value"
    text: str = writer(expected, value)
    return text


def _required(expected: list[str], value: Any) -> str:
    missing = [k for k in expected if not isinstance(value, dict) or k not in value]
    names = ", ".join(f"'{k}'" for k in missing)
    return f"missing required field {names}; add it"


def _enum(expected: list[Any], value: Any) -> str:
    allowed = ", ".join(plain_dumps(v) for v in expected)
    return f"{show_value(value)} is not allowed here; use one of {allowed}"


def _type(expected: str | list[str], value: Any) -> str:
    names = [expected] if isinstance(expected, str) else expected
    wanted = " or ".join(_TYPE_NAMES.get(n, n) for n in names)
    kind = type_name(value)
    shown = "" if kind in ("null", "boolean") else f" {show_value(value)}"
    return f"must be {wanted}, not {kind}{shown}"


def _minimum(expected: float, value: Any) -> str:
    return (
        f"{show_value(value)} is below the minimum {expected}; use a value of at least {expected}"
    )


def _maximum(expected: float, value: Any) -> str:
    return f"{show_value(value)} is above the maximum {expected}; use a value of at most {expected}"


def _min_length(expected: int, value: Any) -> str:
    if expected == 1:
        return "must not be empty; give it a value"
    return f"is too short; write at least {expected} characters"


def _max_length(expected: int, value: Any) -> str:
    return f"is {len(value)} characters long; shorten it to at most {expected}"


def _pattern(expected: str, value: Any) -> str:
    return f"{show_value(value)} does not have the expected form (pattern {expected})"


def _any_of(expected: list[Any], value: Any) -> str:
    names = [k for branch in expected for k in branch.get("required", ())]
    if names and all(set(b) == {"required"} for b in expected):
        return "needs " + " or ".join(f"'{k}'" for k in names) + "; add one of them"
    return "matches none of the allowed shapes; compare it with the schema"


def _not(expected: Any, value: Any) -> str:
    return "has a shape that is not allowed here"


_WRITERS = {
    "required": _required,
    "enum": _enum,
    "type": _type,
    "minimum": _minimum,
    "maximum": _maximum,
    "minLength": _min_length,
    "maxLength": _max_length,
    "pattern": _pattern,
    "anyOf": _any_of,
    "oneOf": _any_of,
    "not": _not,
}


def show_value(value: Any) -> str:
    text = json_dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
