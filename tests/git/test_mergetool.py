"""``git mergetool -t vcontext`` driven through a real terminal (a pty), as a person uses it."""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
from pathlib import Path

import pytest

from helpers.conflict_repos import TODO, cli_json, diverge, installed, pretty, status_of, todo
from helpers.run import run_cli, run_git
from helpers.terminal import Terminal


@pytest.fixture
def stopped(git_repo: Path) -> Path:
    """A merge stopped on two conflicts: t1's status and t3's title."""
    repo = installed(git_repo)
    ours = todo(t1="blocked", t3={"title": "Tests on main"})
    theirs = todo(t1="completed", t3={"title": "Tests on feat"})
    diverge(repo, pretty(todo()), pretty(ours), pretty(theirs))
    assert run_git(repo, "merge", "--no-edit", "feat", check=False).returncode == 1
    return repo


def editor(tmp_path: Path, value: str) -> str:
    """An editor that replaces the value in the file it is given (keeping the # lines)."""
    script = tmp_path / "editor.sh"
    lines = ["#!/bin/sh", 'grep \'^#\' "$1" > "$1.new"', f"printf '%s\\n' '{value}' >> \"$1.new\""]
    script.write_text("\n".join([*lines, 'mv "$1.new" "$1"', ""]))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def mergetool(repo: Path, tmp_path: Path, value: str = '"Tests everywhere"') -> Terminal:
    env = {**os.environ, "GIT_EDITOR": editor(tmp_path, value), "TERM": "dumb"}
    return Terminal(["git", "mergetool", "-t", "vcontext"], repo, env)


def test_a_person_takes_theirs_then_edits_a_value_and_the_file_is_staged(
    stopped: Path, tmp_path: Path
) -> None:
    term = mergetool(stopped, tmp_path)
    term.expect(r"\[1/2\] todoList\.items\[t1\]\.status")
    term.expect(r"\[q\]uit\? ")
    assert 'ours (main): "blocked"' in term.screen
    assert 'theirs (feat): "completed"' in term.screen
    term.type("t\n")
    term.expect(r"\[2/2\] todoList\.items\[t3\]\.title")
    term.expect(r"\[q\]uit\? $")
    term.type("e\n")
    assert term.wait() == 0, term.screen
    assert "resolved, staged" in term.screen
    data = json.loads((stopped / TODO).read_text())
    assert data["todoList"]["items"][0]["status"] == "completed"
    assert data["todoList"]["items"][2]["title"] == "Tests everywhere"
    assert status_of(stopped) == "M "
    assert run_git(stopped, "commit", "-q", "--no-edit", check=False).returncode == 0


def test_an_invalid_edit_is_refused_and_asked_again(stopped: Path, tmp_path: Path) -> None:
    term = mergetool(stopped, tmp_path, value='"doing"')
    term.expect(r"\[q\]uit\? $")
    term.type("e\n")
    term.expect(r"refused: .*is not allowed here")
    term.expect(r"\[q\]uit\? $")
    term.type("o\n")
    term.expect(r"\[2/2\]")
    term.expect(r"\[q\]uit\? $")
    term.type("b\n")
    assert term.wait() == 0, term.screen
    data = json.loads((stopped / TODO).read_text())
    assert data["todoList"]["items"][0]["status"] == "blocked"
    assert data["todoList"]["items"][2]["title"] == "Task 3"  # the base's


def test_quitting_keeps_the_choices_made_so_far(stopped: Path, tmp_path: Path) -> None:
    term = mergetool(stopped, tmp_path)
    term.expect(r"\[q\]uit\? $")
    term.type("t\n")
    term.expect(r"\[2/2\]")
    term.expect(r"\[q\]uit\? $")
    term.type("q\n")
    term.expect(r"1 conflict\(s\) left")
    term.expect(r"Continue merging other unresolved paths|merge of .* failed|$")
    term.wait()
    assert status_of(stopped) == "UU"
    _code, listing = cli_json("conflicts", cwd=stopped)
    f = listing["files"][0]
    assert f["resolved"] == 1
    assert [c["where"] for c in f["conflicts"]] == ["todoList.items[t3].title"]


def test_install_sets_the_mergetool_doctor_checks_it_uninstall_removes_it(git_repo: Path) -> None:
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    cmd = run_git(git_repo, "config", "--get", "mergetool.vcontext.cmd").stdout
    assert 'mergetool "$BASE" "$LOCAL" "$REMOTE" "$MERGED"' in cmd
    assert (
        run_git(git_repo, "config", "--get", "mergetool.vcontext.trustExitCode").stdout.strip()
        == "true"
    )
    assert b"mergetool configured" in run_cli("doctor", cwd=git_repo).stdout
    run_git(git_repo, "config", "--unset", "mergetool.vcontext.cmd")
    doctor = run_cli("doctor", cwd=git_repo)
    assert doctor.returncode == 1
    assert b"mergetool.vcontext.cmd is not configured" in doctor.stdout
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    assert run_cli("uninstall", cwd=git_repo).returncode == 0
    left = run_git(git_repo, "config", "--get-regexp", "^mergetool\\.", check=False).stdout
    assert left == ""


def test_the_mergetool_command_the_messages_advise_leaves_no_orig_file(
    stopped: Path, tmp_path: Path
) -> None:
    """git keeps each file as it was as ``FILE.orig`` after any merge tool unless
    ``mergetool.keepBackup`` is false (a setting of every tool: none of ours to change, and
    git has no per-tool one). The command doctor (and the README) advise turns it off for
    the run: a person doing exactly that finds the file resolved and staged, and nothing
    else in the work tree."""
    said = run_cli("doctor", cwd=stopped).stdout.decode()
    found = re.search(r"mergetool configured \((git [^)]*)\)", said)
    assert found is not None, said
    argv = shlex.split(found.group(1))
    assert argv[:3] == ["git", "-c", "mergetool.keepBackup=false"], argv
    env = {**os.environ, "GIT_EDITOR": editor(tmp_path, '"x"'), "TERM": "dumb"}
    term = Terminal(argv, stopped, env)
    for answer in ("t\n", "o\n"):
        term.expect(r"\[q\]uit\? $")
        term.type(answer)
    assert term.wait() == 0, term.screen
    assert "resolved, staged" in term.screen
    assert not (stopped / f"{TODO}.orig").exists()
    left = run_git(stopped, "status", "--porcelain", "--untracked-files=all").stdout
    assert left.splitlines() == [f"M  {TODO}"], left
    assert run_git(stopped, "commit", "-q", "--no-edit", check=False).returncode == 0
