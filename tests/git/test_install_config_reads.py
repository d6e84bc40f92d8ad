"""``install`` and ``uninstall`` read the settings of their scope from one listing, not one
``git config`` per key, and write exactly what they wrote before (PRODUCT.md, Installing
never breaks git: ``uninstall`` removes exactly what this ``install`` added; One truth:
settings read as git reads them). Real git in a temporary repository, its processes
counted with ``GIT_TRACE``."""

from __future__ import annotations

from pathlib import Path

from helpers.run import run_cli, run_git


def _configs(repo: Path, trace: Path, *args: str) -> list[str]:
    """The ``git config`` command lines the command ran."""
    trace.unlink(missing_ok=True)
    done = run_cli(*args, cwd=repo, env={"GIT_TRACE": str(trace)})
    assert done.returncode == 0, done.stderr
    lines = trace.read_text().splitlines()
    return [ln.split("trace: built-in: ", 1)[1] for ln in lines if "built-in: git config" in ln]


def test_install_and_uninstall_read_their_scope_once_not_per_key(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    run_git(tmp_path, "init", "-q", str(repo))
    before = run_git(repo, "config", "--local", "--list").stdout
    trace = tmp_path / "trace"

    installed = _configs(repo, trace, "install", "--local")
    assert not [c for c in installed if "--get-all" in c or "--get-regexp" in c], installed
    assert len([c for c in installed if "--local --list" in c]) <= 2, installed
    assert "merge.vcontext.driver" in run_git(repo, "config", "--local", "--list").stdout

    again = _configs(repo, trace, "install", "--local")  # idempotent: nothing to write
    assert not [c for c in again if "--replace-all" in c or "--add" in c], again
    assert len(again) <= 2, again

    removed = _configs(repo, trace, "uninstall", "--local")
    assert not [c for c in removed if "--get-all" in c or "--get-regexp" in c], removed
    assert len([c for c in removed if "--local --list" in c]) <= 2, removed
    assert run_git(repo, "config", "--local", "--list").stdout == before
