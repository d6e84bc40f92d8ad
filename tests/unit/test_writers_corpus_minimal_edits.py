"""Every writer edits real documents by others as a reviewer wants to read them.

PRODUCT.md, "The write path, as an agent and a reviewer see it": the MCP tools,
``playbook add|update|deprecate``, ``ace apply``, ``resolve`` and the merge each edit the
file in its own style. ``test_merge_corpus_minimal_edits`` holds the merge to it on
every corpus file; here the other writers are: one status set through the MCP tools in
every todo list and plan of ../shared/corpus, one ``playbook update`` in every
playbook, and ``resolve`` of a real status conflict in every class-style TRON todo list
and plan. Each diff may touch the edited item and the container's bookkeeping only:
no other item's line, no class rewritten as ``{}``, no line glued after a bracket.
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from git_vcontext.mcp_server import startup as setup
from git_vcontext.mcp_server.service import Options
from git_vcontext.mcp_server.tools.dispatch import call
from helpers.run import run_cli, run_git

pytestmark = pytest.mark.corpus

EPOCH = {"SOURCE_DATE_EPOCH": "1772600767"}
_CLASS_CONTAINER = re.compile(r"^(todoList|plan|playbook): ([A-Z][A-Za-z0-9_]*)\($", re.MULTILINE)


def _copy(shared: Path, tmp: Path) -> Path:
    root = tmp / "corpus"
    shutil.copytree(shared / "corpus", root)
    for path in [root, *root.rglob("*")]:  # the corpus is read-only, which writes refuse
        path.chmod(path.stat().st_mode | 0o200)
    return root


def _changed(before: str, after: str) -> tuple[list[str], list[str]]:
    """The lines removed and the lines added (a line diff, as ``git diff`` shows it)."""
    old, new = before.splitlines(), after.splitlines()
    removed: list[str] = []
    added: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op != "equal":
            removed += old[i1:i2]
            added += new[j1:j2]
    return removed, added


def _single_markers(text: str, values: list[str]) -> list[str]:
    """The JSON spellings of ``values`` that occur exactly once in ``text``."""
    out = []
    for value in values:
        spelled = json.dumps(value, ensure_ascii=False)
        if len(spelled) > 6 and text.count(spelled) == 1:
            out.append(spelled)
    return out


def _style_problems(before: str, after: str, removed: list[str], added: list[str]) -> list[str]:
    """What a reviewer would object to in any writer's diff."""
    problems = []
    for m in _CLASS_CONTAINER.finditer(before):
        if m.group() not in after:
            problems.append(f"container header {m.group()!r} rewritten")
    one_space = re.compile(r"^ \S")
    if not any(one_space.match(line) for line in before.splitlines()):
        problems += [f"one-space indent: {ln!r}" for ln in added if one_space.match(ln)]
    if "\n" in before.strip() and not any(_glued(ln) for ln in before.splitlines()):
        problems += [f"glued after a bracket: {ln[:80]!r}" for ln in added if _glued(ln)]
    return problems


_MEMBER_AFTER = re.compile(r'\s*,\s*"?[A-Za-z_]\w*"?\s*:')
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _glued(line: str) -> bool:
    """A member written right after the bracket that closes a container opened on an
    earlier line (``…}], "updated": …``)."""
    text = _STRING.sub('""', line)
    depth = 0
    for i, ch in enumerate(text):
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
            if depth < 0 and _MEMBER_AFTER.match(text, i + 1):
                return True
    return False


def _status_for(item: dict[str, Any]) -> str:
    return "pending" if item.get("status") == "blocked" else "blocked"


