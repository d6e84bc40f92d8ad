"""JSON read and written by CPython's ``_json`` C module directly, without the ``json`` package.

``import json`` loads ``re`` (and with it ``enum``, ``functools``, ``collections``): about
8 ms of every process that git starts once per file (the merge driver, the external diff).
The C module the package is built on needs none of them: ``Scanner`` is
``json.JSONDecoder``'s scanner with the same hooks and the same errors, ``dumps`` is
``json.dumps`` (the C encoder on one line, the package's own algorithm with an indent),
byte for byte (tests/unit/test_jsoncodec.py holds both against the ``json`` package).

Errors are ``json.JSONDecodeError`` as the package raises them. The C module takes that
class from ``json.decoder`` in ``sys.modules`` without importing it (CPython 3.11 then
fails with a SystemError): on such a failure the package is imported and the text read
again, so an invalid document pays the import and a valid one never does;
``decode_error`` tells one apart without importing the package.
"""

from __future__ import annotations

import sys
from _json import encode_basestring as _encode_str
from _json import encode_basestring_ascii as _encode_ascii
from _json import make_encoder as _c_make_encoder
from _json import make_scanner as _make_scanner
from _json import scanstring as _c_scanstring

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = [
    "Scanner",
    "decode_error",
    "dumps",
    "encode_basestring",
    "scanstring",
    "skip_whitespace",
    "string",
]

_WHITESPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


def skip_whitespace(text: str, pos: int) -> int:
    """The offset of the first character from ``pos`` that is not JSON whitespace (or the
    text's length): what ``json.decoder.WHITESPACE.match(text, pos).end()`` answers."""
    try:
        if text[pos] not in _WHITESPACE:
            return pos
        if text[pos + 1] not in _WHITESPACE:
            return pos + 1
    except IndexError:
        return len(text)
    # a longer run (a line break and an indent, mostly): stripped at C speed, a window
    # at a time, rather than looked at a character at a time
    while True:
        window = text[pos : pos + 64]
        rest = window.lstrip(_WHITESPACE)
        if rest or not window:
            return pos + len(window) - len(rest)
        pos += len(window)


class Scanner:
    """``json.JSONDecoder``'s reading of one value, on the C scanner: the same hooks
    (``parse_float``, ``parse_int``, ``parse_constant``, ``object_pairs_hook``), the same
    values and the same errors (``json.JSONDecodeError``, ``RecursionError``, and whatever
    a hook raises)."""

    # the attributes the C scanner reads once, when it is made
    strict = True
    object_hook: Callable[[dict[str, Any]], Any] | None = None

    def __init__(
        self,
        *,
        object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
        parse_float: Callable[[str], Any] | None = None,
        parse_int: Callable[[str], Any] | None = None,
        parse_constant: Callable[[str], Any] | None = None,
    ) -> None:
        self.object_pairs_hook = object_pairs_hook
        self.parse_float = parse_float or float
        self.parse_int = parse_int or int
        self.parse_constant = parse_constant or _CONSTANTS.__getitem__
        self.memo: dict[str, str] = {}
        self.scan_once = _make_scanner(self)  # type: ignore[arg-type]

    def raw_decode(self, text: str, idx: int = 0) -> tuple[Any, int]:
        """The value that starts at ``idx`` (no whitespace before it) and where it ends,
        as ``json.JSONDecoder.raw_decode``."""
        try:
            return self.scan_once(text, idx)
        except StopIteration as err:
            raise _decode_error("Expecting value", text, err.value) from None
        except SystemError:
            if not _load_errors():
                raise
        return self.raw_decode(text, idx)  # again, for json's error

    def loads(self, text: str) -> Any:
        """A whole text (whitespace around the value allowed), as ``json.loads``."""
        end = skip_whitespace(text, 0)
        value, end = self.raw_decode(text, end)
        end = skip_whitespace(text, end)
        if end != len(text):
            raise _decode_error("Extra data", text, end)
        return value


def scanstring(text: str, end: int, strict: bool = True) -> tuple[str, int]:
    """The JSON string whose contents start at ``end`` (past its opening quote) and where it
    ends, as ``json.decoder.scanstring`` (``json.JSONDecodeError`` when it is not one)."""
    try:
        return _c_scanstring(text, end, strict)
    except SystemError:
        if not _load_errors():
            raise
    return _c_scanstring(text, end, strict)


def _load_errors() -> bool:
    """Load ``json.decoder``, where the C module finds the error it raises (the package
    loads it: a JSON error is rare); False when it was loaded already."""
    if "json.decoder" in sys.modules:
        return False
    # lazy: only an invalid document loads the json package
    import json.decoder  # noqa: F401

    return True


def _decode_error(message: str, text: str, pos: int) -> ValueError:
    # lazy: only an invalid document loads the json package (the C scanner does too)
    from json import JSONDecodeError

    return JSONDecodeError(message, text, pos)


def decode_error(exc: BaseException) -> tuple[str, int] | None:
    """(message, offset) of a ``json.JSONDecodeError``; None for any other exception."""
    decoder = sys.modules.get("json.decoder")  # none was raised if it was never loaded
    if decoder is not None and isinstance(exc, decoder.JSONDecodeError):
        return exc.msg, exc.pos
    return None


