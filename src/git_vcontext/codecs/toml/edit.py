"""Minimal edits of a TOML text through tomlkit: only what changed between two data trees.

Keys are removed, added after their predecessor and replaced in place (a comment on
a replaced value's line stays); arrays of tables are matched by identity (``id``,
``uid``, ...) or aligned like lines, and a comment above a table travels with that
table; arrays are edited element by element. New values come from ``items``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import tomlkit
from tomlkit.container import Container, OutOfOrderTableProxy
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import (
    AoT,
    Array,
    Comment,
    InlineTable,
    Table,
    Whitespace,
)

from ...document import identity_key
from ...errors import ParseError
from ...values import canonical, same
from .items import new_item, new_table

if TYPE_CHECKING:
    from typing import Any

    Tableish = Container | Table | InlineTable | OutOfOrderTableProxy

_BLANK_LINE = [Whitespace("\n")]


def edited(text: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    """``text`` (which reads as ``old``) changed so that it reads as ``new``."""
    try:
        doc = tomlkit.parse(text)
        _table(doc, old, new)
        out = doc.as_string()
    except (TOMLKitError, ValueError, TypeError, KeyError) as exc:
        raise ParseError(f"the TOML writer cannot edit this text ({exc})") from None
    if "\r\n" in text:
        out = re.sub(r"(?<!\r)\n", "\r\n", out)
    return out


# -- tables ---------------------------------------------------------------------------


def _table(container: Tableish, old: dict[str, Any], new: dict[str, Any]) -> None:
    for key in old:
        if key not in new:
            _delete(container, key)
    previous: str | None = None
    for key, value in new.items():
        if key not in old:
            _add(container, key, value, previous)
        elif not same(old[key], value):
            _update(container, key, old[key], value)
        previous = key


def _delete(container: Tableish, key: str) -> None:
    """Remove a key; comments at the end of a removed table stood above the next table,
    so they move into it."""
    item = container[key]
    comments = (
        [x for x in _trailing(item) if isinstance(x, Comment)] if isinstance(item, Table) else []
    )
    body = (
        _body(container) if not isinstance(container, (InlineTable, OutOfOrderTableProxy)) else []
    )
    at = next((i for i, (k, v) in enumerate(body) if v is item), None)
    del container[key]
    if not comments or at is None:
        return
    following = next((v for _, v in body[at:] if isinstance(v, (Table, AoT))), None)
    first = following.body[0] if isinstance(following, AoT) and following.body else following
    if isinstance(first, Table):
        _keep_comments(first, comments)


def _update(container: Tableish, key: str, old: Any, new: Any) -> None:
    current = container[key]
    if isinstance(old, dict) and isinstance(new, dict) and _is_table(current):
        if new:
            _table(current, old, new)
        else:  # emptied: a fresh table (an implicit super-table would vanish from the text)
            inline = isinstance(current, InlineTable)
            container[key] = tomlkit.inline_table() if inline else tomlkit.table()
    elif isinstance(old, list) and isinstance(new, list) and isinstance(current, AoT):
        if all(isinstance(x, dict) for x in new):
            _aot(current, old, new)
        else:
            container[key] = new_item(new)
    elif isinstance(old, list) and isinstance(new, list) and isinstance(current, Array):
        _array(current, old, new)
    else:
        container[key] = new_item(new, like=current, inline=isinstance(container, InlineTable))


def _is_table(item: Any) -> bool:
    return isinstance(item, (Table, InlineTable, OutOfOrderTableProxy, Container))


def _add(container: Tableish, key: str, value: Any, previous: str | None) -> None:
    """A new key: after its predecessor (in new order), plain values before sub-tables."""
    item = new_item(value, inline=isinstance(container, InlineTable))
    if isinstance(container, (InlineTable, OutOfOrderTableProxy)):
        container[key] = item
        return
    body = _body(container)
    is_table = isinstance(item, (Table, AoT))
    if previous is not None and (isinstance(container[previous], (Table, AoT)) == is_table):
        _owner(container)._insert_after(previous, key, item)
        return
    if is_table:
        container.append(key, item)
        return
    last_value = max(
        (i for i, (k, v) in enumerate(body) if k is not None and not _is_sub(v)), default=None
    )
    if last_value is not None:
        item.trivia.indent = body[last_value][1].trivia.indent
        at: int | None = last_value + 1
    else:
        at = next((i for i, (_, v) in enumerate(body) if _is_sub(v)), None)
    if at is None or at >= len(body):
        container.append(key, item)
    else:
        _owner(container)._insert_at(at, key, item)


def _is_sub(item: Any) -> bool:
    return isinstance(item, (Table, AoT))


def _owner(container: Tableish) -> Container:
    inner = container if isinstance(container, Container) else container.value
    assert isinstance(inner, Container)
    return inner


def _body(container: Tableish) -> list[tuple[Any, Any]]:
    body: list[tuple[Any, Any]] = _owner(container).body
    return body


# -- arrays of tables -------------------------------------------------------------------


def _aot(aot: AoT, old: list[Any], new: list[Any]) -> None:
    """Tables matched to old ones (by identity, else aligned); reordered only when needed."""
    matches = _matches(old, new)
    if matches == list(range(len(old))):
        for k, same_table in enumerate(aot.body):
            if not same(old[k], new[k]):
                _table(same_table, old[k], new[k])
        return
    olds = list(aot.body)
    trailing = [_trailing(t) for t in olds]
    usual = _usual_separator(trailing[:-1])
    tables: list[Table] = []
    for j, i in enumerate(matches):
        if i is None:
            table = new_table(new[j])
            leading: list[Any] = list(usual)
        else:
            table = olds[i]
            _table(table, old[i], new[j])
            leading = trailing[i - 1] if i > 0 else list(usual)
        if j == 0:
            _keep_comments(table, leading)
        else:
            _set_trailing(tables[-1], leading)
        tables.append(table)
    if tables:
        _set_trailing(tables[-1], trailing[-1] if olds else [])
    del aot[:]
    for table in tables:
        aot.append(table)


def _matches(old: list[Any], new: list[Any]) -> list[int | None]:
    """For each new element, the index of the old element it is (None: added)."""
    key = identity_key([old, new])
    if key is not None:
        where = {e[key]: i for i, e in enumerate(old) if key in e}
        return [where.get(e.get(key)) if key in e else None for e in new]
    # lazy: difflib only for arrays without keys
    from difflib import SequenceMatcher

    out: list[int | None] = [None] * len(new)
    a, b = [canonical(x) for x in old], [canonical(x) for x in new]
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("equal", "replace"):
            for k in range(min(i2 - i1, j2 - j1)):
                out[j1 + k] = i1 + k
    return out


def _trailing(table: Table) -> list[Any]:
    """The blank lines and comments at the end of a table: what stands above the next one."""
    body = table.value.body
    n = len(body)
    while n and body[n - 1][0] is None and isinstance(body[n - 1][1], (Whitespace, Comment)):
        n -= 1
    return [item for _, item in body[n:]]


def _set_trailing(table: Table, items: list[Any]) -> None:
    body = table.value.body
    while body and body[-1][0] is None and isinstance(body[-1][1], (Whitespace, Comment)):
        body.pop()
    body.extend((None, item) for item in items)


def _keep_comments(table: Table, leading: list[Any]) -> None:
    """A table that became the first one keeps the comments that stood above it."""
    comments = [item for item in leading if isinstance(item, Comment)]
    if comments:
        table.value.body[0:0] = [(None, c) for c in comments]


def _usual_separator(blocks: list[list[Any]]) -> list[Any]:
    """The most common whitespace-only separator between tables (a blank line by default)."""
    counts: dict[str, tuple[int, list[Any]]] = {}
    for block in blocks:
        if all(isinstance(x, Whitespace) for x in block):
            text = "".join(x.as_string() for x in block)
            seen = counts.get(text, (0, block))
            counts[text] = (seen[0] + 1, block)
    if not counts:
        return list(_BLANK_LINE)
    best = max(counts.values(), key=lambda c: c[0])[1]
    return [Whitespace(x.as_string()) for x in best]


# -- arrays -----------------------------------------------------------------------------


def _array(array: Array, old: list[Any], new: list[Any]) -> None:
    """Element by element, from the end so that indexes stay valid."""
    # lazy: difflib only for arrays without keys
    from difflib import SequenceMatcher

    a, b = [canonical(x) for x in old], [canonical(x) for x in new]
    ops = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in reversed(ops):
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                _element(array, i1 + k, old[i1 + k], new[j1 + k])
            continue
        for i in range(i2 - 1, i1 - 1, -1):
            del array[i]
        for k, value in enumerate(new[j1:j2]):
            array.insert(i1 + k, new_item(value, inline=True))


def _element(array: Array, index: int, old: Any, new: Any) -> None:
    current = array[index]
    if isinstance(old, dict) and isinstance(new, dict) and isinstance(current, InlineTable):
        _table(current, old, new)
    elif isinstance(old, list) and isinstance(new, list) and isinstance(current, Array):
        _array(current, old, new)
    else:
        array[index] = new_item(new, like=current, inline=True)
