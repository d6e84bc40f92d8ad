"""The guard must not slow ``sync --push`` down (issue 28, PRODUCT.md "The remote guards
itself"), without weakening a check: what the light path reads without starting git (the
agent prefix) it reads as git would, wherever it is set. Real bare repositories, real
``git push``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import git_vcontext
from helpers.guard import (
    clone_with_base,
    edit_json,
    guarded_remote,
    program,
    push,
    refs,
    remote_lines,
    sneak,
)
from helpers.pre_push import PLAYBOOK, TODO, commit, event, playbook
from helpers.run import run_cli, run_git


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture(autouse=True)
def _usual_git_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """Git's configuration as a server has it: the user's ``~/.gitconfig`` (the tests' own
    home), no ``GIT_CONFIG_GLOBAL`` (with it, the light path leaves the prefix to git)."""
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return guarded_remote(tmp_path, "--guard")


@pytest.fixture
def repo(tmp_path: Path, remote: Path) -> Path:
    return clone_with_base(remote, tmp_path / "clone")


def _merge_bringing_a_fork(repo: Path, onto: str) -> str:
    """A branch ``onto`` (from main) that merges a branch whose todo list holds an unmerged
    fork block; its merge commit."""
    fork = {"parentUid": "u1", "parentSequence": 3, "forkedAt": "2026-01-01T00:00:00Z"}
    run_git(repo, "switch", "-q", "-c", "bots/alice", "main")
    edit_json(repo, TODO, lambda d: d["todoList"].update(fork={**fork, "mergeStatus": "unmerged"}))
    commit(repo, "alice forks the list")
    run_git(repo, "switch", "-q", "-c", onto, "main")
    write_events = playbook(event("e1", "first"), event("e2", "second"), event("e3", "3"))
    (repo / PLAYBOOK).write_text(json.dumps(write_events, indent=2) + "\n")
    commit(repo, "main moves on")
    run_git(repo, "merge", "-q", "--no-edit", "bots/alice")
    return run_git(repo, "rev-parse", "HEAD").stdout.strip()


@pytest.mark.parametrize(
    "where",
    [
        "repository",
        "include",
        "home",
        "GIT_CONFIG_GLOBAL",  # libgit2 does not read it: git is asked
    ],
)
def test_guard_reads_the_agent_prefix_wherever_git_config_has_it(
    repo: Path, remote: Path, tmp_path: Path, where: str
) -> None:
    """history-unmerged-fork holds for branches outside the agent prefix: with
    ``vcontext.agentPrefix = bots/`` on the server, ``agents/carol`` is outside it, so a
    merge bringing a fork there is refused — the prefix read from the repository's config,
    an included file, or the user's global config; the light path,
    which reads the usual case without starting ``git config``, is never surer than git."""
    env: dict[str, str] = {}
    if where == "repository":
        run_git(remote, "config", "vcontext.agentPrefix", "bots/")
    elif where == "include":
        extra = tmp_path / "extra.gitconfig"
        extra.write_text("[vcontext]\n\tagentprefix = bots/\n")
        run_git(remote, "config", "include.path", str(extra))
    elif where == "home":
        with open(Path(os.environ["HOME"]) / ".gitconfig", "a") as fh:
            fh.write("[vcontext]\n\tAgentPrefix = bots/\n")
    else:
        extra = tmp_path / "global.gitconfig"
        extra.write_text("[vcontext]\n\tAgentPrefix = bots/\n")
        env["GIT_CONFIG_GLOBAL"] = str(extra)
    assert sneak(repo, "origin", "main").returncode == 0
    bad = _merge_bringing_a_fork(repo, "agents/carol")
    before = refs(remote)

    proc = push(repo, "--no-verify", "origin", "agents/carol", env=env)

    assert proc.returncode != 0, proc.stderr
    assert any(line.endswith("[history-unmerged-fork]") for line in remote_lines(proc.stderr))
    assert any(bad[:10] in line for line in remote_lines(proc.stderr))
    assert refs(remote) == before


def test_guard_without_a_prefix_set_lets_agent_branches_carry_forks(repo: Path) -> None:
    """The default prefix ``agents/``: an agent branch may receive the merge (the block is
    the agent's own)."""
    merge = _merge_bringing_a_fork(repo, "agents/carol")
    proc = sneak(repo, "origin", "agents/carol")
    assert proc.returncode == 0, proc.stderr
    assert run_git(repo, "ls-remote", "origin", "agents/carol").stdout.startswith(merge)


@pytest.mark.parametrize("ref", ["agents/dave", "notes"])
def test_guard_light_path_refuses_no_agent_prefix_the_full_check_refuses(
    repo: Path, remote: Path, ref: str
) -> None:
    """One truth (PRODUCT.md "The remote guards itself"; the light path only ever lets
    through less than the full check): ``vcontext.agentPrefix = -x`` on the server is
    refused by every command that reads the prefix, the full check among them, in one line
    (exit 2, the setting named). The light path took it as a prefix and let an ordinary
    push in; now it leaves the push to the full check, which refuses it: nothing moves."""
    run_git(remote, "config", "vcontext.agentPrefix", "-x")
    run_git(repo, "switch", "-q", "-c", ref)
    events = playbook(event("e1", "first"), event("e2", "second"), event("e3", "3"))
    (repo / PLAYBOOK).write_text(json.dumps(events, indent=2) + "\n")
    commit(repo, "dave learns")
    before = refs(remote)

    proc = sneak(repo, "origin", ref)

    assert proc.returncode != 0, proc.stderr
    said = [line for line in remote_lines(proc.stderr) if "agentPrefix" in line]
    assert len(said) == 1, proc.stderr
    assert "not a valid branch prefix: '-x'" in said[0]
    assert "git config vcontext.agentPrefix agents/" in said[0]
    assert "Traceback" not in proc.stderr
    assert refs(remote) == before
    doctor = run_cli("doctor", cwd=remote)  # one truth: doctor on the server says so
    shown = doctor.stdout.decode()
    assert doctor.returncode == 1, shown + doctor.stderr.decode()
    assert "not a valid branch prefix: '-x'" in shown
    assert "the guard refuses every push here" in shown
    run_git(remote, "config", "vcontext.agentPrefix", "agents/")  # the line's own fix
    assert "agentPrefix" not in run_cli("doctor", cwd=remote).stdout.decode()
    assert sneak(repo, "origin", ref).returncode == 0


def test_guard_fast_path_refuses_no_agent_prefix_the_full_check_refuses(
    repo: Path, remote: Path
) -> None:
    """One truth (PRODUCT.md "The remote guards itself"): a push that changes no file (an
    empty root commit, as a lease of an older version: the fast path, which opens no
    repository) is refused on a server whose ``vcontext.agentPrefix`` the full check
    refuses every push for, in the full check's one line; it was let in unread. A valid
    prefix set in the server's config leaves the fast path to let it in."""
    run_git(remote, "config", "vcontext.agentPrefix", "-x")
    tree = run_git(repo, "hash-object", "-t", "tree", "-w", "--stdin").stdout.strip()
    empty = run_git(repo, "commit-tree", tree, "-m", "looks like a lease").stdout.strip()
    before = refs(remote)
    target = f"{empty}:refs/vcontext/lease/main"

    proc = sneak(repo, "origin", target)

    assert proc.returncode != 0, proc.stderr
    said = [line for line in remote_lines(proc.stderr) if "agentPrefix" in line]
    assert len(said) == 1, proc.stderr
    assert "not a valid branch prefix: '-x'" in said[0]
    assert "Traceback" not in proc.stderr
    assert refs(remote) == before
    run_git(remote, "config", "vcontext.agentPrefix", "bots/")
    assert sneak(repo, "origin", target).returncode == 0
    assert refs(remote)["refs/vcontext/lease/main"] == empty


def _started(trace: Path) -> list[list[str]]:
    """The argv of every git process a trace2 event file records."""
    starts = [json.loads(line) for line in trace.read_text().splitlines()]
    return [e["argv"] for e in starts if e.get("event") == "start"]


def test_guard_light_path_reads_an_unset_agent_prefix_without_git_config(
    repo: Path, tmp_path: Path
) -> None:
    """Issue 28 (b): the agent prefix cost every push a ``git config`` process; where no
    file git reads sets it (the usual case), the light path knows without one. The push
    is still judged by the light path, and clean. Nor does it start ``git rev-list``: the
    push's new commits are read from the commits themselves, back to the refs' tips."""
    trace = tmp_path / "trace.json"
    write_events = playbook(event("e1", "first"), event("e2", "second"), event("e3", "3"))
    run_git(repo, "switch", "-q", "-c", "agents/dave")
    (repo / PLAYBOOK).write_text(json.dumps(write_events, indent=2) + "\n")
    commit(repo, "dave learns")
    env = {"GIT_TRACE2_EVENT": str(trace), "GIT_VCONTEXT_HOOK_VERBOSE": "1"}

    proc = push(repo, "--no-verify", "origin", "agents/dave", env=env)

    assert proc.returncode == 0, proc.stderr
    assert "guard (light)" in proc.stderr
    started = _started(trace)
    ours = ["--no-replace-objects", "rev-list"]  # (receive-pack's own check is git's)
    assert not [argv for argv in started if argv[1:3] == ours], started
    assert not [argv for argv in started if "config" in argv[1:3]], started


def _hook_with_teardown_probe(remote: Path, tmp_path: Path) -> Path:
    """The remote's pre-receive hook replaced by the guard's command started with ``site``
    and a ``sitecustomize`` whose ``atexit`` handler says whether the interpreter's teardown
    ran (the installed shim starts Python with ``-S``); what the guard said, in a log."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import atexit, sys\natexit.register(lambda: print('teardown', file=sys.stderr))\n"
    )
    log = tmp_path / "guard.log"
    hook = remote / "hooks" / "pre-receive"
    checkout = Path(git_vcontext.__file__).resolve().parents[1]
    hook.write_text(
        "#!/bin/sh\n"
        f"PYTHONPATH='{site}:{checkout}' GIT_VCONTEXT_HOOK_VERBOSE=1 "
        f"'{program()}' hook pre-receive 2>>'{log}'\n"
        "STATUS=$?\n"
        f"echo \"exit $STATUS\" >>'{log}'\n"
        "exit $STATUS\n"
    )
    return log


def test_guard_light_verdicts_end_without_the_teardown_the_full_check_with_it(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """Issue 28: a push the light path lets in ends the guard's process at once (no
    teardown: ~2 ms of every guard run), its verdict whole (exit 0, the ref moved, the
    verdicts kept); a push the full check judges (here one it refuses) ends as usual."""
    log = _hook_with_teardown_probe(remote, tmp_path)
    run_git(repo, "switch", "-q", "-c", "agents/dave")
    events = playbook(event("e1", "first"), event("e2", "second"), event("e3", "3"))
    (repo / PLAYBOOK).write_text(json.dumps(events, indent=2) + "\n")
    commit(repo, "dave learns")

    good = sneak(repo, "origin", "agents/dave")

    assert good.returncode == 0, good.stderr
    said = log.read_text()
    assert "guard (light)" in said
    assert "exit 0" in said
    assert "teardown" not in said
    tip = run_git(repo, "rev-parse", "HEAD").stdout.strip()
    assert refs(remote)["refs/heads/agents/dave"] == tip
    assert list((remote / "vcontext" / "verdicts").rglob("*")), "the verdicts were kept"

    log.write_text("")
    (repo / PLAYBOOK).write_text(json.dumps(playbook(event("e1", "first")), indent=2) + "\n")
    commit(repo, "dave drops events")

    bad = sneak(repo, "origin", "agents/dave")

    assert bad.returncode != 0
    said = log.read_text()
    assert "history-event-removed" in said or "[history" in said, said
    assert "exit 1" in said
    assert "teardown" in said


def _remembered(remote: Path) -> dict[str, str]:
    record = remote / "vcontext" / "deleted-refs.json"
    return json.loads(record.read_text()).get("(server)", {}) if record.exists() else {}


def test_guard_light_path_reads_the_refs_from_git_files_not_for_each_ref(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """Issue 28 point 2: the guard forgets a remembered deletion once its ref is back (a
    branch deleted, then pushed again: ``sync --push`` does that with every request ref);
    which refs exist it read with ``git for-each-ref`` on every push, now from the files
    git keeps them in (loose and packed), with the same outcome."""
    run_git(repo, "switch", "-q", "-c", "agents/erin")
    assert sneak(repo, "origin", "agents/erin").returncode == 0
    old = run_git(repo, "rev-parse", "HEAD").stdout.strip()
    assert sneak(repo, "origin", ":agents/erin").returncode == 0
    assert _remembered(remote) == {"refs/heads/agents/erin": old}
    events = playbook(event("e1", "first"), event("e2", "second"), event("e3", "3"))
    (repo / PLAYBOOK).write_text(json.dumps(events, indent=2) + "\n")
    commit(repo, "erin learns")
    assert sneak(repo, "origin", "agents/erin").returncode == 0  # back, from its old tip on
    run_git(remote, "pack-refs", "--all")  # the refs packed, as git gc leaves them
    run_git(repo, "switch", "-q", "-c", "agents/frank")
    edit_json(repo, TODO, lambda d: d["todoList"]["items"][0].update(title="Task 1"))
    commit(repo, "frank edits")
    trace = tmp_path / "trace.json"
    env = {"GIT_TRACE2_EVENT": str(trace), "GIT_VCONTEXT_HOOK_VERBOSE": "1"}

    proc = push(repo, "--no-verify", "origin", "agents/frank", env=env)

    assert proc.returncode == 0, proc.stderr
    assert "guard (light)" in proc.stderr
    assert _remembered(remote) == {}  # agents/erin is back: forgotten
    started = _started(trace)
    ours = [argv for argv in started if "--format=%(refname)" in argv]  # (git's own: objectname)
    assert not ours, started


def test_guard_light_path_finds_a_re_created_refs_old_tip_without_merge_base(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """Issue 28 point 2: a request ref ``sync --push`` deleted is pushed again at a commit
    made on the merge its branch received meanwhile (already on the remote, so not among
    the push's new commits). The deleted tip is found in the new tip's history by reading
    the commits themselves, not by starting ``git merge-base``; the push is judged by the
    light path and let in."""
    request = "refs/vcontext/sync/main/agents/gina"
    run_git(repo, "switch", "-q", "-c", "agents/gina")
    edit_json(repo, TODO, lambda d: d["todoList"]["items"][0].update(title="Task 1"))
    commit(repo, "gina edits")
    assert sneak(repo, "origin", "agents/gina", f"HEAD:{request}").returncode == 0
    assert sneak(repo, "origin", f":{request}").returncode == 0
    run_git(repo, "switch", "-q", "main")
    events = playbook(event("e1", "first"), event("e2", "second"), event("e3", "3"))
    (repo / PLAYBOOK).write_text(json.dumps(events, indent=2) + "\n")
    commit(repo, "main learns")
    assert sneak(repo, "origin", "main").returncode == 0
    run_git(repo, "switch", "-q", "agents/gina")
    run_git(repo, "merge", "-q", "--no-edit", "main")
    assert sneak(repo, "origin", "agents/gina").returncode == 0  # the merge is on the remote
    edit_json(repo, TODO, lambda d: d["todoList"]["items"][0].update(title="Task 2"))
    commit(repo, "gina edits again")
    trace = tmp_path / "trace.json"
    env = {"GIT_TRACE2_EVENT": str(trace), "GIT_VCONTEXT_HOOK_VERBOSE": "1"}

    proc = push(repo, "--no-verify", "origin", "agents/gina", f"HEAD:{request}", env=env)

    assert proc.returncode == 0, proc.stderr
    assert "guard (light)" in proc.stderr
    started = _started(trace)
    assert not [argv for argv in started if "merge-base" in argv], started
    assert refs(remote)[request] == run_git(repo, "rev-parse", "HEAD").stdout.strip()


def test_guard_light_path_asks_merge_base_past_the_commits_it_reads(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """Issue 28 point 2: the light path reads at most ``REACH_LIMIT`` commits the repository
    had to find a re-created ref's old tip; further back, ``git merge-base`` answers, as
    before, and the push is still judged by the light path and let in."""
    from git_vcontext.prepush.light import REACH_LIMIT

    request = "refs/vcontext/sync/main/agents/hal"
    run_git(repo, "switch", "-q", "-c", "agents/hal")
    assert sneak(repo, "origin", f"HEAD:{request}").returncode == 0
    assert sneak(repo, "origin", f":{request}").returncode == 0
    for n in range(REACH_LIMIT + 2):
        run_git(repo, "commit", "-q", "--allow-empty", "-m", f"hal thinks {n}")
    assert sneak(repo, "origin", "agents/hal").returncode == 0  # all on the remote now
    edit_json(repo, TODO, lambda d: d["todoList"]["items"][0].update(title="Task 1"))
    commit(repo, "hal edits")
    trace = tmp_path / "trace.json"
    env = {"GIT_TRACE2_EVENT": str(trace), "GIT_VCONTEXT_HOOK_VERBOSE": "1"}

    proc = push(repo, "--no-verify", "origin", f"HEAD:{request}", env=env)

    assert proc.returncode == 0, proc.stderr
    assert "guard (light)" in proc.stderr
    started = _started(trace)
    assert [argv for argv in started if "merge-base" in argv], started
