"""Hostile values for every argument that could reach a git command line, and a walk of every
tool an MCP server lists that gives each of its string arguments each of those values.

Every value tries to make something run or write a file named ``MARKER…``: as a git
option (``--upload-pack=``, ``-c core.sshCommand=``, ``--output=``), as a shell command
(``$(…)``, backquotes, ``;``), as a remote helper (``ext::``) or an SSH host read as an
option. After the walk no ``MARKER`` file may exist anywhere under the test's folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

MARKER = "MARKER"


KINDS = 8
"""How many of ``hostile_values`` are one of each kind."""


def hostile_values(folder: Path) -> list[str]:
    """Values that would each create a ``MARKER…`` file if anything ran them (absolute
    paths under ``folder``, and relative names, created wherever a command would run)."""
    m = folder / MARKER
    return [  # one of each kind first (the command-line tests take these)
        f"--upload-pack=touch {m}-upload;",
        f"-c core.sshCommand=touch {m}-ssh",
        f"--output={MARKER}-output",
        f"$(touch {m}-dollar)",
        f";touch {m}-semicolon",
        f"ext::sh -c touch% {m}-ext",
        f"ssh://-oProxyCommand=touch%20{m}-proxy/x",
        "-",
        # more of the same kinds
        f"--receive-pack=touch {m}-receive;",
        f"--config=core.sshCommand=touch {m}-config",
        f"--output={m}-output",
        f"--exec=touch {m}-exec",
        f"`touch {m}-backquote`",
        f"x; touch {m}-after",
        f"-oProxyCommand=touch {m}-proxy2:x",
        "--",
        "",
    ]


def markers(folder: Path) -> list[Path]:
    """Every ``MARKER…`` file under ``folder``."""
    return sorted(p for p in folder.rglob(f"{MARKER}*"))


def _ordinary(schema: dict[str, Any]) -> Any:
    """A plain value of a schema's type (an enum's first value)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "string":
        return "t1"
    if kind == "integer" or kind == "number":
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object":
        return {
            key: _ordinary(sub)
            for key, sub in schema.get("properties", {}).items()
            if key in schema.get("required", [])
        }
    return "t1"  # any JSON value (vcontext_resolve's value)


def _slots(schema: dict[str, Any], at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Where a string can go in arguments of ``schema``: each string property, array
    item, map value and untyped value, as a path of keys (0 for an array's item, ``"*"``
    for a map's value)."""
    kind = schema.get("type")
    if kind == "string" or kind is None:
        yield at
    elif kind == "array":
        yield from _slots(schema.get("items", {}), (*at, 0))
    elif kind == "object":
        for key, sub in schema.get("properties", {}).items():
            yield from _slots(sub, (*at, key))
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            yield from _slots(extra, (*at, "*"))


def _put(args: Any, schema: dict[str, Any], path: tuple[Any, ...], value: str) -> Any:
    if not path:
        return value
    key, rest = path[0], path[1:]
    if key == 0:
        return [_put(None, schema.get("items", {}), rest, value)]
    if key == "*":
        base = dict(args or {})
        base["Overview"] = _put(None, schema["additionalProperties"], rest, value)
        return base
    base = dict(args) if isinstance(args, dict) else _ordinary(schema)
    sub = schema.get("properties", {}).get(key, {})
    base[key] = _put(base.get(key), sub, rest, value)
    return base


def hostile_calls(schema: dict[str, Any], values: list[str]) -> Iterator[dict[str, Any]]:
    """Arguments for one tool: each string slot given each value (the required arguments
    plain), then every slot at once given each value."""
    base = _ordinary({**schema, "type": "object"})
    slots = list(_slots(schema))
    for value in values:
        every = dict(base)
        for path in slots:
            yield _put(base, schema, path, value)
            every = _put(every, schema, path, value)
        yield every


def result_text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def attack(client: Any, folder: Path, only: set[str] | None = None) -> int:
    """Call every tool the client lists (or ``only`` those) with every hostile value in every
    string slot; each answer is a normal result or a one-line refusal (``isError``), never
    an internal error. Returns the number of calls."""
    values = hostile_values(folder)
    calls = 0
    for tool in (await client.list_tools()).tools:
        if only is not None and tool.name not in only:
            continue
        for args in hostile_calls(tool.input_schema, values):
            result = await client.call_tool(tool.name, args)
            said = result_text(result)
            assert "internal error" not in said, (tool.name, args, said)
            assert "Traceback" not in said, (tool.name, args, said)
            if result.is_error:
                assert said.strip(), (tool.name, args)
                assert "\n" not in said, (tool.name, args, said)
            calls += 1
            found = markers(folder)
            assert not found, (tool.name, args, found)
    assert (await client.list_tools()).tools  # still serving
    return calls
