"""install / uninstall on awkward .gitattributes files: the user's bytes survive both ways."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import git_vcontext
from conftest import run_cli, run_git


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command must import the code under test, whatever the test's cwd."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.mark.parametrize(
    "original",
    [b"*.png binary\r\n*.txt text\r\n", b"*.png binary\n# caf\xe9 (Latin-1)\n"],
    ids=["crlf", "not-utf8"],
)
def test_uninstall_removes_exactly_what_install_added_to_gitattributes(
    git_repo: Path, original: bytes
) -> None:
    attributes = git_repo / ".gitattributes"
    attributes.write_bytes(original)
    done = run_cli("install", "--no-hooks", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    assert attributes.read_bytes().startswith(original)
    assert b"merge=vcontext" in attributes.read_bytes()
    undone = run_cli("uninstall", cwd=git_repo)
    assert undone.returncode == 0, undone.stderr
    assert attributes.read_bytes() == original


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_gitattributes_that_is_a_directory_is_a_one_line_operational_error(
    git_repo: Path, command: str
) -> None:
    (git_repo / ".gitattributes").mkdir()
    proc = run_cli(command, "--no-hooks" if command == "install" else "--local", cwd=git_repo)
    assert proc.returncode == 3
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "is a directory" in err and "internal error" not in err


def _todo(*ids: str) -> str:
    items = ", ".join(f'{{"id": "{i}", "title": "{i}", "status": "pending"}}' for i in ids)
    return (
        '{\n  "vContextInfo": {"version": "0.4"},\n'
        f'  "todoList": {{\n    "items": [{items}]\n  }}\n}}\n'
    )


def test_install_global_makes_every_repository_merge_by_meaning_and_uninstall_undoes_it(
    git_repo: Path,
) -> None:
    """No .gitattributes in the repository: the user-wide install alone routes the merge."""
    done = run_cli("install", "--global", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    assert not (git_repo / ".gitattributes").exists()
    assert not (git_repo / ".git" / "hooks" / "pre-push").exists()  # hooks are per repository
    doc = git_repo / "todo.vcontext.json"
    doc.write_text(_todo("t1"))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "base")
    run_git(git_repo, "switch", "-q", "-c", "other")
    doc.write_text(_todo("t1", "t3"))
    run_git(git_repo, "commit", "-q", "-am", "theirs adds t3")
    run_git(git_repo, "switch", "-q", "main")
    doc.write_text(_todo("t1", "t2"))
    run_git(git_repo, "commit", "-q", "-am", "ours adds t2")
    merged = run_git(git_repo, "merge", "-q", "--no-edit", "other", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert [i["id"] for i in json.loads(doc.read_text())["todoList"]["items"]] == ["t1", "t2", "t3"]

    undone = run_cli("uninstall", "--global", cwd=git_repo)
    assert undone.returncode == 0, undone.stderr
    assert (
        run_git(git_repo, "config", "--global", "--get-regexp", "vcontext", check=False).stdout
        == ""
    )
    attrs = run_git(git_repo, "check-attr", "merge", "--", "todo.vcontext.json").stdout
    assert attrs.strip().endswith("unspecified")


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_local_and_global_together_is_a_usage_error_that_changes_nothing(
    git_repo: Path, command: str
) -> None:
    proc = run_cli(command, "--local", "--global", cwd=git_repo)
    assert proc.returncode == 2
    assert b"--local and --global cannot be used together" in proc.stderr
    assert not (git_repo / ".gitattributes").exists()
    assert (
        run_git(git_repo, "config", "--global", "--get-regexp", "vcontext", check=False).stdout
        == ""
    )
    assert (
        run_git(git_repo, "config", "--local", "--get-regexp", "vcontext", check=False).stdout == ""
    )


def _config(repo: Path, key: str) -> str:
    return run_git(repo, "config", "--local", "--get", key, check=False).stdout.strip()


def test_a_foreign_driver_is_refused_with_a_hint_kept_by_uninstall_and_replaced_by_force(
    git_repo: Path,
) -> None:
    """PRODUCT.md install: never clobbers foreign config; refuses with a hint, --force overrides."""
    run_git(git_repo, "config", "merge.vcontext.driver", "other-tool %O %A %B")
    refused = run_cli("install", "--no-hooks", cwd=git_repo)
    assert refused.returncode == 2
    assert refused.stderr.count(b"\n") == 1 and b"--force" in refused.stderr
    assert _config(git_repo, "merge.vcontext.driver") == "other-tool %O %A %B"
    assert not (git_repo / ".gitattributes").exists()  # nothing half-installed
    assert run_cli("uninstall", cwd=git_repo).returncode == 0
    assert _config(git_repo, "merge.vcontext.driver") == "other-tool %O %A %B"
    forced = run_cli("install", "--no-hooks", "--force", cwd=git_repo)
    assert forced.returncode == 0, forced.stderr
    assert "merge-driver" in _config(git_repo, "merge.vcontext.driver")


def test_other_attributes_for_our_patterns_are_refused_unless_forced(git_repo: Path) -> None:
    attributes = git_repo / ".gitattributes"
    attributes.write_text("*.vcontext.json merge=union\n")
    refused = run_cli("install", "--no-hooks", cwd=git_repo)
    assert refused.returncode == 2 and b"merge=union" in refused.stderr
    assert attributes.read_text() == "*.vcontext.json merge=union\n"
    assert run_cli("install", "--no-hooks", "--force", cwd=git_repo).returncode == 0
    assert "merge=union" not in attributes.read_text()
    assert "*.vcontext.json merge=vcontext" in attributes.read_text()


def test_core_hooks_path_is_left_to_its_hook_manager(git_repo: Path) -> None:
    run_git(git_repo, "config", "core.hooksPath", ".husky")
    refused = run_cli("install", cwd=git_repo)
    assert refused.returncode == 2 and b"core.hooksPath" in refused.stderr
    assert not (git_repo / ".husky").exists()
    # refused before anything changed: no driver, no attributes half-installed
    assert not (git_repo / ".gitattributes").exists()
    assert _config(git_repo, "merge.vcontext.driver") == ""
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0


def test_m16_install_names_the_virtual_base_driver_doctor_checks_it_uninstall_removes_it(
    git_repo: Path,
) -> None:
    """merge.vcontext.recursive -> vcontext-base, the driver of criss-cross inner merges."""
    assert run_cli("install", cwd=git_repo).returncode == 0
    assert _config(git_repo, "merge.vcontext.recursive") == "vcontext-base"
    base_driver = _config(git_repo, "merge.vcontext-base.driver")
    assert "merge-driver --virtual-base %O %A %B" in base_driver and "-l %L" in base_driver
    doctor = run_cli("doctor", cwd=git_repo)
    assert doctor.returncode == 0 and b"criss-cross merges keep a structural" in doctor.stdout
    run_git(git_repo, "config", "--unset", "merge.vcontext.recursive")  # an older install
    doctor = run_cli("doctor", cwd=git_repo)
    assert doctor.returncode == 1
    assert b"problem: merge.vcontext.recursive is not set" in doctor.stdout
    assert run_cli("install", cwd=git_repo).returncode == 0  # install repairs it
    assert run_cli("doctor", cwd=git_repo).returncode == 0
    assert run_cli("uninstall", cwd=git_repo).returncode == 0
    left = run_git(git_repo, "config", "--local", "--get-regexp", "^merge\\.", check=False)
    assert left.stdout == ""
    assert "[merge" not in (git_repo / ".git" / "config").read_text()  # no empty sections


def test_a_foreign_recursive_driver_is_refused_kept_by_uninstall_and_replaced_by_force(
    git_repo: Path,
) -> None:
    run_git(git_repo, "config", "merge.vcontext.recursive", "binary")
    refused = run_cli("install", "--no-hooks", cwd=git_repo)
    assert refused.returncode == 2 and b"merge.vcontext.recursive" in refused.stderr
    assert run_cli("uninstall", cwd=git_repo).returncode == 0
    assert _config(git_repo, "merge.vcontext.recursive") == "binary"
    assert run_cli("install", "--no-hooks", "--force", cwd=git_repo).returncode == 0
    assert _config(git_repo, "merge.vcontext.recursive") == "vcontext-base"
