"""git's settings are read as git reads them, with one ``git config`` per command where
libgit2 cannot read them itself (``gitio.configread``).

PRODUCT.md, "Sync at scale" (what a sync costs) and the git config rules of the command
line contract (a setting in the user's ``GIT_CONFIG_GLOBAL`` file counts as git counts it):
with a ``GIT_CONFIG_GLOBAL`` of the user's, every setting a ``sync --push`` read was a
``git config`` process of its own, 26 per sync (about 1.5 ms of CPU each); now one listing
answers them all, and answers exactly what git answers, an edit seen at the next read.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pygit2
import pytest

from git_vcontext.gitio import config_flag, config_hooks, config_value, configread, set_config
from git_vcontext.gitio.settings import merge_settings
from git_vcontext.gitio.transport import remote_config
from helpers.run import add_packs, run_git
from helpers.sync_repos import commit_on, shared_with_alice, status, sync

VALUES = [
    "yes", "On", "TRUE", "off", "No", "", "0", "1", "-1", "2", "1k", "1K", "2g", "1g",
    "0x10", "0X0", "010", "08", " 7", "7 ", "+3", "abc", "2147483647", "2147483648",
    "-2147483648", "-2147483649", "4194304k", "0k", "1kk", "1.5",
]  # fmt: skip


def _git(repo: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    return done.returncode, done.stdout


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(a repository, the user's own GIT_CONFIG_GLOBAL file: libgit2 cannot read it)."""
    repo = tmp_path / "r"
    pygit2.init_repository(str(repo))
    mine = tmp_path / "team.gitconfig"
    mine.write_text("[vcontext]\n\tagentPrefix = bots/\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(mine))
    configread.forget()
    return repo, mine


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The git commands ``configread`` runs from now on."""
    from git_vcontext.gitio import configread

    ran: list[list[str]] = []
    real = configread.git

    def counting(args: list[str], **kwargs: Any) -> Any:
        ran.append(list(args))
        return real(args, **kwargs)

    monkeypatch.setattr(configread, "git", counting)
    return ran


def test_every_value_reads_as_git_config_get_reads_it(elsewhere: tuple[Path, Path]) -> None:
    """Each value of VALUES, as a string and as a boolean, exactly as ``git config --get``
    and ``git config --type=bool --get`` say (git refusing a boolean: None)."""
    repo, mine = elsewhere
    body = "".join(f'[v "n{i}"]\n\tk = "{v}"\n' for i, v in enumerate(VALUES))
    mine.write_text(body + '[x]\n\tbare\n\tmany = 1\n\tmany = last\n[Sec "SubCase"]\n\tKey = V\n')
    opened = pygit2.Repository(str(repo))
    keys = [f"v.n{i}.k" for i in range(len(VALUES))]
    keys += ["x.bare", "x.many", "X.MANY", "sec.SubCase.key", "SEC.SubCase.KEY", "sec.subcase.key"]
    keys += ["x.none"]
    for key in keys:
        code, said = _git(repo, "config", "--get", "--", key)
        assert config_value(opened, key) == (said[:-1] if code == 0 else None), key
        code, said = _git(repo, "config", "--type=bool", "--get", "--", key)
        expected = None if code != 0 else said.strip() == "true"
        assert configread.flag(str(repo), key) == expected, (key, said)
        assert config_flag(opened, key, False) is (expected or False), key


def test_a_command_lists_the_settings_once(
    elsewhere: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every read of one repository's settings, in its git directory or its work tree
    (the remote's keys, the merge settings, hooks), from one ``git config --list``."""
    repo, _ = elsewhere
    run_git(repo, "config", "merge.conflictStyle", "diff3")
    run_git(repo, "remote", "add", "origin", "https://example.com/x.git")
    ran = _counted(monkeypatch)
    opened = pygit2.Repository(str(repo))
    for _ in range(3):
        assert config_value(opened, "vcontext.agentPrefix") == "bots/"
        assert config_flag(opened, "vcontext.syncLease", True) is True
        assert config_value(opened, "branch.main.remote") is None
        assert not config_hooks(opened)
    assert remote_config(str(repo), "origin").urls == ("https://example.com/x.git",)
    assert merge_settings(cwd=str(repo)).diff3
    assert [a[:2] for a in ran] == [["config", "--list"]]


def test_an_edit_is_read_at_the_next_read(
    elsewhere: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-lived process (the MCP server) sees what git would: the user's file edited,
    a setting written here, a file an include names created after the first read, the
    branch an ``includeIf "onbranch:…"`` names checked out."""
    repo, mine = elsewhere
    opened = pygit2.Repository(str(repo))
    assert config_value(opened, "vcontext.agentPrefix") == "bots/"
    mine.write_text("[vcontext]\n\tagentPrefix = robots/\n")
    assert config_value(opened, "vcontext.agentPrefix") == "robots/"
    set_config(opened, "vcontext.agentPrefix", "mine/")
    assert config_value(opened, "vcontext.agentPrefix") == "mine/"
    later = tmp_path / "later.gitconfig"
    mine.write_text(f"[include]\n\tpath = {later.name}\n")
    assert config_value(opened, "vcontext.syncTimeout") is None
    later.write_text("[vcontext]\n\tsyncTimeout = 9\n")
    assert config_value(opened, "vcontext.syncTimeout") == "9"
    run_git(repo, "commit", "-q", "--allow-empty", "-m", "one")
    mine.write_text('[includeIf "onbranch:side"]\n\tpath = later.gitconfig\n')
    assert config_value(opened, "vcontext.syncTimeout") is None
    run_git(repo, "switch", "-q", "-c", "side")
    assert config_value(opened, "vcontext.syncTimeout") == "9"
    ran = _counted(monkeypatch)
    assert config_value(opened, "vcontext.syncTimeout") == "9"
    assert ran == []  # unchanged: not read again


def test_without_this_commands_git_dash_c(
    elsewhere: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``given`` False reads as a path remote's receive-pack reads (no ``git -c``)."""
    repo, _ = elsewhere
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "/given")
    opened = pygit2.Repository(str(repo))
    assert config_value(opened, "core.hooksPath") == "/given"
    assert config_value(opened, "core.hooksPath", given=False) is None


def test_a_sync_push_lists_each_repositorys_settings_once(git_repo: Path, tmp_path: Path) -> None:
    """A whole ``sync --push`` to a path with the user's own GIT_CONFIG_GLOBAL: one ``git
    config`` for the clone, one for the remote it reads in process (26 before in all), the
    same outcome."""
    shared_with_alice(git_repo, tmp_path / "remote.git")
    commit_on(git_repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "t")
    mine = tmp_path / "team.gitconfig"
    mine.write_text("[vcontext]\n\tleaseSeconds = 20\n")
    trace = tmp_path / "trace"
    code, out, err = sync(
        git_repo, "alice", "--push", "origin",
        env={"GIT_CONFIG_GLOBAL": str(mine), "GIT_TRACE": str(trace)},
    )  # fmt: skip
    assert code == 0, out + err
    assert "pushed to origin" in out
    configs = [ln for ln in trace.read_text().splitlines() if "built-in: git config" in ln]
    assert len(configs) == 2, configs
    assert all("config --list" in ln for ln in configs), configs


def test_a_work_tree_holding_head_and_objects_is_read_as_git_finds_it(
    elsewhere: tuple[Path, Path],
) -> None:
    """A work tree whose top holds a file ``HEAD`` and a folder ``objects`` (documents, a
    fixture) is a work tree to git, which looks for ``.git`` first: its settings are the
    repository's (PRODUCT.md, git config as git reads it), not none at all (the top taken
    for a git directory: git refused it and every setting read as unset)."""
    repo, _ = elsewhere
    run_git(repo, "config", "merge.conflictStyle", "diff3")
    run_git(repo, "remote", "add", "origin", "https://example.com/x.git")
    (repo / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "objects").mkdir()
    (repo / "sub" / "objects").mkdir(parents=True)
    (repo / "sub" / "HEAD").write_text("ref: refs/heads/main\n")
    for where in (repo, repo / "sub"):
        code, said = _git(where, "config", "--get", "merge.conflictStyle")
        assert (code, said) == (0, "diff3\n")
        assert configread.value(str(where), "merge.conflictStyle") == "diff3", where
    assert remote_config(str(repo), "origin").urls == ("https://example.com/x.git",)
    assert merge_settings(cwd=str(repo)).diff3


def test_an_int_setting_reads_as_git_config_type_int(tmp_path: Path) -> None:
    """A remote's ``gc.auto`` and ``gc.autoPackLimit`` (whether a push's ``gc --auto``
    has work: PRODUCT.md Sync at scale, the remote maintained as git maintains it) read
    as ``git config --type=int`` reads them, with ``gitvalues.git_int``, the one parser
    of git's numbers: hex ``0x10``, octal ``010`` and a number out of an int's range
    read as git reads them (``int()`` took ``010`` for 10 and ``0x10`` for no number)."""
    from git_vcontext.gitio.localremote import _int_setting

    where = tmp_path / "remote.git"
    pygit2.init_repository(str(where), bare=True)
    for said in VALUES:
        run_git(where, "config", "gc.autoPackLimit", said)
        code, out = _git(where, "config", "--type=int", "--get", "gc.autoPackLimit")
        number = int(out) if code == 0 else None  # (--type=int reads 64 bits; gc's an int)
        expected = number if number is not None and abs(number) < 1 << 31 else 50
        got = _int_setting(pygit2.Repository(str(where)), "gc.autoPackLimit", 50)
        assert got == expected, (said, out)


def test_a_remotes_gc_thresholds_are_its_own_not_this_commands_git_c(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether the remote's ``gc --auto`` has work is read as that ``gc`` reads it: a push
    to a path runs the remote's receive-pack (and its ``gc --auto``) without this command's
    ``git -c`` settings (git clears ``GIT_CONFIG_PARAMETERS`` for it), so ``git -c
    gc.autoPackLimit=0 vcontext sync --push`` must not take the remote's maintenance as
    off and skip it (PRODUCT.md, Sync at scale: the remote maintained as git maintains it;
    Installing never breaks git)."""
    from git_vcontext.gitio.localremote import LocalRemote

    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", str(remote))
    run_git(remote, "config", "gc.autoPackLimit", "1")
    add_packs(remote, 2)  # two packs, over the remote's limit of one
    clone = tmp_path / "clone"
    run_git(tmp_path, "init", "-q", str(clone))
    local = LocalRemote(pygit2.Repository(str(clone)), str(remote), remote)
    assert local.maintenance_due()
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'gc.autopacklimit'='0' 'gc.auto'='0'")
    configread.forget()
    # the remote's receive-pack would run gc --auto: git's own answer, without our -c
    env = {k: v for k, v in os.environ.items() if k != "GIT_CONFIG_PARAMETERS"}
    said = subprocess.run(
        ["git", "config", "--get", "gc.autoPackLimit"], cwd=remote, env=env,
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert said == "1\n"
    assert LocalRemote(pygit2.Repository(str(clone)), str(remote), remote).maintenance_due()


def test_settings_in_an_include_git_makes_by_a_remotes_url_count_everywhere(
    tmp_path: Path,
) -> None:
    """``includeIf "hasconfig:remote.*.url:…"`` (git 2.36; a team's settings for every
    clone of its server) is evaluated by git, not by libgit2: every setting the tool reads
    is git's answer (PRODUCT.md, Installing never breaks git, "whatever the environment";
    One truth), the agent prefix of ``fork`` and ``status``, an agent's email, a flag."""
    from git_vcontext.branches.agents import agent_prefix
    from helpers.run import run_cli

    repo_dir = tmp_path / "r"
    run_git(tmp_path, "init", "-q", "-b", "main", str(repo_dir))
    run_git(repo_dir, "remote", "add", "origin", "https://example.com/team/x.git")
    team = tmp_path / "team.inc"
    team.write_text(
        "[vcontext]\n\tagentPrefix = bots/\n\tsyncLease = false\n"
        '[vcontext "agent.alice"]\n\temail = alice@team.example\n'
        '[url "/srv/elsewhere.git"]\n\tpushInsteadOf = /srv/x.git\n'
    )
    with (repo_dir / ".git" / "config").open("a") as fh:
        fh.write('[includeIf "hasconfig:remote.*.url:https://example.com/team/**"]\n')
        fh.write(f"\tpath = {team}\n")
    assert _git(repo_dir, "config", "--get", "vcontext.agentPrefix") == (0, "bots/\n")

    repo = pygit2.Repository(str(repo_dir))
    assert config_value(repo, "vcontext.agentPrefix") == "bots/"
    assert agent_prefix(repo) == "bots/"
    assert config_value(repo, "vcontext.agent.alice.email") == "alice@team.example"
    assert config_flag(repo, "vcontext.syncLease", True) is False
    from git_vcontext.gitio.localremote import LocalRemote

    assert LocalRemote(repo, "/srv/x.git", Path("/srv/x.git")).pushes_elsewhere()

    (repo_dir / "t.vcontext.json").write_text(
        '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}\n'
    )
    run_git(repo_dir, "add", ".")
    run_git(repo_dir, "-c", "user.name=t", "-c", "user.email=t@e.x", "commit", "-qm", "one")
    done = run_cli("fork", "alice", cwd=repo_dir)
    assert done.returncode == 0, done.stderr
    branches = _git(repo_dir, "for-each-ref", "--format=%(refname)", "refs/heads/")[1]
    assert "refs/heads/bots/alice\n" in branches, branches


def _git_built_elsewhere(root: Path, *, linked: bool) -> tuple[Path, Path]:
    """A git on ``PATH`` built with another prefix than /usr: ``PREFIX/bin/git`` reading
    its system settings from ``PREFIX/etc/gitconfig`` (the real git, told so by a wrapper:
    the same file git's ETC_GITCONFIG names for such a build). ``linked``: as Homebrew
    installs it, ``PREFIX/bin/git`` a link into ``PREFIX/Cellar/git/VERSION/bin``.
    (PATH's folder, the system file.)"""
    import shutil

    real = shutil.which("git")
    assert real is not None
    prefix = root / "prefix"
    system = prefix / "etc" / "gitconfig"
    (prefix / "etc").mkdir(parents=True)
    keg = prefix / "Cellar" / "git" / "2.99" / "bin" if linked else prefix / "bin"
    keg.mkdir(parents=True)
    (keg / "git").write_text(f'#!/bin/sh\nGIT_CONFIG_SYSTEM="{system}" exec "{real}" "$@"\n')
    (keg / "git").chmod(0o755)
    if linked:
        (prefix / "bin").mkdir()
        (prefix / "bin" / "git").symlink_to(keg / "git")
    return prefix / "bin", system


@pytest.mark.parametrize("linked", [False, True], ids=["prefix", "homebrew"])
def test_a_system_file_of_a_git_built_with_another_prefix_is_watched_and_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, linked: bool
) -> None:
    """git reads its system settings where it was built to (``PREFIX/etc/gitconfig``, not
    always /etc/gitconfig): a long-lived process (the MCP server) sees that file created
    at its next read, as git would, and the guard's shortcut (``batch.unset_for_certain``:
    no git process when no file git reads names the key) never says "unset" while it sets
    the key (PRODUCT.md, Installing never breaks git: "whatever the environment")."""
    from git_vcontext.gitio.batch import unset_for_certain

    folder, system = _git_built_elsewhere(tmp_path, linked=linked)
    repo = tmp_path / "r"
    run_git(tmp_path, "init", "-q", str(repo))
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_NOSYSTEM")  # (the tests' isolation: git reads it here)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL")  # (the user's: HOME's, and none there)
    configread.forget()
    assert configread.value(str(repo), "vcontext.agentPrefix") is None
    system.write_text("[vcontext]\n\tagentPrefix = bots/\n")
    assert _git(repo, "config", "--get", "vcontext.agentPrefix") == (0, "bots/\n")
    assert configread.value(str(repo), "vcontext.agentPrefix") == "bots/"
    assert not unset_for_certain(str(repo / ".git"), "vcontext.agentPrefix")
