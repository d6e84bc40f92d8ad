"""install / uninstall on awkward .gitattributes files: the user's bytes survive both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

import git_vcontext
from conftest import run_cli


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
