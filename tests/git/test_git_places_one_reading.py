"""Every reader of git's places (the git directory and the common directory) finds what git
finds, wherever it starts and whatever the environment says (PRODUCT.md, "Installing never
breaks git": "whatever the environment"; "One truth": the merge driver's labels, the
settings ``configread`` watches, the hook's verdict cache and sync's folders read the same
repository). Real git in temporary repositories: plain, a subfolder, inside ``.git``, a
linked worktree, a submodule, a bare repository and its subfolder, ``GIT_DIR`` relative and
naming a ``.git`` file, ``GIT_COMMON_DIR`` relative, a ``.git`` folder that is no git
directory (git looks further up)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from git_vcontext.fsio import common_dir, find_common_dir, find_git_dir
from git_vcontext.gitio import open_repo, operation
from git_vcontext.gitio.places import common_dir as libgit2_common_dir
from helpers.run import run_git


def _gits(start: Path, env: dict[str, str]) -> tuple[str, str]:
    """git's own answer in ``start`` with ``env``: (git directory, common directory)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_COMMON_DIR")}
    out = subprocess.run(
        ["git", "rev-parse", "--absolute-git-dir", "--git-common-dir"],
        cwd=start,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return os.path.realpath(out[0]), os.path.realpath(os.path.join(start, out[1]))


def _places(root: Path) -> dict[str, tuple[Path, dict[str, str]]]:
    main = root / "main"
    main.mkdir()
    run_git(main, "init", "-q", "-b", "main")
    (main / "sub" / "deeper").mkdir(parents=True)
    (main / "sub" / "deeper" / "f").write_text("x\n")
    run_git(main, "add", ".")
    run_git(main, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one")
    run_git(main, "worktree", "add", "-q", str(root / "linked"), "-b", "other")
    bare = root / "bare.git"
    run_git(root, "init", "-q", "--bare", str(bare))
    lib = root / "lib"
    lib.mkdir()
    run_git(lib, "init", "-q")
    run_git(lib, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q",
            "--allow-empty", "-m", "lib")  # fmt: skip
    run_git(main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    (main / "sub" / "notgit" / ".git").mkdir(parents=True)  # no HEAD, objects, refs
    return {
        "top": (main, {}),
        "subfolder": (main / "sub" / "deeper", {}),
        "inside .git": (main / ".git" / "refs", {}),
        "linked worktree": (root / "linked", {}),
        "linked worktree's subfolder": (root / "linked" / "sub", {}),
        "submodule": (main / "lib", {}),
        "bare": (bare, {}),
        "bare's subfolder": (bare / "refs" / "heads", {}),
        "a .git folder that is none": (main / "sub" / "notgit", {}),
        "GIT_DIR relative": (root / "linked" / "sub", {"GIT_DIR": "../../main/.git"}),
        "GIT_DIR naming a .git file": (root, {"GIT_DIR": "linked/.git"}),
        "GIT_COMMON_DIR relative": (
            root / "linked",
            {"GIT_DIR": "../main/.git/worktrees/linked", "GIT_COMMON_DIR": "../main/.git"},
        ),
    }


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, str]]]:
    return _places(tmp_path_factory.mktemp("places"))


CASES = [
    "top",
    "subfolder",
    "inside .git",
    "linked worktree",
    "linked worktree's subfolder",
    "submodule",
    "bare",
    "bare's subfolder",
    "a .git folder that is none",
    "GIT_DIR relative",
    "GIT_DIR naming a .git file",
    "GIT_COMMON_DIR relative",
]


def _real(path: str | None) -> str | None:
    return None if path is None else os.path.realpath(path)


@pytest.mark.parametrize("case", CASES)
def test_every_reader_finds_the_git_and_common_directories_git_finds(
    places: dict[str, tuple[Path, dict[str, str]]], case: str
) -> None:
    start, env = places[case]
    git_dir, common = _gits(start, env)
    here = str(start)

    assert _real(find_git_dir(here, env)) == git_dir
    assert _real(operation.find_git_dir(here, env)) == git_dir  # the merge driver's
    assert _real(find_common_dir(here, env)) == common  # the hook's
    assert _real(common_dir(git_dir, env, here)) == common


@pytest.mark.parametrize("case", [c for c in CASES if "GIT_" not in c])
def test_libgit2s_repository_has_the_common_directory_git_finds(
    places: dict[str, tuple[Path, dict[str, str]]], case: str
) -> None:
    """``gitio.places.common_dir`` (hooks folder, verdict cache, sync's folders) of the
    repository libgit2 opens there: git's."""
    start, env = places[case]
    _, common = _gits(start, env)
    assert str(libgit2_common_dir(open_repo(start))) == common