def test_write_path_mcp_status_change_in_every_corpus_todo_list_and_plan(
    shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH["SOURCE_DATE_EPOCH"])
    root = _copy(shared_dir, tmp_path)
    where, repo = setup.find_root(str(root))
    svc = setup.service(Options(root=where, agent="alice"), repo)
    written = 0
    failures: list[str] = []
    for entry in svc.catalog.entries():
        if entry.kind not in ("todoList", "plan") or entry.error is not None:
            continue
        path = root / entry.rel
        before_raw = path.read_bytes()
        try:
            data = parse(before_raw, path=entry.rel).data
        except Exception:
            continue
        items = data[entry.kind].get("items") if isinstance(data[entry.kind], dict) else None
        if not isinstance(items, list) or len(items) < 2 or not isinstance(items[0], dict):
            continue
        item = items[0]
        ident = item.get("id")
        address = ident if isinstance(ident, str) and ident else f"/{entry.kind}/items/0"
        status = _status_for(item)
        if entry.kind == "todoList":
            args = {"todoListId": entry.id, "id": address, "status": status}
            answer = call(svc, "vbrief_update_todo", args)
        else:
            args = {"planId": entry.id, "itemId": address, "status": status}
            answer = call(svc, "vbrief_update_plan_item", args)
        if answer.error:
            assert "\n" not in answer.text
            assert path.read_bytes() == before_raw
            continue
        written += 1
        before = before_raw.decode("utf-8-sig").replace("\r\n", "\n")
        after = path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n")
        removed, added = _changed(before, after)
        titles = [i.get("title") for i in items[1:] if isinstance(i, dict)]
        others = [t for t in titles if isinstance(t, str)]
        touched = [m for m in _single_markers(before, others) if any(m in ln for ln in removed)]
        problems = [f"another item's line changed: {m}" for m in touched]
        problems += _style_problems(before, after, removed, added)
        if len(removed) > 14:
            problems.append(f"{len(removed)} lines removed for one status")
        if problems:
            failures.append(f"{entry.rel}: {'; '.join(problems[:3])}")
    assert not failures, "\n".join(failures[:40]) + f"\n({len(failures)} documents)"
    assert written > 300


def test_write_path_playbook_update_in_every_corpus_playbook(
    shared_dir: Path, tmp_path: Path
) -> None:
    """``git vcontext playbook update`` on every corpus playbook with an event log: the new
    event is appended in the log's style (a class row among class rows), no existing event
    line changes."""
    root = _copy(shared_dir, tmp_path)
    where, repo = setup.find_root(str(root))
    svc = setup.service(Options(root=where), repo)
    updated = 0
    failures: list[str] = []
    for entry in svc.catalog.entries("playbook"):
        if entry.error is not None:
            continue
        path = root / entry.rel
        before_raw = path.read_bytes()
        data = parse(before_raw, path=entry.rel).data
        log = data["playbook"].get("items") if isinstance(data["playbook"], dict) else None
        events = [e for e in log or [] if isinstance(e, dict) and "eventId" in e]
        if not events or not isinstance(events[0].get("targetId"), str):
            continue
        done = run_cli(
            "playbook",
            "update",
            str(path),
            "--target",
            events[0]["targetId"],
            "--delta",
            "helpfulCount=+1",
            env=EPOCH,
        )
        if done.returncode != 0:
            assert path.read_bytes() == before_raw
            continue
        updated += 1
        before = before_raw.decode("utf-8-sig")
        after = path.read_bytes().decode("utf-8-sig")
        removed, added = _changed(before, after)
        problems = _style_problems(before, after, removed, added)
        ids = _single_markers(before, [str(e["eventId"]) for e in events])
        problems += [f"event line changed: {m}" for m in ids if any(m in ln for ln in removed)]
        rows = re.compile(r"^\s+([A-Z][A-Za-z0-9_]*)\($")
        if any(rows.match(ln) for ln in before.splitlines()) and not any(
            rows.match(ln) or re.match(r"^\s+[A-Z][A-Za-z0-9_]*\(\"", ln) for ln in added
        ):
            problems.append("the new event is not a class row among class rows")
        if len(removed) > 8:
            problems.append(f"{len(removed)} lines removed for one event")
        if problems:
            failures.append(f"{entry.rel}: {'; '.join(problems[:3])}")
    assert not failures, "\n".join(failures)
    assert updated >= 15


