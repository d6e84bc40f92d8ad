"""What the processes git starts once per file load (issue 32, issue 35): a real ``git
merge`` through the installed driver and ``git log -p --ext-diff`` read by a person, each
process started with ``python -X importtime``, load neither the ``json`` package nor ``re``
nor ``enum`` (with what they load, ~8 ms of a ~35 ms process; jsoncodec reads and writes
JSON on the ``_json`` C module instead, and TRON is cut into tokens by codecs/tron/lexer.py)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from helpers.run import cli_path, run_cli, run_git

HEAVY = ("json", "re", "enum")
TODO = "todo.vcontext"


def _todo(n: int, done: set[int], extra: str = "") -> dict[str, object]:
    items = [
        {"id": f"t{i}", "title": f"Task {i}{extra if i == n - 1 else ''}",
         "status": "completed" if i in done else "pending", "tags": ["x"]}
        for i in range(n)
    ]  # fmt: skip
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}


def _text(data: object, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(data, indent=2) + "\n"
    from git_vcontext.codecs import dumps

    return dumps(data, "tron")


def _timed_imports(repo: Path) -> None:
    """The driver and the external diff install wrote, their script started by ``python
    -X importtime SCRIPT`` (the script is ours, bin/git-vcontext: what git runs; ``-m
    git_vcontext`` would add what runpy loads, operator among them)."""
    script = shlex.quote(str(Path(cli_path()[0]).resolve()))
    python = f"{shlex.quote(sys.executable)} -X importtime {script}"
    for key in ("merge.vcontext.driver", "diff.vcontext.command"):
        value = run_git(repo, "config", "--get", key).stdout.strip()
        if f"exec {script} " in value:
            value = value.replace(f"exec {script} ", f"exec {python} ")
        else:  # installed as python -m git_vcontext already
            value = value.replace("exec ", "exec env PYTHONPROFILEIMPORTTIME=1 ")
        assert "importtime" in value or "IMPORTTIME" in value
        run_git(repo, "config", key, value)


def _loaded(stderr: str) -> set[str]:
    """The modules ``-X importtime`` says the processes loaded."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def _merge_imports(git_repo: Path, fmt: str) -> set[str]:
    """A merge git hands to the driver (both sides changed the document), then what the
    driver's process loaded."""
    name = f"{TODO}.{fmt}"
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    _timed_imports(git_repo)
    path = git_repo / name
    path.write_text(_text(_todo(30, set()), fmt))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "base")
    run_git(git_repo, "checkout", "-q", "-b", "theirs")
    path.write_text(_text(_todo(30, {1, 5}), fmt))
    run_git(git_repo, "commit", "-q", "-am", "theirs")
    run_git(git_repo, "checkout", "-q", "main")
    path.write_text(_text(_todo(30, {2}, " (renamed)"), fmt))
    run_git(git_repo, "commit", "-q", "-am", "ours")
    merge = run_git(git_repo, "merge", "--no-edit", "theirs", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    loaded = _loaded(merge.stderr)
    assert "git_vcontext.commands.merge_driver" in loaded, merge.stderr  # the driver ran
    merged = run_cli("validate", name, cwd=git_repo)
    assert merged.returncode == 0, merged.stderr
    text = path.read_text()
    assert "(renamed)" in text
    assert text.count("completed") == 3
    return loaded


def test_the_merge_driver_of_a_json_document_loads_no_json_re_or_enum(git_repo: Path) -> None:
    loaded = _merge_imports(git_repo, "json")
    assert [m for m in HEAVY if m in loaded] == []


def test_the_merge_driver_of_a_tron_document_loads_no_json_package(git_repo: Path) -> None:
    loaded = _merge_imports(git_repo, "tron")
    assert "json" not in loaded


def test_the_merge_driver_of_a_tron_document_loads_no_re_or_enum(git_repo: Path) -> None:
    loaded = _merge_imports(git_repo, "tron")
    assert [m for m in HEAVY if m in loaded] == []


# what a TRON merge's render loaded only for a write that keeps a long log's old elements
# (codecs/tron/grown.py: copy with weakref, types and copyreg; operator; bisect), and the
# contextvars wrapper of _contextvars, and the TRON error scans (issue 32)
NOT_FOR_A_MERGE = (
    "copy",
    "weakref",
    "operator",
    "bisect",
    "contextvars",
    "git_vcontext.codecs.tron.scan",
)


def test_the_merge_driver_of_a_tron_document_loads_no_copy_operator_or_bisect(
    git_repo: Path,
) -> None:
    loaded = _merge_imports(git_repo, "tron")
    assert [m for m in NOT_FOR_A_MERGE if m in loaded] == []


def test_the_merge_driver_of_a_json_document_loads_no_contextvars_wrapper(
    git_repo: Path,
) -> None:
    loaded = _merge_imports(git_repo, "json")
    assert [m for m in NOT_FOR_A_MERGE if m in loaded] == []


# what a clean merge loaded before issue 32's last pass: the site module (the driver's
# Python starts without it, from the folders install recorded: setup.config.DRIVER_FORM),
# the path quoting of messages (validation: a clean merge says nothing), and TRON's
# grammar module (the C scanner and the descent read the sides: codecs/tron/quick.py)
NOT_FOR_A_CLEAN_MERGE = (
    "site",
    "git_vcontext.validation",
    "git_vcontext.validation.model",
    "git_vcontext.codecs.tron.parser",
    "lark",
)


def test_the_merge_driver_of_a_json_document_starts_without_site_or_validation(
    git_repo: Path,
) -> None:
    loaded = _merge_imports(git_repo, "json")
    assert [m for m in NOT_FOR_A_CLEAN_MERGE if m in loaded] == []


def test_the_merge_driver_of_a_tron_document_starts_without_site_or_the_tron_grammar(
    git_repo: Path,
) -> None:
    loaded = _merge_imports(git_repo, "tron")
    assert [m for m in NOT_FOR_A_CLEAN_MERGE if m in loaded] == []
    assert "git_vcontext.codecs.tron.quick" in loaded


# os and what it loads (issue 32): the driver's Python starts without site, so nothing had
# loaded them; its own calls (open, write, fsync, chmod, replace, stat, urandom) are posix's
# (git_vcontext.oscalls), ~5 M of a JSON merge's ~99 M instructions
NOT_WITHOUT_SITE = ("os", "posixpath", "stat", "_collections_abc")


def test_the_merge_driver_of_a_json_document_loads_no_os(git_repo: Path) -> None:
    loaded = _merge_imports(git_repo, "json")
    assert [m for m in NOT_WITHOUT_SITE if m in loaded] == []
    assert "git_vcontext.oscalls" in loaded


def test_the_merge_driver_of_a_tron_document_loads_no_os(git_repo: Path) -> None:
    loaded = _merge_imports(git_repo, "tron")
    assert [m for m in NOT_WITHOUT_SITE if m in loaded] == []


def test_a_conflicted_merge_reads_git_config_without_the_subprocess_module(
    git_repo: Path,
) -> None:
    """A file with conflicts reads git's settings (here ``merge.conflictStyle diff3``: the
    markers get a base section) by ``git config`` started with ``os`` alone, and (git
    before 2.44 passes no labels) the git command above it from ``/proc``: no
    ``subprocess``, nor the ``signal``, ``threading`` and ``selectors`` it loads, ~5 ms of
    every conflicted file's driver (issue 32); those labels, from MERGE_MSG, without ``re``
    or ``enum``."""
    name = f"{TODO}.json"
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    run_git(git_repo, "config", "merge.conflictStyle", "diff3")
    _timed_imports(git_repo)
    path = git_repo / name
    path.write_text(_text(_todo(30, set()), "json"))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "base")
    run_git(git_repo, "checkout", "-q", "-b", "theirs")
    path.write_text(_text(_todo(30, set(), " (theirs)"), "json"))
    run_git(git_repo, "commit", "-q", "-am", "theirs")
    run_git(git_repo, "checkout", "-q", "main")
    path.write_text(_text(_todo(30, set(), " (ours)"), "json"))
    run_git(git_repo, "commit", "-q", "-am", "ours")
    merge = run_git(git_repo, "merge", "--no-edit", "theirs", check=False)
    assert merge.returncode == 1, merge.stdout + merge.stderr  # the conflict stops it
    loaded = _loaded(merge.stderr)
    assert "git_vcontext.gitio.settings" in loaded, merge.stderr  # the settings were read
    text = path.read_text()
    assert "(ours)" in text
    assert "(theirs)" in text
    assert "|||||||" in text  # diff3 from git's config: read through the new path
    heavy = ("subprocess", "signal", "threading", "selectors", "re", "enum")
    assert [m for m in heavy if m in loaded] == []


