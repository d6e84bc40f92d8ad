"""Text <-> data for each encoding: style-keeping JSON, TRON (both dialects), JSONL, TOML."""

from __future__ import annotations

import sys

from ..errors import ParseError
from ..jsoncodec import loads as json_loads
from ..patterns import lazy
from ..values import JsonValue
from .text import decode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, Protocol

    from .reuse import ReusedParses as ReusedParses

    Format = Literal["json", "tron", "jsonl", "toml", "text"]
    TronFlavor = Literal["vcontext", "standard"]

    class Document(Protocol):
        """A parsed document of any format that can write new data in its own style."""

        format: str
        data: JsonValue

        def source(self) -> str:
            """The original text (BOM included)."""

        def render(self, new: JsonValue) -> str:
            """``new`` written in this document's format and style."""

        def read_back(self, text: str) -> Document | None:
            """What ``text`` parses to, if render returned it and parsed it already."""

    ParseMemo = dict[tuple[str, bytes | str], Document]

else:  # typing costs import time on the merge driver's path; the names exist for imports
    Format = TronFlavor = str
    Document = object

FORMATS: tuple[Format, ...] = ("json", "tron", "jsonl", "toml", "text")
"""``text``: plain-text files merged by lines (VerMAS ``.work/.assignment-*``)."""

ASSIGNMENT_PREFIX = ".assignment-"


def format_from_name(path: str | None) -> Format | None:
    """The format a file name announces (``*.tron``, ``*.jsonl``, ``*.json``, ``*.toml``,
    ``.assignment-*``), if any."""
    if not path:
        return None
    name = path.lower()
    if name.endswith(".tron"):
        return "tron"
    if name.endswith(".jsonl") or name.endswith(".ndjson"):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    if name.endswith(".toml"):
        return "toml"
    if name.replace("\\", "/").rsplit("/", 1)[-1].startswith(ASSIGNMENT_PREFIX):
        return "text"
    return None


_TRON_START = lazy(r"(?:class\s|#|[A-Za-z_]\w*\s*:|\"(?:[^\"\\\n]|\\.)*\"\s*:)")
_COMMENTS = lazy(r"(?:[ \t]*(?:#[^\n]*)?\r?\n)*")
_TOML_KEY = r"(?:[A-Za-z0-9_-]+|\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*')"
_TOML_START = lazy(
    rf"(?m)[ \t]*(?:{_TOML_KEY}(?:[ \t]*\.[ \t]*{_TOML_KEY})*[ \t]*=(?!=)"
    rf"|\[\[?[ \t]*{_TOML_KEY}(?:[ \t]*\.[ \t]*{_TOML_KEY})*[ \t]*\]\]?[ \t]*(?:#[^\n]*)?\r?$)",
)


def format_from_content(text: str) -> Format:
    """Best guess for text without a telling name (git's temporary files)."""
    body = text.lstrip("\ufeff \t\r\n")
    if body[:1] != "{" and _looks_like_toml(body):
        return "toml"
    if _TRON_START().match(body):
        return "tron"
    if body[:1] in "{[":
        lines = [ln for ln in body.splitlines() if ln.strip()]
        if len(lines) > 1 and all(
            ln.lstrip()[:1] == "{" and ln.rstrip()[-1:] == "}" for ln in lines
        ):
            return "jsonl" if _each_line_json(lines) else "json"
        return "json"
    return "tron" if _TRON_CALL().match(body) else "json"


_TRON_CALL = lazy(r"[A-Za-z_]\w*\s*\(")


def _looks_like_toml(body: str) -> bool:
    """A first line (after comments) that is ``key = ...`` or a ``[table]`` header; a header
    that is also JSON (``["a"]``) counts only when the whole text reads as TOML."""
    start = _COMMENTS().match(body)
    found = _TOML_START().match(body, start.end() if start else 0)
    if found is None:
        return False
    if found.group().lstrip()[:1] != "[" or not any(q in found.group() for q in "\"'"):
        return True
    # lazy: tomllib only when the content may be TOML
    import tomllib

    try:
        json_loads(body)
        return False  # both JSON and TOML (``["a"]``): JSON, as before TOML was known
    except ValueError:
        pass
    try:
        tomllib.loads(body)
    except (tomllib.TOMLDecodeError, RecursionError):
        return False
    return True


