"""M16 criss-cross histories through real ``git merge``: agents that merged each other.

Two agents each change t1's status and append an item, then merge each other and resolve
t1 the same way. Their next merge has two merge bases; git first merges those (the inner
merge, through ``merge.vcontext.recursive``) into a virtual base. With the base driver
install sets, every conflict of that inner merge takes the inner base's value, so the
virtual base is a valid document and the outer merge stays structural.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli, run_git
from git_vcontext.codecs import dumps, parse

JSON = "todo.vcontext.json"
TRON = "todo.vcontext.tron"


def todo(*items: str) -> dict[str, Any]:
    """``todo("t1=completed", "a1")``: items with an id and a status (default pending)."""
    out = []
    for spec in items:
        ident, _, status = spec.partition("=")
        out.append({"id": ident, "title": ident.upper(), "status": status or "pending"})
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": out}}


class History:
    """A repository where two agents append and merge each other (git does the merging)."""

    def __init__(self, repo: Path, rel: str) -> None:
        self.repo, self.rel = repo, rel

    def write(self, data: Any) -> None:
        path = self.repo / self.rel
        if self.rel.endswith(".tron"):  # the same classes every time, as an agent's tool would
            path.write_text(dumps(data, "tron"))
        else:
            path.write_text(json.dumps(data, indent=2) + "\n")

    def commit(self, data: Any, message: str) -> None:
        self.write(data)
        run_git(self.repo, "add", "-A")
        run_git(self.repo, "commit", "-q", "-m", message)

    def git(self, *args: str, check: bool = True) -> Any:
        return run_git(self.repo, *args, check=check)

    def items(self) -> list[tuple[str, str]]:
        data = parse((self.repo / self.rel).read_bytes(), path=self.rel).data
        return [(i["id"], i["status"]) for i in data["todoList"]["items"]]

    def crossed(self) -> None:
        """base t1; a: t1 completed + a1; b: t1 blocked + b1; each merges the other's first
        commit and resolves t1 as completed; then a appends a2 and b appends b2."""
        self.commit(todo("t1"), "base")
        self.git("checkout", "-q", "-b", "a")
        self.commit(todo("t1=completed", "a1"), "a1")
        self.git("checkout", "-q", "-b", "b", "main")
        self.commit(todo("t1=blocked", "b1"), "b1")
        for ours, theirs, order in (("a", "b", ("a1", "b1")), ("b", "a~1", ("b1", "a1"))):
            self.git("checkout", "-q", ours)
            assert self.git("merge", "-q", "--no-edit", theirs, check=False).returncode == 1
            self.commit(todo("t1=completed", *order), f"{ours} resolves t1")
        self.git("checkout", "-q", "a")
        self.commit(todo("t1=completed", "a1", "b1", "a2"), "a2")
        self.git("checkout", "-q", "b")
        self.commit(todo("t1=completed", "b1", "a1", "b2"), "b2")
        bases = self.git("merge-base", "--all", "a", "b").stdout.split()
        assert len(bases) == 2  # a criss-cross history


@pytest.fixture(params=[JSON, TRON])
def history(git_repo: Path, request: pytest.FixtureRequest) -> History:
    assert run_cli("install", cwd=git_repo).returncode == 0
    h = History(git_repo, request.param)
    h.crossed()
    return h


def test_m16_criss_cross_merge_stays_structural_with_the_base_driver(history: History) -> None:
    history.git("checkout", "-q", "a")
    merge = history.git("merge", "--no-edit", "b", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert "merged by lines" not in merge.stderr
    items = history.items()
    assert dict(items) == {
        "t1": "completed",
        "a1": "pending",
        "b1": "pending",
        "a2": "pending",
        "b2": "pending",
    }
    assert len(items) == 5


def test_m16_criss_cross_merge_is_clean_in_both_directions(history: History) -> None:
    history.git("checkout", "-q", "b")
    merge = history.git("merge", "--no-edit", "a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert {i for i, _ in history.items()} == {"t1", "a1", "b1", "a2", "b2"}


def test_m16_without_the_base_driver_a_diff3_virtual_base_is_read_from_its_base_sections(
    history: History,
) -> None:
    """An older install (no merge.vcontext.recursive): the inner merge runs the normal
    driver, whose markers carry base sections under merge.conflictStyle=diff3."""
    history.git("config", "--unset", "merge.vcontext.recursive")
    history.git("config", "merge.conflictStyle", "diff3")
    history.git("checkout", "-q", "a")
    merge = history.git("merge", "--no-edit", "b", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert "merged by lines" not in merge.stderr
    assert {i for i, _ in history.items()} == {"t1", "a1", "b1", "a2", "b2"}


def test_m16_without_the_base_driver_and_base_sections_it_still_falls_back(
    history: History,
) -> None:
    """Markers without a base section cannot be read as a base: lines, as before."""
    history.git("config", "--unset", "merge.vcontext.recursive")
    history.git("checkout", "-q", "a")
    merge = history.git("merge", "--no-edit", "b", check=False)
    assert "merged by lines" in merge.stderr


def test_m16_the_inner_merge_gets_the_base_driver_with_a_longer_marker_size(
    history: History, tmp_path: Path
) -> None:
    """What git 2.39 passes for the inner merge: the recursive driver, %L = 7 + 2."""
    log = tmp_path / "inner.log"
    driver = history.git("config", "merge.vcontext-base.driver").stdout.strip()
    history.git("config", "merge.vcontext-base.driver", f"echo %L %P >> {log}; {driver}")
    history.git("checkout", "-q", "a")
    assert history.git("merge", "--no-edit", "b", check=False).returncode == 0
    assert log.read_text().split() == ["9", history.rel]