PLAIN = Scanner()
"""Plain ``json.loads``' reading (duplicate keys: the last wins; NaN allowed)."""


def loads(text: str) -> Any:
    """``json.loads`` of a str."""
    return PLAIN.loads(text)


def string(text: str, ensure_ascii: bool = True) -> str:
    """A str as a JSON string literal (``json.dumps`` of it)."""
    return _encode_ascii(text) if ensure_ascii else _encode_str(text)


def _float_text(value: float) -> str:
    """``json.dumps``' spelling of a float (NaN and the infinities as JavaScript's)."""
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


_INFINITY = float("inf")


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(
    value: Any,
    *,
    indent: str | None = None,
    separators: tuple[str, str] | None = None,
    ensure_ascii: bool = True,
    sort_keys: bool = False,
    floatstr: Callable[[float], str] | None = None,
    intstr: Callable[[int], str] | None = None,
) -> str:
    """``json.dumps(value, indent=…, separators=…, ensure_ascii=…, sort_keys=…)``, byte for
    byte. ``floatstr``/``intstr``: how floats and ints are written (the package's C encoder
    cannot be told; with either, the Python algorithm writes every value)."""
    if separators is None:
        separators = (", ", ": ") if indent is None else (",", ": ")
    item_sep, key_sep = separators
    encode_str = _encode_ascii if ensure_ascii else _encode_str
    if isinstance(value, str):
        return encode_str(value)
    if indent is None and floatstr is None and intstr is None:
        encoder = _c_make_encoder(
            {}, _not_json, encode_str, None, key_sep, item_sep, sort_keys, False, True
        )
        return "".join(encoder(value, 0))
    parts: list[str] = []
    _Writer(
        parts,
        encode_str,
        indent,
        key_sep,
        item_sep,
        sort_keys,
        floatstr or _float_text,
        intstr or int.__repr__,
    ).value(value, 0)
    return "".join(parts)


class _Writer:
    """``json.encoder._make_iterencode``'s output, written into a list of parts."""

    __slots__ = ("encode_str", "floatstr", "indent", "intstr", "item_sep", "key_sep", "out",
                 "sort_keys")  # fmt: skip

    def __init__(
        self,
        out: list[str],
        encode_str: Callable[[str], str],
        indent: str | None,
        key_sep: str,
        item_sep: str,
        sort_keys: bool,
        floatstr: Callable[[float], str],
        intstr: Callable[[int], str],
    ) -> None:
        self.out = out
        self.encode_str = encode_str
        self.indent = indent
        self.key_sep = key_sep
        self.item_sep = item_sep
        self.sort_keys = sort_keys
        self.floatstr = floatstr
        self.intstr = intstr

    def scalar(self, value: Any) -> str | None:
        if isinstance(value, str):
            return self.encode_str(value)
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if isinstance(value, int):
            return self.intstr(value)
        if isinstance(value, float):
            return self.floatstr(value)
        return None

    def key(self, key: Any) -> str:
        """A key that is not a str, as json.dumps writes it."""
        if isinstance(key, float):
            return self.floatstr(key)
        if key is True:
            return "true"
        if key is False:
            return "false"
        if key is None:
            return "null"
        if isinstance(key, int):
            return self.intstr(key)
        raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")

    def value(self, value: Any, level: int) -> None:
        text = self.scalar(value)
        if text is not None:
            self.out.append(text)
        elif isinstance(value, (list, tuple)):
            self.array(value, level)
        elif isinstance(value, dict):
            self.object(value, level)
        else:
            self.value(_not_json(value), level)

    def array(self, value: list[Any] | tuple[Any, ...], level: int) -> None:
        out = self.out
        if not value:
            out.append("[]")
            return
        if self.indent is not None:
            level += 1
            newline_indent = "\n" + self.indent * level
            separator = self.item_sep + newline_indent
            out.append("[" + newline_indent)
        else:
            newline_indent = None
            separator = self.item_sep
            out.append("[")
        first = True
        for item in value:
            if first:
                first = False
            else:
                out.append(separator)
            self.value(item, level)
        if newline_indent is not None:
            out.append("\n" + self.indent * (level - 1))  # type: ignore[operator]
        out.append("]")

    def object(self, value: dict[Any, Any], level: int) -> None:
        out = self.out
        if not value:
            out.append("{}")
            return
        if self.indent is not None:
            level += 1
            newline_indent = "\n" + self.indent * level
            separator = self.item_sep + newline_indent
            out.append("{" + newline_indent)
        else:
            newline_indent = None
            separator = self.item_sep
            out.append("{")
        items = sorted(value.items()) if self.sort_keys else value.items()
        first = True
        for key, item in items:
            if not isinstance(key, str):
                key = self.key(key)
            if first:
                first = False
            else:
                out.append(separator)
            out.append(self.encode_str(key))
            out.append(self.key_sep)
            self.value(item, level)
        if newline_indent is not None:
            out.append("\n" + self.indent * (level - 1))  # type: ignore[operator]
        out.append("}")


encode_basestring = _encode_str
"""A str as a JSON string literal, non-ASCII written as it is (the C function)."""
