"""The fast argv paths of ``entry.py`` parse exactly as click does (issue 29).

``entry.py`` recognises the forms git runs once per file or push (the merge driver,
``hook pre-push``, ``textconv``, the external diff) and ``sync AGENT… --push REMOTE``,
and runs them without importing click. For each such form the same command must run
with the same options and values as ``cli.py`` would give it; every other form (help,
an unknown or repeated option, an option where git puts an operand) goes to click, so
usage errors and ``--help`` stay in one place. The commands themselves are replaced by
recorders: this is about parsing, the commands have tests of their own.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from git_vcontext import entry, rawpatch
from git_vcontext.commands import diff, hook, merge_driver, sync, textconv

Call = tuple[str, dict[str, Any]]

OID = "8d0e41234f24b6da002d962a26c2495ea16a425f"
MODE = "100644"
REF_LINE = f"refs/heads/main {OID} refs/heads/main {'0' * 40}\n"

# The commands a fast path may end in, by the name a call is recorded under.
COMMANDS: dict[str, tuple[Any, str]] = {
    "merge-driver": (merge_driver, "run"),
    "hook pre-push": (hook, "run"),
    "sync": (sync, "run"),
    "textconv": (textconv, "run"),
    "diff (external)": (diff, "external"),  # click's diff.run dispatches to it
    "raw patch": (rawpatch, "run"),
}


def _recorder(name: str, original: Callable[..., int], calls: list[Call]) -> Callable[..., int]:
    signature = inspect.signature(original)

    def record(*args: Any, **kwargs: Any) -> int:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        given = dict(bound.arguments)
        given.pop("text", None)  # the hook's stdin, read by the fast path before it runs
        for key, value in given.items():
            if isinstance(value, list):
                given[key] = tuple(value)
        calls.append((name, given))
        return 0

    return record


def _run(
    monkeypatch: pytest.MonkeyPatch, how: Callable[[list[str]], object], argv: list[str]
) -> list[Call]:
    """The command calls that running ``argv`` makes through ``how``."""
    calls: list[Call] = []
    with monkeypatch.context() as m:
        for name, (module, attr) in COMMANDS.items():
            m.setattr(module, attr, _recorder(name, getattr(module, attr), calls))
        # git's stdin for the hook: one ref update, so the fast path goes on to run it
        m.setattr(hook, "read_input", lambda: REF_LINE)
        m.setattr(hook, "wanted", lambda text: True)
        # a person reads the external diff (else the fast path writes git's own patch)
        m.setattr(rawpatch, "for_person", lambda: True)
        m.setenv("NO_COLOR", "1")  # color "auto" decided alike on both paths
        how(argv)
    return calls


def _fast(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> list[Call] | None:
    """The fast path's calls, or None when it hands ``argv`` to click."""
    handed: list[list[str]] = []

    def click_main(args: list[str]) -> int:
        handed.append(args)
        return 0

    with monkeypatch.context() as m:
        m.setattr("git_vcontext.cli.main", click_main)
        calls = _run(monkeypatch, entry._dispatch, argv)
    if handed:
        assert handed == [argv]
        assert calls == []
        return None
    return calls


