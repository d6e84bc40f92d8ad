"""Checking a tool's arguments against its schema: one readable line per refusal."""

from __future__ import annotations

from functools import cache
from typing import Any

from ...errors import Refused
from .specs import BY_NAME, ToolSpec

_TYPES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "object": "an object",
    "array": "an array",
}


def checked(spec: ToolSpec, args: Any) -> dict[str, Any]:
    """The arguments when they fit the tool's schema, else a Refused saying what is wrong."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise Refused("bad-argument", f"{spec.name} takes an object of named arguments")
    unknown = [key for key in args if key not in spec.properties]
    if unknown:
        known = ", ".join(spec.properties) or "no arguments"
        raise Refused(
            "bad-argument", f"unknown argument {unknown[0]!r} for {spec.name}; it takes: {known}"
        )
    errors = sorted(_validator(spec.name).iter_errors(args), key=lambda e: list(e.absolute_path))
    if errors:
        raise Refused("bad-argument", f"{spec.name}: {_said(errors[0])}")
    blank = _blank_title(args)
    if blank is not None:
        raise Refused("bad-argument", f"{spec.name}: {blank} is blank; give a title with some text")
    return args


def _blank_title(value: Any, where: str = "") -> str | None:
    """Where a ``title`` (at any depth: items, sub-items) holds only whitespace, if anywhere
    (the schema's minLength lets "   " through; a blank title is no title)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            at = f"{where}.{key}" if where else str(key)
            if key == "title" and isinstance(inner, str) and not inner.strip():
                return at
            found = _blank_title(inner, at)
            if found is not None:
                return found
    elif isinstance(value, list):
        for n, inner in enumerate(value):
            found = _blank_title(inner, f"{where}[{n}]")
            if found is not None:
                return found
    return None


@cache
def _validator(name: str) -> Any:
    # lazy: jsonschema only to explain an invalid document
    from jsonschema import Draft202012Validator

    return Draft202012Validator(BY_NAME[name].schema())


def _said(err: Any) -> str:
    where = _name(err.absolute_path)
    kind, value, expected = err.validator, err.instance, err.validator_value
    if kind == "required":
        missing = next((f for f in expected if f not in (value or {})), "?")
        inner = f" of {where}" if err.absolute_path else ""
        return f"missing argument {missing!r}{inner}"
    if kind == "enum":
        return f"{where} {value!r} is not allowed; allowed: {', '.join(map(str, expected))}"
    if kind == "anyOf" and all(isinstance(o, dict) and set(o) == {"type"} for o in expected):
        kind, expected = "type", [o["type"] for o in expected]  # one of some types
    if kind == "type":
        kinds = expected if isinstance(expected, list) else [expected]
        wanted = " or ".join(str(_TYPES.get(k, k)) for k in kinds)
        return f"{where} must be {wanted}, not {_json_type(value)}"
    if kind == "minLength":
        return f"{where} must not be empty"
    if kind == "minProperties":
        return f"{where} needs at least {expected} entr{'y' if expected == 1 else 'ies'}"
    if kind in ("minimum", "maximum"):
        sign = ">=" if kind == "minimum" else "<="
        return f"{where} must be {sign} {expected}, not {value}"
    return f"{where}: {' '.join(str(err.message).split())}"


def _name(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the arguments"


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if value is None:
        return "null"
    names: dict[type, str] = {str: "a string", list: "an array", dict: "an object"}
    return names.get(type(value), "a value")
