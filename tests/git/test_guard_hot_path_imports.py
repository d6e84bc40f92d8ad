"""What the server's guard loads on the push it judges most (issue 28, the soak with the guard
within 1.2x of the soak without it): a ``sync --push`` round (a todo list in JSON, a plan in
TRON, a playbook) pushed into a bare repository with ``install --server --guard``, judged by
the light path, the guard's Python started as the installed hook starts it, with ``-X
importtime``. Every module of the package costs a guard run ~0.2 ms and every ``sync
--push`` starts two or three: the modules the light path may load are pinned here, and the
heavy standard modules it does without (``re``, ``enum``, ``subprocess``, ``json``,
``typing``, pathlib, pygit2, ...) stay out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import git_vcontext
from helpers.guard import clone_with_base, guarded_remote, push
from helpers.pre_push import PLAYBOOK, TODO, commit, event, playbook
from helpers.run import run_cli, run_git
from helpers.soak import PLAN_TRON

PLAN = "plan.vcontext.tron"

LIGHT_PATH = frozenset(
    f"git_vcontext{'.' if name else ''}{name}"
    for name in (
        # the console entry, the guard's command and its policy
        "", "entry", "fsio", "oscalls", "errors", "patterns", "boundary", "commands",
        "commands.pre_receive",
        # git's plumbing without pygit2, and the objects read themselves
        "faults", "record", "gitio", "gitio.loose", "gitio.batch", "gitio.outgoing",
        # the check: verdicts, deletions remembered, the rules of the full check
        "jsoncodec", "shipped", "version", "prepush", "prepush.cache", "prepush.light",
        "prepush.remotepast", "prepush.undone", "branches", "branches.commits",
        # validating a changed document, and its history
        "spelling", "values", "keys", "document", "validation", "validation.model",
        "validation.history", "validation.files", "validation.checks", "validation.rules",
        "validation.container_rules", "validation.playbooks", "validation.schemas",
        "validation.fastcheck", "vermas", "vermas.kinds",
        "playbook", "playbook.log", "playbook.analyse", "playbook.fold", "playbook.graph",
        # reading JSON and TRON
        "codecs", "codecs.text", "codecs.json_text", "codecs.kept", "codecs.duplicate_keys",
        "codecs.matching", "codecs.tron", "codecs.tron.lexer", "codecs.tron.header",
        "codecs.tron.fast", "codecs.tron.parser", "codecs.tron.quick", "codecs.reuse",
    )
)  # fmt: skip
"""What the light path of a push changing a JSON todo list, a TRON plan and a playbook may load
(at most 58 modules, ``codecs.tron.quick`` among them: TRON's reader without spans, issue 32;
``codecs.reuse``: the parses a push reads twice, moved out of ``codecs`` so the merge driver
does without ``contextvars``;
62 before issue 28 point 1: no ``gitio.incoming``, ``validation.projections``,
``vermas.project``, ``validation.messages``, ``playbook.instants`` or ``codecs.tron.names``)."""

HEAVY = (
    "re", "enum", "subprocess", "json", "typing", "dataclasses", "pathlib", "functools",
    "collections", "contextlib", "importlib", "inspect", "threading", "signal", "selectors",
    "tempfile", "shutil", "hashlib", "locale", "warnings", "weakref", "copy", "pygit2",
    "click", "lark", "jsonschema", "tomllib", "tomlkit", "gitio.incoming", "prepush.check",
    "heapq", "bisect",
)  # fmt: skip
"""Modules the light path does without (with pygit2, most of what a full check costs);
``heapq`` and ``bisect`` only for a playbook's branched history or differing setters."""


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


def _timed_guard(remote: Path) -> None:
    """The guard's Python, as the installed hook starts it, with ``-X importtime`` (what it
    says on stderr the hook passes on: the pusher sees it as ``remote:`` lines)."""
    hook = remote / "hooks" / "pre-receive"
    text = hook.read_text()
    assert '"$PROGRAM" -S -P' in text  # the form 2 hook: Python without site
    hook.write_text(text.replace('"$PROGRAM" -S -P', '"$PROGRAM" -X importtime -S -P'))


def _loaded(stderr: str) -> set[str]:
    names = set()
    for line in stderr.splitlines():
        said = line.removeprefix("remote:").strip()
        if said.startswith("import time:") and said.count("|") == 2:
            names.add(said.rsplit("|", 1)[1].strip())
    return names


def _round_pushed(tmp_path: Path) -> tuple[set[str], str]:
    """A round of an agent (its todo list, plan and playbook changed) pushed with
    ``--no-verify`` to a guarded remote: what the guard loaded, and what git said."""
    remote = guarded_remote(tmp_path, "--guard")
    repo = clone_with_base(remote, tmp_path / "clone", hook=False)
    (repo / PLAN).write_text(PLAN_TRON)
    commit(repo, "a plan")
    assert push(repo, "--no-verify", "origin", "main").returncode == 0
    run_git(repo, "switch", "-q", "-c", "agents/ann")
    data = json.loads((repo / TODO).read_text())
    data["todoList"]["items"].append({"id": "t2", "title": "Task two", "status": "pending"})
    (repo / TODO).write_text(json.dumps(data, indent=2) + "\n")
    step = '"completed"),\n  PlanItem("p1", "Next", "pending")'
    (repo / PLAN).write_text(PLAN_TRON.replace('"completed")', step))
    events = playbook(event("e1", "first"), event("e2", "second"), event("e3", "third"))
    (repo / PLAYBOOK).write_text(json.dumps(events, indent=2) + "\n")
    commit(repo, "ann's round")
    assert run_cli("validate", cwd=repo).returncode == 0
    _timed_guard(remote)
    env = {"GIT_VCONTEXT_HOOK_VERBOSE": "1"}
    done = push(repo, "--no-verify", "origin", "agents/ann", env=env)
    assert done.returncode == 0, done.stderr
    assert "guard (light): checked 1 commit(s), 3 file change(s)" in done.stderr, done.stderr
    return _loaded(done.stderr), done.stderr


def test_guard_light_path_loads_only_the_modules_it_needs(tmp_path: Path) -> None:
    loaded, said = _round_pushed(tmp_path)
    ours = {name for name in loaded if name.split(".")[0] == "git_vcontext"}
    assert "git_vcontext.prepush.light" in ours, said  # the light path ran, timed
    assert sorted(ours - LIGHT_PATH) == []
    assert {"git_vcontext.codecs.tron", "git_vcontext.validation.playbooks"} <= ours


def test_guard_light_path_loads_no_heavy_standard_module(tmp_path: Path) -> None:
    loaded, _ = _round_pushed(tmp_path)
    heavy = [m if "." not in m else f"git_vcontext.{m}" for m in HEAVY]
    assert [m for m in heavy if m in loaded] == []
    assert not any(m.startswith(("pygit2", "click", "jsonschema")) for m in loaded)


def test_the_pinned_light_path_can_fail() -> None:
    """The reading of ``-X importtime`` sees a module the light path should not load."""
    said = "remote: import time:       120 |        340 |   git_vcontext.gitio.incoming\n"
    assert _loaded(said) - LIGHT_PATH == {"git_vcontext.gitio.incoming"}