def _click(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> list[Call]:
    from git_vcontext import cli

    return _run(monkeypatch, cli.main, argv)


EXTERNAL_7 = ["t.vcontext.json", "/tmp/a", OID, MODE, "/tmp/b", OID, MODE]
EXTERNAL_9 = [*EXTERNAL_7, "u.vcontext.json", "similarity index 90%\nrename from t\n"]

FAST = {
    "driver, install's form": ["merge-driver", "o", "a", "b", "-p", "my file.json", "-l", "7"],
    "driver, bare": ["merge-driver", "o", "a", "b"],
    "driver, install's virtual base form": [
        *("merge-driver", "--virtual-base", "o", "a", "b", "-p", "my file.json", "-l", "7"),
    ],
    "driver, every option": [
        *("merge-driver", "o", "a", "b", "-p", "p", "-l", "12"),
        *("-s", "base", "-x", "ours", "-y", "theirs"),
    ],
    "driver, options in another order": ["merge-driver", "o", "a", "b", "-y", "T", "-p", "P"],
    "driver, marker size with zeros": ["merge-driver", "o", "a", "b", "-l", "007"],
    "driver, a value that looks like an option": ["merge-driver", "o", "a", "b", "-p", "-x"],
    "driver, empty labels": ["merge-driver", "o", "a", "b", "-s", "", "-x", "", "-y", ""],
    "driver, non-ASCII path": ["merge-driver", "o", "a", "b", "-p", "tâche ünïcode.json"],
    "hook, remote and url": ["hook", "pre-push", "origin", "https://example.invalid/r.git"],
    "hook, remote only": ["hook", "pre-push", "origin"],
    "hook, nothing": ["hook", "pre-push"],
    "sync --push, one agent": ["sync", "alice", "--push", "origin"],
    "sync --push, agents": ["sync", "alice", "bob", "carol", "--push", "../remote with space"],
    "textconv": ["textconv", "todo.vcontext.json"],
    "textconv, empty name": ["textconv", ""],
    "external diff, 7 arguments": ["diff", *EXTERNAL_7],
    "external diff, 9 arguments": ["diff", *EXTERNAL_9],
}


@pytest.mark.parametrize("argv", FAST.values(), ids=FAST.keys())
def test_fast_path_runs_the_command_click_runs_with_the_same_options(
    monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    fast = _fast(monkeypatch, argv)
    assert fast is not None, "expected entry.py to take this form itself"
    assert len(fast) == 1
    assert fast == _click(monkeypatch, argv)


TO_CLICK = {
    "driver, help": ["merge-driver", "o", "a", "b", "--help"],
    "driver, long option": ["merge-driver", "o", "a", "b", "--path", "p"],
    "driver, option joined to its value": ["merge-driver", "o", "a", "b", "-pp"],
    "driver, option with =": ["merge-driver", "o", "a", "b", "--marker-size=9"],
    "driver, repeated option": ["merge-driver", "o", "a", "b", "-p", "x", "-p", "y"],
    "driver, option without a value": ["merge-driver", "o", "a", "b", "-p"],
    "driver, option before the files": ["merge-driver", "-p", "x", "o", "a", "b"],
    "driver, option between the files": ["merge-driver", "o", "-p", "x", "a", "b"],
    "driver, a file named like an option": ["merge-driver", "o", "-a", "b"],
    "driver, marker size not a number": ["merge-driver", "o", "a", "b", "-l", "x"],
    "driver, negative marker size": ["merge-driver", "o", "a", "b", "-l", "-1"],
    "driver, marker size a superscript digit": ["merge-driver", "o", "a", "b", "-l", "²"],
    "driver, conflict style": ["merge-driver", "o", "a", "b", "--conflict-style", "structured"],
    "driver, virtual base": ["merge-driver", "o", "a", "b", "--virtual-base"],
    "driver, virtual base twice": [
        "merge-driver",
        "--virtual-base",
        "--virtual-base",
        "o",
        "a",
        "b",
    ],
    "driver, virtual base, too few files": ["merge-driver", "--virtual-base", "o", "a"],
    "driver, too few files": ["merge-driver", "o", "a"],
    "driver, end of options": ["merge-driver", "o", "a", "b", "--"],
    "hook, help": ["hook", "pre-push", "--help"],
    "hook, too many arguments": ["hook", "pre-push", "origin", "url", "more"],
    "hook, end of options": ["hook", "pre-push", "--", "origin"],
    "hook, another hook": ["hook", "post-receive"],
    "sync, no --push": ["sync", "alice", "bob"],
    "sync --push, no agent": ["sync", "--push", "origin"],
    "sync --push=REMOTE": ["sync", "alice", "--push=origin"],
    "sync --push, then --all": ["sync", "alice", "--push", "--all"],
    "sync --push before the agents": ["sync", "--push", "origin", "alice"],
    "sync --push, with --dry-run": ["sync", "--dry-run", "alice", "--push", "origin"],
    "sync --push, twice": ["sync", "--push", "x", "--push", "origin"],
    "sync --push, end of options": ["sync", "--", "alice", "--push", "origin"],
    "textconv, help": ["textconv", "--help"],
    "textconv, stdin": ["textconv", "-"],
    "textconv, two files": ["textconv", "a", "b"],
    "diff, two files": ["diff", "a.json", "b.json"],
    "diff, 7 arguments that are not git's form": ["diff", "a", "b", "c", "d", "e", "f", "g"],
    "diff, an option and git's form": ["diff", "--stat", *EXTERNAL_7],
    "version": ["--version"],
    "nothing": [],
}


@pytest.mark.parametrize("argv", TO_CLICK.values(), ids=TO_CLICK.keys())
def test_every_other_form_is_handed_to_click(
    monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    assert _fast(monkeypatch, argv) is None


def test_the_external_diff_into_a_pipe_is_git_s_own_patch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The one difference from click's route, on purpose: when no person reads the output
    (a file, or a pipe into another program), the fast path writes git's own patch, with
    the same arguments the structural diff would get."""
    with monkeypatch.context() as m:
        m.setattr(rawpatch, "is_external", rawpatch.is_external)
        calls: list[Call] = []
        m.setattr(rawpatch, "run", _recorder("raw patch", rawpatch.run, calls))
        m.setattr(rawpatch, "for_person", lambda: False)
        entry._dispatch(["diff", *EXTERNAL_9])
    assert calls == [("raw patch", {"args": tuple(EXTERNAL_9)})]


def test_the_comparison_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two forms that run different options are told apart (the recorders see values)."""
    one = _click(monkeypatch, ["merge-driver", "o", "a", "b", "-l", "8"])
    other = _fast(monkeypatch, ["merge-driver", "o", "a", "b", "-l", "9"])
    assert other is not None
    assert one != other
    assert one[0][1]["marker_size"] == 8
