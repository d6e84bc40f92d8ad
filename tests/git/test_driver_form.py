"""The merge driver's installed form (issue 32, lever 4): ``install`` writes a driver whose
Python starts without ``site`` (``python -S -P -c BOOT N FOLDERS merge-driver ...``, the
guard's form), importing from the folders the installing Python found git-vcontext in.
Tested as git runs it: a real ``git merge`` of a real repository. A package that does not
import any more leaves git working (PRODUCT.md "Installing never breaks git"): one line
on stderr and git's own line merge; ``doctor`` says so, and notes an older form."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from git_vcontext.setup.config import DRIVER_FORM, command_words, config_entries, driver_start
from helpers.run import cli_path, run_cli, run_git

DOC = "todo.vcontext.json"


@pytest.fixture(autouse=True)
def _no_pythonpath(monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver imports from what install recorded, not from a PYTHONPATH of the test's."""
    monkeypatch.delenv("PYTHONPATH", raising=False)


def _todo(titles: list[str]) -> str:
    items = [{"id": f"t{i}", "title": t, "status": "pending"} for i, t in enumerate(titles)]
    return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}, indent=2)


def _diverged(repo: Path, ours: list[str], theirs: list[str]) -> None:
    """main and ``other`` changed the document since their base."""
    path = repo / DOC
    path.write_text(_todo(["a", "b", "c"]) + "\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "base")
    run_git(repo, "checkout", "-q", "-b", "other")
    path.write_text(_todo(theirs) + "\n")
    run_git(repo, "commit", "-q", "-am", "theirs")
    run_git(repo, "checkout", "-q", "main")
    path.write_text(_todo(ours) + "\n")
    run_git(repo, "commit", "-q", "-am", "ours")


def _driver(repo: Path, key: str = "merge.vcontext.driver") -> str:
    return run_git(repo, "config", "--get", key).stdout.strip()


def _doctor(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cli_path(), "doctor"], cwd=repo, capture_output=True, text=True)


def test_install_writes_a_merge_driver_that_starts_python_without_site(git_repo: Path) -> None:
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    for key in ("merge.vcontext.driver", "merge.vcontext-base.driver"):
        value = _driver(git_repo, key)
        assert DRIVER_FORM in value
        start = driver_start(value)
        assert start is not None
        assert start[1:3] == ["-S", "-P"]
    _diverged(git_repo, ["a", "b!", "c"], ["a", "b", "c!"])
    merged = run_git(git_repo, "merge", "--no-edit", "other", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    data = json.loads((git_repo / DOC).read_text())
    assert [i["title"] for i in data["todoList"]["items"]] == ["a", "b!", "c!"]
    doctor = _doctor(git_repo)
    assert "merge driver configured and runs" in doctor.stdout
    assert "older form" not in doctor.stdout


def _unimportable(repo: Path) -> None:
    """The recorded folders no longer hold the package (moved, or uninstalled by pip while
    the console script was left behind)."""
    for key in ("merge.vcontext.driver", "merge.vcontext-base.driver"):
        value = _driver(repo, key)
        start = driver_start(value)
        assert start is not None
        for folder in start[6:]:  # python -S -P -c BOOT N FOLDER...
            value = value.replace(f" {folder}", " /gone/site-packages")
        run_git(repo, "config", key, value)


def test_installing_never_breaks_git_a_driver_that_cannot_import_merges_by_lines(
    git_repo: Path,
) -> None:
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    _unimportable(git_repo)
    _diverged(git_repo, ["a", "b!", "c"], ["a", "b?", "c"])
    merged = run_git(git_repo, "merge", "--no-edit", "other", check=False)
    assert merged.returncode == 1  # git's line merge: a conflict, as without the tool
    lines = [line for line in merged.stderr.splitlines() if "git-vcontext" in line]
    assert len(lines) == 1, merged.stderr
    assert "the merge driver could not start" in lines[0]
    assert f"{DOC} merged by lines; fix: git vcontext install" in lines[0]
    text = (git_repo / DOC).read_text()
    assert "<<<<<<< ours" in text
    assert ">>>>>>> theirs" in text
    doctor = _doctor(git_repo)
    assert doctor.returncode == 1
    assert "the merge driver's Python does not start git-vcontext" in doctor.stdout
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0  # the fix
    assert "merge driver configured and runs" in _doctor(git_repo).stdout


def test_doctor_notes_the_older_form_of_the_merge_driver(git_repo: Path) -> None:
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    program = command_words(_driver(git_repo))
    assert program is not None
    older = config_entries(shlex.join(program))  # the console script, as installs before wrote it
    for key in ("merge.vcontext.driver", "merge.vcontext-base.driver"):
        assert DRIVER_FORM not in older[key]
        run_git(git_repo, "config", key, older[key])
    doctor = _doctor(git_repo)
    assert "merge driver configured and runs" in doctor.stdout  # not a problem: a note
    assert "merge.vcontext.driver is an older form" in doctor.stdout
    _diverged(git_repo, ["a", "b!", "c"], ["a", "b", "c!"])
    merged = run_git(git_repo, "merge", "--no-edit", "other", check=False)
    assert merged.returncode == 0, merged.stderr  # the older form still merges
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0  # upgraded
    assert DRIVER_FORM in _driver(git_repo)
    assert "older form" not in _doctor(git_repo).stdout