def _class_tron_lists(shared: Path) -> list[Path]:
    found = []
    for path in sorted((shared / "corpus").rglob("*.tron")):
        try:
            data = parse(path.read_bytes(), path=str(path)).data
        except Exception:
            continue
        text = path.read_text()
        for kind in ("todoList", "plan"):
            container = data.get(kind) if isinstance(data, dict) else None
            items = container.get("items") if isinstance(container, dict) else None
            if (
                isinstance(items, list)
                and len(items) >= 2
                and all(isinstance(i, dict) for i in items)
                and re.search(rf"^{kind}: [A-Z]\w*\(", text, re.MULTILINE)
            ):
                found.append(path)
    return found


def _set_status(repo_dir: Path, branch: str, rel: str, kind: str, ident: str, status: str) -> bool:
    """One MCP status write committed on ``branch`` (checked out); False when refused (a
    document the spec's schema does not accept)."""
    run_git(repo_dir, "checkout", "-q", "-B", branch)
    tool, keys = {
        "todoList": ("vbrief_update_todo", ("todoListId", "id")),
        "plan": ("vbrief_update_plan_item", ("planId", "itemId")),
    }[kind]
    where, repo = setup.find_root(str(repo_dir))
    svc = setup.service(Options(root=where, agent=branch, commit=True), repo)
    doc_id = next(e.id for e in svc.catalog.entries(kind) if e.rel == rel)
    answer = call(svc, tool, {keys[0]: doc_id, keys[1]: ident, "status": status})
    assert "\n" not in answer.text
    return not answer.error


def test_write_path_resolve_keeps_class_style_tron_in_corpus_documents(
    shared_dir: Path, git_repo: Path
) -> None:
    """A real conflict (both branches set the first item's status) in each class-style TRON
    todo list and plan of the corpus, settled with ``resolve --take theirs``: against ours,
    the result changes that item's row and the bookkeeping, in ours' classes."""
    files = _class_tron_lists(shared_dir)
    assert len(files) >= 5
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    failures: list[str] = []
    resolved = 0
    for n, source in enumerate(files):
        rel = f"doc{n}.vcontext.tron"
        data = parse(source.read_bytes(), path=str(source)).data
        kind = "todoList" if "todoList" in data else "plan"
        path = git_repo / rel
        path.write_bytes(source.read_bytes())
        run_git(git_repo, "add", "-A")
        run_git(git_repo, "commit", "-q", "-m", f"base {n}")
        item = data[kind]["items"][0]
        ident = item.get("id") if isinstance(item.get("id"), str) else f"/{kind}/items/0"

        run_git(git_repo, "branch", "-f", f"feat{n}")
        if not _set_status(git_repo, f"feat{n}", rel, kind, ident, "cancelled"):
            run_git(git_repo, "checkout", "-q", "main")
            continue
        run_git(git_repo, "checkout", "-q", "main")
        assert _set_status(git_repo, "main", rel, kind, ident, "blocked")
        resolved += 1
        merged = run_git(git_repo, "merge", "--no-edit", f"feat{n}", check=False)
        if merged.returncode == 0:
            failures.append(f"{source.name}: no conflict to resolve")
            continue
        ours = run_git(git_repo, "show", f"HEAD:{rel}").stdout
        done = run_cli("resolve", rel, "--take", "theirs", cwd=git_repo, env=EPOCH)
        assert done.returncode == 0, done.stderr.decode()
        after = path.read_text()
        removed, added = _changed(ours, after)
        problems = _style_problems(ours, after, removed, added)
        others = [i.get("title") for i in data[kind]["items"][1:] if isinstance(i, dict)]
        markers = _single_markers(ours, [t for t in others if isinstance(t, str)])
        problems += [
            f"another item changed: {m}" for m in markers if any(m in ln for ln in removed)
        ]
        if not re.search(r'"cancelled"', after):
            problems.append("theirs' status is not in the result")
        if len(removed) > 10:
            problems.append(f"{len(removed)} lines removed")
        if problems:
            failures.append(f"{source.name}: {'; '.join(problems[:3])}")
        run_git(git_repo, "commit", "-q", "--no-edit")
    assert not failures, "\n".join(failures)
    assert resolved >= 5
