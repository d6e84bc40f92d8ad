"""Split-edit check on real edit histories: two agents each make part of a real change.

For consecutive versions (old, new) of a document from the corpus histories, the
item-level changes are dealt alternately to "ours" and "theirs"; merging the two
must give back ``new``. Skips cleanly when ../shared/corpus is absent.
"""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.document import identity_key
from git_vcontext.errors import ParseError
from git_vcontext.merging import merge3
from git_vcontext.values import same

Unit = tuple[
    str, tuple[Any, ...], Any
]  # ("key", path, _) | ("elem", path, ids) | ("order", path, _)


def histories(shared: Path) -> list[list[Path]]:
    corpus = shared / "corpus"
    folders = [p for p in (corpus / "history").iterdir() if p.is_dir()]
    folders += [p for p in (corpus / "external").glob("*/history/*") if p.is_dir()]
    out = []
    for folder in sorted(folders):
        versions = sorted(folder.glob("*.json"))
        if len(versions) >= 2:
            out.append(versions)
    return out


def load(path: Path) -> Any:
    from git_vcontext.codecs.json_text import loads

    return loads(path.read_bytes()).data


def units(old: Any, new: Any, path: tuple[Any, ...] = ()) -> list[Unit]:
    """Changes at the level of root keys, container keys and items (by identity)."""
    if not (isinstance(old, dict) and isinstance(new, dict)) or len(path) >= 2:
        return [("key", path, None)]
    out: list[Unit] = []
    for key in list(old) + [k for k in new if k not in old]:
        a, b = old.get(key), new.get(key)
        if key in old and key in new and same(a, b):
            continue
        child = (*path, key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += units(a, b, child)
        elif isinstance(a, list) and isinstance(b, list) and identity_key([a, b]):
            out += _element_units(a, b, child)
        else:
            out.append(("key", child, None))
    return out


def _element_units(a: list[Any], b: list[Any], path: tuple[Any, ...]) -> list[Unit]:
    key = identity_key([a, b])
    if key is None or any(key not in e for e in a + b):
        return [("key", path, None)]
    old = {e[key]: e for e in a}
    new = {e[key]: e for e in b}
    out: list[Unit] = [
        ("elem", path, (i,)) for i in old if i not in new or not same(old[i], new[i])
    ]
    out += [("elem", path, run) for run in _added_runs(b, key, old)]
    common_a = [e[key] for e in a if e[key] in new]
    common_b = [e[key] for e in b if e[key] in old]
    if common_a != common_b:
        out.append(("order", path, None))
    return out


def _added_runs(b: list[Any], key: str, old: dict[Any, Any]) -> list[tuple[Any, ...]]:
    """New elements in runs of neighbours: one agent adds a run (M3 orders concurrent
    insertions at one place ours-first, so a run split between agents could not come back
    in its original order)."""
    runs: list[list[Any]] = []
    previous_new = False
    for e in b:
        is_new = e[key] not in old
        if is_new and previous_new:
            runs[-1].append(e[key])
        elif is_new:
            runs.append([e[key]])
        previous_new = is_new
    return [tuple(r) for r in runs]


def apply(doc: Any, new: Any, chosen: list[Unit]) -> Any:
    out = copy.deepcopy(doc)
    for kind, path, ident in sorted(chosen, key=lambda u: u[0] == "order"):
        if kind == "key":
            _set(out, path, _get(new, path))
        elif kind == "elem":
            for one in ident:
                _apply_element(out, new, path, one)
        else:
            _reorder(out, new, path)
    return out


_ABSENT = object()


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return _ABSENT
        doc = doc[key]
    return doc


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        doc = doc.setdefault(key, {})
    if value is _ABSENT:
        doc.pop(path[-1], None)
    else:
        doc[path[-1]] = copy.deepcopy(value)


def _apply_element(doc: Any, new: Any, path: tuple[Any, ...], ident: Any) -> None:
    items = _get(doc, path)
    target = _get(new, path)
    key = identity_key([items, target])
    assert key is not None
    theirs = {e[key]: (n, e) for n, e in enumerate(target)}
    if ident in theirs and any(e[key] == ident for e in items):  # changed: in place
        changed = [copy.deepcopy(theirs[ident][1]) if e[key] == ident else e for e in items]
        _set(doc, path, changed)
        return
    mine = [e for e in items if e[key] != ident]
    if ident in theirs:
        n, element = theirs[ident]
        position = {e[key]: i for i, e in enumerate(mine)}
        previous = next(
            (target[k][key] for k in range(n - 1, -1, -1) if target[k][key] in position), None
        )
        at = 0 if previous is None else position[previous] + 1
        mine.insert(at, copy.deepcopy(element))
    _set(doc, path, mine)


def _reorder(doc: Any, new: Any, path: tuple[Any, ...]) -> None:
    items = _get(doc, path)
    target = _get(new, path)
    key = identity_key([items, target])
    rank = {e[key]: n for n, e in enumerate(target)}
    common = sorted((e for e in items if e[key] in rank), key=lambda e: rank[e[key]])
    it = iter(common)
    _set(doc, path, [next(it) if e[key] in rank else e for e in items])


def pairs(shared: Path) -> list[tuple[str, Path, Path]]:
    out = []
    for versions in histories(shared):
        for old, new in itertools.pairwise(versions):
            out.append((f"{old.parent.name}/{old.name}->{new.name}", old, new))
    return out


@pytest.mark.corpus
def test_split_edits_of_real_histories_merge_back_to_the_newer_version(shared_dir: Path) -> None:
    checked = 0
    failures = []
    for name, old_path, new_path in pairs(shared_dir):
        try:
            old, new = load(old_path), load(new_path)
        except ParseError:
            continue  # the corpus keeps a few broken versions (MANIFEST.tsv notes them)
        found = units(old, new)
        if len(found) < 2:
            continue
        ours = apply(old, new, found[0::2])
        theirs = apply(old, new, found[1::2])
        result = merge3(old, ours, theirs)
        checked += 1
        if not result.clean or not same(result.data, new):
            failures.append(
                f"{name}: {len(found)} changes, conflicts {[c.path for c in result.conflicts][:3]}"
            )
    assert checked >= 20
    assert failures == [], "\n".join(failures)


def test_the_split_helper_itself_reproduces_a_change() -> None:
    old = {"todoList": {"items": [{"id": "a", "s": 1}, {"id": "b", "s": 1}], "title": "x"}}
    new = {"todoList": {"items": [{"id": "c"}, {"id": "b", "s": 2}], "title": "y"}}
    found = units(old, new)
    assert json.dumps(apply(old, new, found)) == json.dumps(new)
