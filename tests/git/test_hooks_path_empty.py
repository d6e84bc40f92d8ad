"""An empty ``core.hooksPath`` (PRODUCT.md, Installing never breaks git: hooks go where git
runs them). git joins the value and a hook's name with "/": it looks for ``/pre-push``,
outside every repository, and runs none of the repository's own; we answered
``.git/hooks``, so ``install`` put the shim where git never runs it. ``gitio.places``
now answers what ``git rev-parse --git-path hooks/NAME`` answers, and ``install`` (and
``install --server``) refuse in one line, nothing written."""

from __future__ import annotations

from pathlib import Path

from git_vcontext.gitio import open_repo
from git_vcontext.gitio.places import hooks_folder
from helpers.run import run_cli, run_git


def _git_path(repo: Path, name: str) -> Path:
    said = run_git(repo, "rev-parse", "--git-path", f"hooks/{name}").stdout
    text = said.decode() if isinstance(said, bytes) else said
    path = Path(text.strip())
    return path if path.is_absolute() else repo / path


def test_empty_hooks_path_is_where_git_looks_for_hooks(git_repo: Path, tmp_path: Path) -> None:
    run_git(git_repo, "config", "core.hooksPath", "")
    assert hooks_folder(open_repo(git_repo)) / "pre-push" == _git_path(git_repo, "pre-push")
    bare = tmp_path / "server.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    run_git(bare, "config", "core.hooksPath", "")
    got = hooks_folder(open_repo(bare), receiving=True) / "post-receive"
    assert got == _git_path(bare, "post-receive")


def test_install_refuses_an_empty_hooks_path_in_one_line(git_repo: Path, tmp_path: Path) -> None:
    run_git(git_repo, "config", "core.hooksPath", "")
    hooks = git_repo / ".git" / "hooks"
    before = sorted(p.name for p in hooks.iterdir())
    done = run_cli("install", cwd=git_repo)
    said = done.stderr.decode().strip()
    assert done.returncode == 2, said
    assert "\n" not in said
    assert "core.hooksPath is set but empty" in said
    assert "git config --unset core.hooksPath" in said
    assert sorted(p.name for p in hooks.iterdir()) == before  # no shim git would never run
    doctor = run_cli("doctor", cwd=git_repo).stdout.decode()
    assert "pre-push hook not installed (core.hooksPath is set but empty" in doctor
    bare = tmp_path / "server.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    run_git(bare, "config", "core.hooksPath", "")
    served = run_cli("install", "--server", cwd=bare)
    assert served.returncode == 2, served.stderr
    assert "core.hooksPath is set but empty" in served.stderr.decode()
    assert not (bare / "hooks" / "post-receive").exists()