def _event(i: int, side: str) -> dict[str, object]:
    return {
        "eventId": f"evt-{side}-{i}",
        "targetId": f"entry-{i}",
        "operation": "append",
        "kind": "learning",
        "narrative": {"Overview": f"Lesson {i} from {side}."},
        "createdAt": f"2025-0{1 + i % 9}-0{1 + i % 9}T1{i % 10}:00:00Z",
    }


def _playbook(events: list[dict[str, object]]) -> str:
    created = "2025-01-01T00:00:00Z"
    book = {"version": 1, "created": created, "updated": created, "items": events}
    return json.dumps({"vContextInfo": {"version": "0.4"}, "playbook": book}, indent=2) + "\n"


def test_m6_the_merge_driver_of_a_playbook_loads_no_re_enum_or_subprocess(
    git_repo: Path,
) -> None:
    """Issue 32: a log's merge orders events by their timestamps (read by hand, not by a
    regular expression) and asks git's state whether it replays (os calls, not gitio's
    subprocess and pathlib). (``datetime`` still loads: the note on targets with several
    heads sorts events by ``playbook.instants``, datetime's C parser.)"""
    name = "playbook.vcontext.json"
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    _timed_imports(git_repo)
    path = git_repo / name
    base = [_event(i, "base") for i in range(20)]
    path.write_text(_playbook(base))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "base")
    run_git(git_repo, "checkout", "-q", "-b", "theirs")
    path.write_text(_playbook(base + [_event(i, "theirs") for i in range(3)]))
    run_git(git_repo, "commit", "-q", "-am", "theirs")
    run_git(git_repo, "checkout", "-q", "main")
    path.write_text(_playbook(base + [_event(i, "ours") for i in range(2)]))
    run_git(git_repo, "commit", "-q", "-am", "ours")
    merge = run_git(git_repo, "merge", "--no-edit", "theirs", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    loaded = _loaded(merge.stderr)
    assert "git_vcontext.merging.logs" in loaded, merge.stderr  # the driver merged the log
    items = json.loads(path.read_text())["playbook"]["items"]
    assert len(items) == 25  # M6: both sides' events
    assert [m for m in (*HEAVY, "subprocess", "pathlib") if m in loaded] == []


def test_git_log_p_ext_diff_for_a_person_loads_no_json_re_or_enum(git_repo: Path) -> None:
    """Issue 35: ``git log -p --ext-diff`` into git's pager runs the structural diff once
    per version."""
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    _timed_imports(git_repo)
    path = git_repo / f"{TODO}.json"
    for n in range(3):
        path.write_text(_text(_todo(20, set(range(n))), "json"))
        run_git(git_repo, "add", "-A")
        run_git(git_repo, "commit", "-q", "-m", f"v{n}")
    env = {**os.environ, "GIT_PAGER_IN_USE": "true", "NO_COLOR": "1"}
    log = subprocess.run(
        ["git", "log", "-p", "--ext-diff"],
        cwd=git_repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "todoList.items[t1].status: pending → completed" in log.stdout, log.stdout
    loaded = _loaded(log.stderr)
    assert "git_vcontext.commands.diff" in loaded
    assert [m for m in HEAVY if m in loaded] == []


def test_the_virtual_base_driver_of_a_criss_cross_merge_loads_no_click_or_re(
    git_repo: Path,
) -> None:
    """git runs ``merge-driver --virtual-base`` for the inner merges that build a criss-cross
    history's base (M16); it went through click (click, re, typing, enum: the whole
    command line) where the outer driver did not. Both take the fast path."""
    from helpers.criss_cross import crossed

    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    _timed_imports(git_repo)
    key = "merge.vcontext-base.driver"
    value = run_git(git_repo, "config", "--get", key).stdout.strip()
    run_git(git_repo, "config", key, value.replace("exec ", "exec env PYTHONPROFILEIMPORTTIME=1 "))
    crossed(git_repo)
    merge = run_git(git_repo, "merge", "--no-edit", "agents/x", check=False)
    loaded = _loaded(merge.stderr)
    assert merge.stderr.count("git_vcontext.commands.merge_driver\n") == 2, merge.stderr
    assert [m for m in ("click", *HEAVY) if m in loaded] == []
