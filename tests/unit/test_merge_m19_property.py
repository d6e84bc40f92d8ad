"""M19 as a property (issue 26): for two valid sides, a clean merge validates.

Documents of every kind agents keep (todo lists, plans, event-log playbooks, ACE
entries) are edited on two sides the way agents edit them: through the tool's own
writes (``edits``: create, update, delete, learnings, deprecations) and by hand (new
dependencies, nested items, ids from a small pool so that both sides meet). When both
sides validate, a merge that reports clean must validate too, in JSON and in TRON: every
incoherence the two sides make together is a conflict (M19), never a finding.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import dumps
from git_vcontext.edits import learnings, plans, todos
from git_vcontext.edits.stamp import Stamp, Unchanged
from git_vcontext.errors import Refused
from git_vcontext.errors import Refused as EditRefused
from git_vcontext.merging import MergeOptions
from git_vcontext.playbook.edit import Edit, append_event
from git_vcontext.validation.files import check_bytes
from helpers.merging import merge_files

POOL = ("n1", "n2", "t1", "t2", "t3")
"""Ids both sides draw from, so that they add, reference and delete the same ones."""
TARGETS = ("dlq", "retry", "cache")
ITEM_STATUSES = ("pending", "inProgress", "completed", "blocked", "cancelled")
PLAN_STATUSES = ("draft", "proposed", "approved", "inProgress", "completed", "cancelled")
ACE_STATUSES = ("active", "deprecated", "quarantined")
NOW = "2026-03-01T00:00:00Z"


def _stamp(agent: str, n: int) -> Stamp:
    hour = 10 if agent == "alice" else 11
    return Stamp(agent, f"2026-01-01T{hour}:{n:02d}:00Z")


def _base(kind: str) -> Any:
    seed = Stamp("seed", "2026-01-01T09:00:00Z")
    if kind == "todo":
        data = todos.new_document(seed, uid="u-todo")
        for i in ("t1", "t2", "t3"):
            data = todos.create(data, {"id": i, "title": i.upper()}, seed, entropy=i).data
        return todos.update(data, "t2", {"dependencies": ["t1"]}, seed).data
    if kind == "plan":
        items = [{"id": i, "title": i.upper()} for i in ("t1", "t2", "t3")]
        plan_fields: dict[str, Any] = {"title": "Plan", "items": items}
        return plans.new_document(plan_fields, seed, plan_id="p", uid="u-plan", entropy="e").data
    if kind == "playbook":
        data = learnings.new_document(seed)
        for target in ("dlq", "retry"):
            event: dict[str, Any] = {"targetId": target, "kind": "rule"}
            event["narrative"] = {"Overview": target}
            data = learnings.add_learning(data, event, seed, entropy=target).data
        return data
    entries = [
        {"id": i, "kind": "rule", "text": i, "helpfulCount": 0, "harmfulCount": 0,
         "status": "active", "updatedAt": "2026-01-01T09:00:00Z"}
        for i in ("t1", "t2", "t3")
    ]  # fmt: skip
    plan = {"id": "p", "title": "Patterns", "status": "inProgress"}
    return {"vAgendaInfo": {"version": "0.3"}, "plan": {**plan, "playbook": {"entries": entries}}}


@st.composite
def _edited(draw: st.DrawFn, kind: str, base: Any, agent: str) -> Any:
    data = copy.deepcopy(base)
    for n in range(draw(st.integers(0, 4))):
        stamp = _stamp(agent, n)
        try:
            data = EDITS[kind](draw, data, stamp, f"{agent}{n}")
        except (Refused, EditRefused, Unchanged):  # Unchanged: a write that changes nothing
            continue
    return data


def _ids(container: Any) -> list[str]:
    out = []
    stack = [container]
    while stack:
        node = stack.pop()
        for key in ("items", "subItems", "entries"):
            for e in node.get(key, ()) if isinstance(node, dict) else ():
                if isinstance(e, dict):
                    if isinstance(e.get("id"), str):
                        out.append(e["id"])
                    stack.append(e)
    return sorted(out)


def _find(container: Any, ident: str) -> dict[str, Any] | None:
    stack = [container]
    while stack:
        node = stack.pop()
        for key in ("items", "subItems", "entries"):
            for e in node.get(key, ()) if isinstance(node, dict) else ():
                if isinstance(e, dict):
                    if e.get("id") == ident:
                        return e
                    stack.append(e)
    return None


def _todo_edit(draw: st.DrawFn, data: Any, stamp: Stamp, entropy: str) -> Any:
    ids = _ids(data["todoList"])
    ops = ["create", "status", "title", "deps", "delete", "nest", "move", "reorder"]
    op = draw(st.sampled_from(ops))
    if op == "create" or not ids:
        fields: dict[str, Any] = {"id": draw(st.sampled_from(POOL)), "title": "new"}
        depends: bool = draw(st.booleans())
        if ids and depends:
            fields["dependencies"] = [draw(st.sampled_from(ids))]
        return todos.create(data, fields, stamp, entropy=entropy).data
    target = draw(st.sampled_from(ids))
    if op == "status":
        return todos.update(
            data, target, {"status": draw(st.sampled_from(ITEM_STATUSES))}, stamp
        ).data
    if op == "title":
        return todos.update(data, target, {"title": draw(st.sampled_from(["A", "B"]))}, stamp).data
    if op == "deps":
        deps = draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
        return todos.update(data, target, {"dependencies": deps}, stamp).data
    if op == "delete":
        return todos.delete(data, target, stamp).data
    data = copy.deepcopy(data)  # by hand: a sub-item (id from the pool), a move, an order
    items = data["todoList"]["items"]
    if op == "reorder":
        items.reverse()
        return data
    parent = _find(data["todoList"], target)
    assert parent is not None
    if op == "move":
        top = [i for i in items if i.get("id") != target]
        if not top:
            return data
        items.remove(parent) if parent in items else None
        host = draw(st.sampled_from(top))
        host.setdefault("subItems", []).append(parent)
        return data
    new = {"id": draw(st.sampled_from(POOL)), "title": "sub", "status": "pending"}
    parent.setdefault("subItems", []).append(new)
    return data


def _plan_edit(draw: st.DrawFn, data: Any, stamp: Stamp, entropy: str) -> Any:
    ids = _ids(data["plan"])
    op = draw(st.sampled_from(["status", "add", "item-status", "deps", "delete"]))
    if op == "status":
        return plans.update(data, {"status": draw(st.sampled_from(PLAN_STATUSES))}, stamp).data
    if op == "add" or not ids:
        new: dict[str, Any] = {"id": draw(st.sampled_from(POOL)), "title": "new"}
        return plans.add_item(data, new, stamp, entropy=entropy).data
    target = draw(st.sampled_from(ids))
    if op == "item-status":
        status = draw(st.sampled_from(ITEM_STATUSES))
        return plans.update_item(data, target, {"status": status}, stamp).data
    data = copy.deepcopy(data)
    plan = data["plan"]
    if op == "deps":
        found = _find(plan, target)
        assert found is not None
        found["dependencies"] = draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
    else:
        plan["items"] = [i for i in plan["items"] if i.get("id") != target]
    return data


def _playbook_edit(draw: st.DrawFn, data: Any, stamp: Stamp, entropy: str) -> Any:
    target = draw(st.sampled_from(TARGETS))
    if draw(st.integers(0, 4)) == 0:
        edit = Edit("deprecate", target, {"status": "deprecated"}, "outdated")
        return append_event(data, edit, now=stamp.now, entropy=entropy).data
    text = draw(st.sampled_from(["a", "b"]))
    fields = {"targetId": target, "kind": "rule", "narrative": {"Overview": text}}
    return learnings.add_learning(data, fields, stamp, entropy=entropy).data


def _ace_edit(draw: st.DrawFn, data: Any, stamp: Stamp, entropy: str) -> Any:
    data = copy.deepcopy(data)
    entries = data["plan"]["playbook"]["entries"]
    ids = [e["id"] for e in entries]
    op = draw(st.sampled_from(["status", "helpful", "add", "delete"]))
    if op == "add" or not ids:
        new: dict[str, Any] = {"id": draw(st.sampled_from(POOL)), "kind": "rule", "text": "new"}
        new.update(helpfulCount=0, harmfulCount=0, status="active", updatedAt=stamp.now)
        supersedes: bool = draw(st.booleans())
        if ids and supersedes:
            new["supersedes"] = [draw(st.sampled_from(ids))]
        entries.append(new)
        return data
    chosen = draw(st.sampled_from(ids))
    entry = next(e for e in entries if e["id"] == chosen)
    if op == "status":
        entry["status"] = draw(st.sampled_from(ACE_STATUSES))
        entry["updatedAt"] = stamp.now
    elif op == "helpful":
        entry["helpfulCount"] += 1
    else:
        entries.remove(entry)
    return data


EDITS = {"todo": _todo_edit, "plan": _plan_edit, "playbook": _playbook_edit, "ace": _ace_edit}


def _encode(data: Any, fmt: str) -> bytes:
    if fmt == "json":
        return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
    return dumps(data, "tron").encode()


def _errors(raw: bytes, path: str) -> list[tuple[str, str, str]]:
    report = check_bytes(raw, path)
    return [(f.rule, f.pointer, f.message) for f in report.findings]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[str, str, Any, Any, Any]:
    kind = draw(st.sampled_from(sorted(EDITS)))
    fmt = draw(st.sampled_from(["json", "tron"]))
    base = _base(kind)
    return kind, fmt, base, draw(_edited(kind, base, "alice")), draw(_edited(kind, base, "bob"))


@settings(
    max_examples=int(__import__("os").environ.get("M19_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(scenarios(), st.booleans())
def test_m19_two_valid_sides_merged_clean_give_a_valid_document(
    case: tuple[str, str, Any, Any, Any], replay: bool
) -> None:
    kind, fmt, base, ours, theirs = case
    path = f"memory/{kind}.vcontext.{fmt}"
    raw = [_encode(x, fmt) for x in (base, ours, theirs)]
    assert _errors(raw[0], path) == []
    assume(not _errors(raw[1], path) and not _errors(raw[2], path))
    for o, t in ((raw[1], raw[2]), (raw[2], raw[1])):
        options = MergeOptions(now=NOW, replay=replay)  # a merge, or a rebase step (M8)
        out = merge_files(raw[0], o, t, path=path, options=options)
        if out.clean:
            assert _errors(out.output, path) == [], out.output.decode()
        else:
            assert out.status == "conflict", out.reasons
