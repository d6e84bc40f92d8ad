"""New TOML values for the minimal-edit writer: items, tables, and strings in a given style.

A string keeps the kind of the one it replaces when that kind can hold it (basic or
literal, one line or several, a newline after the opening quotes); a new multi-line
string opens with its triple quotes on a line of their own. Characters TOML does not
allow raw are escaped, and a multi-line basic string never holds three quotes in a row.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import tomlkit
from tomlkit.items import AoT, Item, String, StringType, Table

from .scalars import NAN, TomlDateTime

if TYPE_CHECKING:
    from typing import Any

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")  # not allowed raw in any string but \t \n


def fresh(value: dict[str, Any]) -> str:
    """A new TOML text for ``value``."""
    doc = tomlkit.document()
    for key, child in value.items():
        doc.add(key, new_item(child))
    return doc.as_string()


def new_table(value: dict[str, Any]) -> Table:
    table = tomlkit.table()
    for key, child in value.items():
        table.add(key, new_item(child))
    if not value:  # tomlkit ends an empty table's header line only when it has a body:
        table.add(tomlkit.nl())  # without one, whatever follows lands on that line
    return table


def new_item(value: Any, *, like: Any = None, inline: bool = False) -> Item:
    """A tomlkit item for ``value``; strings in the style of ``like`` (the value replaced)."""
    if value is None:
        raise ValueError("TOML has no null")
    if isinstance(value, TomlDateTime):
        return tomlkit.item(value.value)
    if isinstance(value, str):
        return tomlkit.value(_string(value, like if isinstance(like, String) else None))
    if isinstance(value, float) and value is NAN:
        return tomlkit.value("nan")
    if isinstance(value, (bool, int, float)):
        return tomlkit.item(value)
    if isinstance(value, list):
        return _new_array(value, inline=inline)
    if isinstance(value, dict):
        return _new_inline_table(value) if inline else new_table(value)
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _new_array(value: list[Any], *, inline: bool) -> Item:
    """An array of tables when every element is a table (and the array is not inline), else an
    inline array."""
    if value and not inline and all(isinstance(x, dict) for x in value):
        return AoT([new_table(x) for x in value])
    array = tomlkit.array()
    for x in value:
        array.append(new_item(x, inline=True))
    return array


def _new_inline_table(value: dict[str, Any]) -> Item:
    table = tomlkit.inline_table()
    for key, child in value.items():
        table.append(key, new_item(child, inline=True))
    return table


def _string(value: str, like: String | None) -> str:
    """TOML text of a string: ``like``'s kind when it can hold the value."""
    kind = like.type if like is not None else None
    multiline = kind in (StringType.MLB, StringType.MLL)
    if "\n" in value or multiline:
        # a newline after the opening quotes (TOML drops it) unless ours' string had none
        bare = multiline and like is not None and like.as_string()[3:4] != "\n"
        lead = "" if bare and not value.startswith("\n") else "\n"
        if kind is StringType.MLL and "'''" not in value and not _CONTROL.search(value):
            return f"'''{lead}{value}'''"
        return f'"""{lead}{_multiline_basic(value)}"""'
    if kind is StringType.SLL and "'" not in value and not _CONTROL.search(value):
        return f"'{value}'"
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _multiline_basic(value: str) -> str:
    text = value.replace("\\", "\\\\")
    text = _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    end = len(text)

    def quotes(m: re.Match[str]) -> str:  # never three in a row, never one before the end
        last = m.end() == end
        return "".join('\\"' if last or i % 3 == 2 else '"' for i in range(len(m.group())))

    return re.sub('"+', quotes, text)
