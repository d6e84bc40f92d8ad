"""The merge driver's installed form (issue 32, lever 4): ``install`` writes a driver whose
Python starts without ``site`` (``python -S -P -c BOOT N FOLDERS merge-driver ...``, the
guard's form), importing from the folders the installing Python found git-vcontext in.
Tested as git runs it: a real ``git merge`` of a real repository. A package that does not
import any more leaves git working (PRODUCT.md "Installing never breaks git"): one line
on stderr and git's own line merge; ``doctor`` says so, and notes an older form."""

from __future__ import annotations

import json
import os
import resource
import shlex
import subprocess
from pathlib import Path

import pytest

from git_vcontext.setup.config import DRIVER_FORM, command_words, config_entries, driver_start
from helpers.run import cli_path, run_cli, run_git
from helpers.users import roots_folder

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


def _sides(folder: Path) -> list[str]:
    """base, ours (%A, mode 0644) and theirs of a document in ``folder``; the driver's
    arguments after ``merge-driver``."""
    (folder / "base.json").write_text(_todo(["a", "b", "c"]) + "\n")
    (folder / "the ours.json").write_text(_todo(["a", "b!", "c"]) + "\n")
    (folder / "theirs.json").write_text(_todo(["a", "b", "c!"]) + "\n")
    for name in ("base.json", "the ours.json", "theirs.json"):
        (folder / name).chmod(0o644)
    return ["base.json", "the ours.json", "theirs.json", "-p", "my " + DOC, "-l", "7"]


def _started(git_repo: Path) -> list[str]:
    """The installed driver's Python, ``-X importtime``, ``-S -P -c BOOT`` and its folders."""
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    start = driver_start(_driver(git_repo))
    assert start is not None
    return [start[0], "-X", "importtime", *start[1:], "merge-driver"]


def _no_temporaries(folder: Path) -> None:
    assert sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp")) == []


def test_the_driver_without_os_replaces_percent_a_whole_keeping_its_mode(
    git_repo: Path, tmp_path: Path
) -> None:
    """The installed form's process (no site) never loads os: %A is written by posix's own
    calls (git_vcontext.oscalls) in a folder whose path holds a space, replaced whole with
    its permission bits (PRODUCT.md: files written whole, atomic replace); a full disk
    (here a file size limit: EFBIG) leaves %A as it was, no temporary behind, one line
    and exit 3, as the os calls said."""
    start = _started(git_repo)
    folder = tmp_path / "my documents"
    folder.mkdir()
    arguments = _sides(folder)
    ours = folder / "the ours.json"
    ours.chmod(0o640)
    done = subprocess.run([*start, *arguments], cwd=folder, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "git_vcontext.commands.merge_driver" in loaded
    assert [m for m in ("os", "posixpath", "stat") if m in loaded] == []
    titles = [i["title"] for i in json.loads(ours.read_text())["todoList"]["items"]]
    assert titles == ["a", "b!", "c!"]
    assert ours.stat().st_mode & 0o7777 == 0o640
    _no_temporaries(folder)

    _sides(folder)  # ours as it was before the merge
    before = ours.read_bytes()

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) // 2, len(before) // 2))

    full = subprocess.run(
        [*start, *arguments], cwd=folder, capture_output=True, text=True, preexec_fn=small_files
    )
    assert full.returncode == 3
    errors = [line for line in full.stderr.splitlines() if not line.startswith("import time:")]
    assert errors == ["git-vcontext: error: the ours.json: cannot write (File too large)"]
    assert ours.read_bytes() == before
    _no_temporaries(folder)


def test_the_driver_without_os_in_a_read_only_folder_says_so_and_writes_nothing(
    git_repo: Path,
) -> None:
    """A folder the user may not write (run as nobody in a folder root owns): the write of
    the temporary fails; %A is left as it was, one line, exit 3 (PRODUCT.md: bad input,
    files untouched)."""
    start = _started(git_repo)
    with roots_folder("vcontext-ro ") as (base, become):
        folder = base / "read only"
        folder.mkdir()
        arguments = _sides(folder)
        (folder / "the ours.json").chmod(0o666)  # the file may be written, the folder not
        folder.chmod(0o555)
        before = (folder / "the ours.json").read_bytes()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        done = subprocess.run(
            [*become, *start, *arguments], cwd=folder, capture_output=True, text=True, env=env
        )
        assert done.returncode == 3, done.stderr
        errors = [line for line in done.stderr.splitlines() if not line.startswith("import")]
        assert errors == ["git-vcontext: error: the ours.json: cannot write (Permission denied)"]
        assert (folder / "the ours.json").read_bytes() == before
        _no_temporaries(folder)
