"""Settings given to one command (``git -c KEY=VALUE vcontext …``) are read as git reads
them: pygit2 does not see ``GIT_CONFIG_PARAMETERS``, so ``gitio`` asks for them first.

PRODUCT.md, "Sync at scale": a transient failure is retried "inside the sync's deadline
(``vcontext.syncTimeout``)" — ``git -c vcontext.syncTimeout=2 vcontext sync …`` was
ignored and a refused connection retried for the default 600 s (new-user trial).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from git_vcontext.gitio import config_flag, config_value, overrides


def _git_passes(tmp_path: Path, *settings: str) -> str:
    """``GIT_CONFIG_PARAMETERS`` as real git hands it to a command it starts."""
    tool = tmp_path / "bin" / "git-dumpenv"
    tool.parent.mkdir(exist_ok=True)
    tool.write_text('#!/bin/sh\nprintf %s "$GIT_CONFIG_PARAMETERS"\n')
    tool.chmod(0o755)
    args = [a for s in settings for a in ("-c", s)]
    env = {**os.environ, "PATH": f"{tool.parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["git", *args, "dumpenv"], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_git_dash_c_keys_compare_as_git_compares_them() -> None:
    assert overrides.canonical("VContext.SyncTimeout") == "vcontext.synctimeout"
    assert overrides.canonical("Remote.Origin.URL") == "remote.Origin.url"


@pytest.mark.parametrize(
    ("given_value", "flag", "value"),
    [("false", False, "false"), ("yes", True, "yes"), (None, True, ""), ("2", True, "2")],
)
def test_git_dash_c_outranks_the_repositorys_config(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    given_value: str | None,
    flag: bool,
    value: str | None,
) -> None:
    repo = pygit2.init_repository(str(tmp_path / "r"))
    repo.config["vcontext.syncLease"] = "true"
    repo.config["vcontext.syncTimeout"] = "600"
    setting = "vcontext.syncLease" if given_value is None else f"vcontext.syncLease={given_value}"
    monkeypatch.setenv(
        "GIT_CONFIG_PARAMETERS", _git_passes(tmp_path, setting, "vcontext.synctimeout=2")
    )
    assert config_flag(repo, "vcontext.syncLease", False) is flag
    assert config_value(repo, "vcontext.syncLease") == value  # as git config --get says
    assert config_value(repo, "vcontext.syncTimeout") == "2"
    monkeypatch.delenv("GIT_CONFIG_PARAMETERS")
    assert config_value(repo, "vcontext.syncTimeout") == "600"  # the file's, once not given


def test_git_dash_c_config_env_pairs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = pygit2.init_repository(str(tmp_path / "r"))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "vcontext.leaseSeconds")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "7")
    assert config_value(repo, "vcontext.leaseseconds") == "7"


def test_git_config_global_elsewhere_is_read_as_git_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``GIT_CONFIG_GLOBAL`` naming another file than ``~/.gitconfig``: libgit2 does not
    read it (the guard missed an agent prefix set there), git is asked."""
    repo = pygit2.init_repository(str(tmp_path / "r"))
    repo.config["vcontext.syncLease"] = "true"
    elsewhere = tmp_path / "team.gitconfig"
    elsewhere.write_text("[vcontext]\n\tagentPrefix = bots/\n\tsyncLease = off\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(elsewhere))
    assert config_value(repo, "vcontext.agentPrefix") == "bots/"
    assert config_flag(repo, "vcontext.syncLease", True) is True  # the repository's wins
    assert config_value(repo, "vcontext.nothing") is None
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    assert config_value(repo, "vcontext.agentPrefix") is None


@pytest.mark.parametrize("given", ["git -c", "GIT_CONFIG_GLOBAL"])
def test_git_dash_c_attributes_file_routes_documents_for_every_check(
    git_repo: Path, tmp_path: Path, given: str
) -> None:
    """A user attributes file named by ``git -c core.attributesFile=…`` or in a
    ``GIT_CONFIG_GLOBAL`` file routes documents for git (its merge driver runs), so
    ``validate`` (the work tree) and ``check`` (commits) check them too: libgit2's own
    attribute lookup reads neither, and they said "no vContext files" (M19, one truth)."""
    from helpers.run import run_git

    (git_repo / "notes").mkdir()
    item = '{"id":"a","title":"x","status":"bogus"}'
    bad = '{"vContextInfo":{"version":"0.4"},"todoList":{"items":[' + item + "]}}\n"
    (git_repo / "notes" / "plan.json").write_text(bad)
    run_git(git_repo, "add", ".")
    run_git(git_repo, "commit", "-qm", "plan")
    attributes = tmp_path / "attributes"
    attributes.write_text("notes/*.json merge=vcontext\n")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    if given == "git -c":
        first = ["git", "-c", f"core.attributesFile={attributes}", "vcontext"]
    else:
        team = tmp_path / "team.gitconfig"
        team.write_text(f"[core]\n\tattributesFile = {attributes}\n")
        env["GIT_CONFIG_GLOBAL"] = str(team)
        first = ["git", "vcontext"]
    routed = subprocess.run(
        ["git", *first[1:-1], "check-attr", "merge", "--", "notes/plan.json"],
        cwd=git_repo, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert routed.stdout.strip().endswith("merge: vcontext")  # git's own answer
    for args in (["validate"], ["check", "HEAD"]):
        done = subprocess.run(
            [*first, *args], cwd=git_repo, env=env, capture_output=True, text=True
        )
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "notes/plan.json:1:" in done.stdout + done.stderr, (args, done.stdout)
    plain = subprocess.run(["git", "vcontext", "validate"], cwd=git_repo, env={
        **env, "GIT_CONFIG_GLOBAL": os.devnull}, capture_output=True, text=True)  # fmt: skip
    assert plain.returncode == 0, plain.stderr  # without it, the file is not a document


FLAG_VALUES = [
    "yes", "On", "TRUE", "off", "No", "", "0", "1", "-1", "2", "1k", "2g", "0x10", "0X0",
    "010", "08", " 7", "7 ", " yes", "+3", "abc", "2147483648", "1kk", "1.5", "0b1", "1_0",
]  # fmt: skip


def test_git_dash_c_flag_reads_as_git_reads_a_boolean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A boolean given with ``git -c`` reads as ``git -c KEY=VALUE config --type=bool``
    reads it, one parser for every boolean git reads (``gitvalues.git_bool``): octal
    ``010`` and a unit ``1k`` are true and ``0b1``, ``1_0``, ``7 `` no boolean (the
    default), as in git; Python's ``int(word, 0)`` judged otherwise."""
    repo = pygit2.init_repository(str(tmp_path / "r"))
    settings = [f"vcontext.flag{i}={v}" for i, v in enumerate(FLAG_VALUES)]
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", _git_passes(tmp_path, *settings))
    for i, value in enumerate(FLAG_VALUES):
        key = f"vcontext.flag{i}"
        done = subprocess.run(
            ["git", "-c", f"{key}={value}", "config", "--type=bool", "--get", "--", key],
            cwd=tmp_path / "r",
            capture_output=True,
            text=True,
        )
        for default in (True, False):
            expected = default if done.returncode != 0 else done.stdout.strip() == "true"
            assert config_flag(repo, key, default) is expected, (value, done.stdout)
