"""Every command opens the repository git opens, whatever the environment says (PRODUCT.md
"Installing never breaks git": "whatever the environment"): ``GIT_DIR`` and
``GIT_WORK_TREE`` (relative ones from the folder the command runs in), a work tree git
takes from the folder it runs in, ``GIT_CEILING_DIRECTORIES``; and one common directory
(``GIT_COMMON_DIR``: the pre-push hook's fast path and ``places.common_dir`` never look in
two folders). Compared with what ``git rev-parse`` answers in the same place."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from git_vcontext.errors import OperationalError
from git_vcontext.fsio import across_filesystems, find_common_dir, find_git_dir
from git_vcontext.gitio import open_repo
from git_vcontext.gitio.places import common_dir
from helpers.run import run_cli, run_git

DOC = "todo.vcontext.json"


def _todo(title: str) -> str:
    row = {"id": "t1", "title": title, "status": "pending"}
    return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": [row]}})


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``main`` (two commits of a todo list, a folder ``sub/deeper``), an empty folder
    ``elsewhere`` beside it, a copy of the files in ``other`` and a user's git config file
    naming ``other`` as work tree."""
    root = tmp_path_factory.mktemp("env").resolve()
    main = root / "main"
    (main / "sub" / "deeper").mkdir(parents=True)
    run_git(main, "init", "-q", "-b", "main")
    for title in ("one", "two"):
        (main / DOC).write_text(_todo(title))
        run_git(main, "add", "-A")
        run_git(main, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", title)
    (root / "elsewhere").mkdir()
    (root / "other").mkdir()
    (root / "other" / DOC).write_text(_todo("two"))
    # a user's file naming a work tree: git's set-up reads core.worktree from the
    # repository's own file only
    (root / "worktree.gitconfig").write_text(f"[core]\n\tworktree = {root / 'other'}\n")
    return root


def _gits(start: Path, env: dict[str, str]) -> tuple[str, str | None] | None:
    """git's answer in ``start`` with ``env``: (git directory, top of the work tree or None
    when bare); None when git finds no repository."""
    done = subprocess.run(
        ["git", "rev-parse", "--absolute-git-dir", "--is-bare-repository", "--show-toplevel"],
        cwd=start,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        assert "not a git repository" in done.stderr
        return None
    lines = done.stdout.splitlines()
    top = None if lines[1] == "true" else os.path.realpath(lines[2])
    return os.path.realpath(lines[0]), top


def _ours(start: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> object:
    """``open_repo``'s answer run in ``start`` with ``env``, as ``_gits``."""
    with monkeypatch.context() as patched:
        for name, value in env.items():
            patched.setenv(name, value)
        patched.chdir(start)
        try:
            repo = open_repo(".")
        except OperationalError as exc:
            return None if "not a git repository" in exc.message else exc.message
    top = None if repo.workdir is None else os.path.realpath(repo.workdir)
    return os.path.realpath(repo.path), top


ENVIRONMENTS = {
    "GIT_DIR alone, from another folder": ("elsewhere", {"GIT_DIR": "../main/.git"}),
    "GIT_DIR alone, from a subfolder": ("main/sub", {"GIT_DIR": "../.git"}),
    "GIT_DIR and GIT_WORK_TREE": (
        "elsewhere",
        {"GIT_DIR": "../main/.git", "GIT_WORK_TREE": "../other"},
    ),
    "GIT_WORK_TREE alone": ("main/sub", {"GIT_WORK_TREE": "../../other"}),
    "GIT_DIR alone, core.worktree in the user's file only": (
        "elsewhere",
        {"GIT_DIR": "../main/.git", "GIT_CONFIG_GLOBAL": "{root}/worktree.gitconfig"},
    ),
    "a ceiling above the repository": ("main/sub/deeper", {"GIT_CEILING_DIRECTORIES": "{root}"}),
    "the top as ceiling": ("main/sub/deeper", {"GIT_CEILING_DIRECTORIES": "{root}/main"}),
    "a ceiling between": ("main/sub/deeper", {"GIT_CEILING_DIRECTORIES": "{root}/main/sub"}),
    "the start as ceiling": ("main/sub", {"GIT_CEILING_DIRECTORIES": "{root}/main/sub"}),
    "the top as ceiling, started at the top": ("main", {"GIT_CEILING_DIRECTORIES": "{root}/main"}),
    "a relative ceiling (ignored)": ("main/sub", {"GIT_CEILING_DIRECTORIES": "main"}),
    "a ceiling among others": (
        "main/sub",
        {"GIT_CEILING_DIRECTORIES": os.pathsep.join(["/nowhere", "rel", "{root}/main"])},
    ),
    "a ceiling after an empty entry": (
        "main/sub",
        {"GIT_CEILING_DIRECTORIES": os.pathsep.join(["", "{root}/main/"])},
    ),
    "GIT_DIR wins over a ceiling": (
        "main/sub",
        {"GIT_DIR": "../.git", "GIT_CEILING_DIRECTORIES": "{root}/main"},
    ),
}


@pytest.mark.parametrize("case", list(ENVIRONMENTS))
def test_open_repo_opens_the_repository_and_work_tree_git_opens(
    root: Path, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    where, given = ENVIRONMENTS[case]
    env = {k: v.replace("{root}", str(root)) for k, v in given.items()}
    start = root / where
    theirs = _gits(start, env)

    assert _ours(start, env, monkeypatch) == theirs
    found = find_git_dir(str(start), {**os.environ, **env})
    assert (None if found is None else os.path.realpath(found)) == (theirs and theirs[0])


def _cli(start: Path, env: dict[str, str], *args: str) -> tuple[int, str, str]:
    done = run_cli(*args, cwd=start, env=env)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def test_commands_read_the_repository_git_dir_and_git_work_tree_name(root: Path) -> None:
    """``GIT_DIR=… GIT_WORK_TREE=… git vcontext …`` from a folder outside the repository:
    what the same command says at the top of the work tree (paths from the top, as git
    reads them when it runs outside the work tree)."""
    env = {"GIT_DIR": "../main/.git", "GIT_WORK_TREE": "../main"}
    elsewhere, main = root / "elsewhere", root / "main"
    for args in (
        ["log", "--format", "json", "--", f"{DOC}#t1"],
        ["status", "--format", "json"],
        ["validate", "--format", "json"],
        ["diff", "HEAD~1", "HEAD", "--format", "json"],
    ):
        at_top = _cli(main, {}, *args)
        assert at_top[0] == 0, (args, at_top)
        code, out, err = _cli(elsewhere, env, *args)
        # (validate names files from the folder it runs in: ../main/todo…, a path that works)
        assert (code, out.replace('"../main/', '"'), err) == at_top, args


def test_a_command_below_a_ceiling_finds_no_repository_as_git_does(root: Path) -> None:
    env = {"GIT_CEILING_DIRECTORIES": str(root / "main")}
    start = root / "main" / "sub"
    assert run_git(start, "status", check=False).returncode == 0
    assert _gits(start, env) is None
    for args in (["validate"], ["status"], ["log", "--", f"../{DOC}#t1"]):
        code, out, err = _cli(start, env, *args)
        assert (code, out) == (3, ""), (args, err)
        assert err.count("\n") == 1, err
        assert "not a git repository" in err


def test_the_hooks_fast_path_and_places_read_one_common_directory(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``GIT_COMMON_DIR`` naming the folder libgit2 reads: one folder for the hook's fast
    path (``fsio.find_common_dir``) and ``places.common_dir`` (the verdict cache)."""
    main = root / "main"
    monkeypatch.chdir(main / "sub")
    monkeypatch.setenv("GIT_COMMON_DIR", "../.git")
    fast = find_common_dir(os.getcwd(), os.environ)
    assert fast is not None
    assert os.path.realpath(fast) == str(common_dir(open_repo("."))) == str(main / ".git")


def test_a_common_directory_libgit2_cannot_read_is_refused_in_one_line(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``GIT_COMMON_DIR`` naming another folder than the one libgit2 reads refs and objects
    from: git would read one repository and the command another (the hook's fast path
    looks for its verdicts in one folder, the check writes them in the other); refused."""
    other = root / "other-git"
    if not other.exists():
        run_git(root, "init", "-q", "--bare", str(other))
    main = root / "main"
    env = {"GIT_COMMON_DIR": str(other)}
    monkeypatch.chdir(main)
    monkeypatch.setenv("GIT_COMMON_DIR", str(other))
    assert os.path.realpath(find_common_dir(str(main), os.environ) or "") == str(other)
    with pytest.raises(OperationalError, match="GIT_COMMON_DIR"):
        open_repo(".")
    monkeypatch.delenv("GIT_COMMON_DIR")
    code, out, err = _cli(main, env, "status")
    assert (code, out) == (3, "")
    assert err.count("\n") == 1, err
    assert "unset GIT_COMMON_DIR" in err


def test_a_git_dir_that_names_no_repository_is_said_in_one_line(root: Path) -> None:
    """git refuses it ("not a git repository: …"), even inside another repository's work
    tree; so does every command, naming the variable (it opened the work tree's repository)."""
    main = root / "main"
    env = {"GIT_DIR": "nothere"}
    assert (
        subprocess.run(
            ["git", "status"], cwd=main, env={**os.environ, **env}, capture_output=True
        ).returncode
        == 128
    )
    code, out, err = _cli(main, env, "status")
    assert (code, out) == (3, "")
    assert err.count("\n") == 1, err
    assert f"not a git repository: {main / 'nothere'}" in err
    assert "GIT_DIR" in err


def test_a_clone_with_a_separate_git_dir_has_its_own_work_tree(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``git clone --separate-git-dir``: the work tree's ``.git`` is a file naming a git
    directory elsewhere, with no ``core.worktree``; git's work tree is the folder holding
    that file (libgit2, opening the git directory itself, took its parent), and ``log``
    finds the document's commits there."""
    clone, store = root / "separate", root / "separate-git"
    if not clone.exists():
        run_git(root, "clone", "-q", "--separate-git-dir", str(store), "main", str(clone))
        (clone / "sub").mkdir()
    for start in (clone, clone / "sub"):
        assert _ours(start, {}, monkeypatch) == _gits(start, {}) == (str(store), str(clone))
    code, out, err = _cli(clone, {}, "log", "--format", "json", "--", f"{DOC}#t1")
    assert (code, err) == (0, ""), err
    assert out == _cli(root / "main", {}, "log", "--format", "json", "--", f"{DOC}#t1")[1]


def test_a_separate_git_dir_named_dot_git_still_has_the_work_tree_of_its_file(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The separate git directory may itself be named ``.git`` (``--separate-git-dir
    store/.git``): git's work tree is still the folder holding the ``.git`` file, never
    ``store/`` (the git directory's name was taken for the usual layout's)."""
    clone, store = root / "separate-dot", root / "dot-store"
    if not clone.exists():
        store.mkdir()
        run_git(root, "clone", "-q", "--separate-git-dir", str(store / ".git"), "main", str(clone))
        (clone / "sub").mkdir()
    for start in (clone, clone / "sub"):
        theirs = (str(store / ".git"), str(clone))
        assert _ours(start, {}, monkeypatch) == _gits(start, {}) == theirs


@pytest.mark.parametrize("value", ["1", "-1", "1k", "0x1", "010", "TRUE", "on", "0", "", "No"])
def test_discovery_across_file_systems_is_read_as_git_reads_a_boolean(value: str) -> None:
    """``GIT_DISCOVERY_ACROSS_FILESYSTEM`` (``git_env_bool``: git's boolean, as a setting's):
    the one reading of git's booleans (``gitvalues.git_bool``), compared with git's own
    answer for the same text (``1k`` and ``0x1`` are true there; a second reading of it in
    fsio took them for false)."""
    gits = subprocess.run(
        ["git", "-c", f"t.v={value}", "config", "--type=bool", "t.v"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert across_filesystems({"GIT_DISCOVERY_ACROSS_FILESYSTEM": value}) == (gits == "true")