def _each_line_json(lines: list[str]) -> bool:
    try:
        json_loads(lines[0])
        json_loads(lines[-1])
    except ValueError:
        return False
    return True


def parse(raw: bytes | str, *, path: str | None = None, format: Format | None = None) -> Document:
    """Parse a document; the format comes from ``format``, else the name, else the content.

    Inside ``with ReusedParses():`` equal inputs give the same (shared, read-only)
    Document instead of being parsed again.
    """
    try:
        fmt = format or format_from_name(path)
        if fmt is None:
            text, _ = decode(raw)
            fmt = format_from_content(text)
        memo = _shared_memo()
        if memo is None:
            return _loads(fmt, raw)
        key = (fmt, raw)
        found = memo.get(key)
        if found is None:
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            found = memo[key] = _loads(fmt, raw)
        return found
    except ParseError as exc:
        raise exc.with_path(path) from None


_MEMO_LIMIT = 1024


def _shared_memo() -> ParseMemo | None:
    """The memo of the innermost ``ReusedParses`` block of this thread or task (None
    outside one): none while ``codecs.reuse`` was never imported (a process that never
    enters a block, as the merge driver, loads no ``_contextvars``: issue 32)."""
    reuse = sys.modules.get(_REUSE)
    return None if reuse is None else reuse.shared_memo()


_REUSE = __name__ + ".reuse"


def block_cache(name: str) -> dict[Any, Any] | None:
    """A cache of the current ``ReusedParses`` block, named ``name`` (None outside one):
    what a module remembers for the block's shared documents, released when it ends."""
    reuse = sys.modules.get(_REUSE)
    return None if reuse is None else reuse.block_cache(name)


def reusing_parses() -> bool:
    """Whether ``parse`` remembers documents now (inside ``ReusedParses``): then a full
    parse that may be shared beats a quicker one done again."""
    return _shared_memo() is not None


def __getattr__(name: str) -> object:
    """``ReusedParses``, from ``codecs.reuse`` on first use."""
    if name == "ReusedParses":
        from .reuse import ReusedParses

        return ReusedParses
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _loads(fmt: Format, raw: bytes | str) -> Document:
    if fmt == "json":
        # lazy: a codec loads only for its own format
        from . import json_text

        return json_text.loads(raw)
    if fmt == "jsonl":
        # lazy: a codec loads only for its own format
        from . import jsonl

        return jsonl.loads(raw)
    if fmt == "toml":
        # lazy: a codec loads only for its own format
        from . import toml

        return toml.loads(raw)
    if fmt == "text":
        # lazy: a codec loads only for its own format
        from . import plaintext

        return plaintext.loads(raw)
    # lazy: a codec loads only for its own format
    from . import tron

    return tron.loads(raw)


def dumps(value: JsonValue, format: Format, *, tron_flavor: TronFlavor = "vcontext") -> str:
    """A fresh text for a value (default style of the format)."""
    if format == "json":
        # lazy: a codec loads only for its own format
        from . import json_text

        return json_text.dumps(value)
    if format == "jsonl":
        # lazy: a codec loads only for its own format
        from . import jsonl

        if not isinstance(value, list):
            raise ValueError("JSONL holds a list of records")
        return jsonl.dumps(value)
    if format == "toml":
        # lazy: a codec loads only for its own format
        from . import toml

        return toml.dumps(value)
    if format == "text":
        # lazy: a codec loads only for its own format
        from . import plaintext

        return plaintext.dumps(value)
    # lazy: a codec loads only for its own format
    from . import tron

    return tron.dumps(value, flavor=tron_flavor)
