"""``sync AGENT --push origin`` in a person's clone, for an agent that works in a clone of
its own (PRODUCT.md, "Branch-per-agent workflow" and "Sync at scale": one branch, often one
clone, per agent; a round costs the network what it needs, and says only what happened).

- A stale local ``agents/NAME`` (behind ``origin/agents/NAME``, which a ``git fetch`` moved
  since) was published as it was: the push was rejected (``[rejected] (non-fast-forward):
  fetching and merging, retry 1``), then the sync looked and landed: a round trip for
  nothing and an alarming line. It is brought forward to the copy the clone knows of first
  (a fast-forward, only where its work tree may follow), as a look would bring it.
- An agent the remote has but this clone never fetched was refused before any network
  (``no branch agents/NAME …: git fetch brings the agent branches a remote has``). With
  ``--push REMOTE`` sync looks at that remote once for it and takes it as any remote's
  branch (as ``git switch`` would); an agent it does not have either is refused as before,
  with the same advice. The MCP server's ``vcontext_sync`` goes the same way. A branch the
  look found that no remote-tracking branch keeps (``--push URL``, a single-branch clone)
  is made from the look's copy, as ``git fetch REMOTE BRANCH:BRANCH`` makes it. The look
  retries a transient failure as the rest of the sync does.

Real git: a bare remote, a person's clone, the agent's clone (``helpers.team``).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from helpers import git_servers as servers
from helpers.mcp_support import in_process, run, text
from helpers.soak import network_operations
from helpers.team import (
    TASKS,
    Team,
    bo_stopped_at_checkout,
    edit,
    git,
    identity,
    person_deletes_t1,
    read,
    remote_show,
    setup,
    tip,
    vcx,
    works_on_t1,
)


def _work(clone: Path, agent: str, item: str) -> None:
    """The agent adds ``item`` to the shared list and commits it."""
    edit(
        clone,
        TASKS,
        lambda d: d["todoList"]["items"].append({"id": item, "title": item, "status": "pending"}),
    )
    git(clone, "commit", "-qam", f"{agent}: {item}")


def _lands(clone: Path, agent: str) -> str:
    done = vcx(clone, "sync", agent, "--push", "origin")
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _there(repo: Path, rev: str) -> bool:
    return git(repo, "rev-parse", "--verify", "-q", rev, check=False).returncode == 0


def _items(remote: Path) -> set[str]:
    return {i["id"] for i in remote_show(remote, "main", TASKS)["todoList"]["items"]}


def _stale_in_the_persons_clone(tmp_path: Path, in_process: bool) -> tuple[Team, str]:
    """The person's clone synced bob (so it knows the remote's base as of then); cy pushed
    c1 to its branch with plain git, and the person made agents/cy from it; then cy landed
    c2 with its own sync, and the person fetched: agents/cy here is behind
    origin/agents/cy, with work the base this clone last looked at lacks. The team, and
    agents/cy here."""
    team: Team = setup(tmp_path, ["cy"])
    cy, person = team.agents["cy"], team.person
    git(person, "config", "vcontext.inProcessFetch", str(in_process).lower())
    assert vcx(person, "fork", "bob").returncode == 0
    _lands(person, "bob")
    _work(cy, "cy", "c1")
    git(cy, "push", "-q", "origin", "agents/cy")
    git(person, "fetch", "-q", "origin")
    git(person, "branch", "-q", "--track", "agents/cy", "origin/agents/cy")
    _work(cy, "cy", "c2")
    _lands(cy, "cy")
    git(person, "fetch", "-q", "origin")
    stale = tip(person, "agents/cy")
    assert stale != tip(person, "origin/agents/cy")
    assert git(person, "merge-base", "--is-ancestor", stale, "origin/agents/cy").returncode == 0
    return team, stale


def _holds(repo: Path, commit: str, branch: str) -> bool:
    return git(repo, "merge-base", "--is-ancestor", commit, branch, check=False).returncode == 0


@pytest.mark.parametrize("in_process", [False, True], ids=["git", "in-process"])
def test_a_stale_local_agent_branch_is_brought_forward_not_pushed_and_rejected(
    tmp_path: Path, in_process: bool
) -> None:
    """The person's sync of cy lands with no rejected push and no retry (before, through
    git: "push to origin rejected (agents/cy [rejected] (non-fast-forward)): fetching and
    merging, retry 1"), agents/cy here brought forward to cy's work."""
    team, _ = _stale_in_the_persons_clone(tmp_path, in_process)
    person = team.person
    trace = tmp_path / "trace"
    trace.mkdir()

    done = vcx(person, "sync", "cy", "--push", "origin", env={"GIT_TRACE2_EVENT": str(trace)})

    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "rejected" not in said, said
    assert "retry" not in said, said
    if not in_process:  # one look (its round had landed): no push rejected, then a look
        assert network_operations(trace)["total"] == 1
    assert _holds(person, tip(team.agents["cy"], "agents/cy"), "agents/cy")
    assert _holds(person, tip(team.remote, "agents/cy"), "agents/cy")
    assert {"c1", "c2"} <= _items(team.remote)


def test_a_stale_agent_branch_checked_out_with_local_changes_is_not_moved(
    tmp_path: Path,
) -> None:
    """The README's rule for moving a checked-out agent branch: with local changes in its
    work tree it is not touched. The stale branch is then not brought forward behind the
    person's back: the pair is refused, naming that work tree, and nothing moves here."""
    team, stale = _stale_in_the_persons_clone(tmp_path, False)
    person = team.person
    there = tmp_path / "person-cy"
    git(person, "worktree", "add", "-q", str(there), "agents/cy")
    (there / "notes.txt").write_text("a person's edit\n")
    git(there, "add", "notes.txt")

    done = vcx(person, "sync", "cy", "--push", "origin")

    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert str(there) in said
    assert tip(person, "agents/cy") == stale
    assert (there / "notes.txt").read_text() == "a person's edit\n"


def _only_on_the_remote(tmp_path: Path, in_process: bool) -> Team:
    """cy landed a round from its own clone after the person's clone last fetched: the
    person's clone has no agents/cy and no origin/agents/cy."""
    team: Team = setup(tmp_path, ["cy"])
    git(team.person, "config", "vcontext.inProcessFetch", str(in_process).lower())
    _work(team.agents["cy"], "cy", "c1")
    _lands(team.agents["cy"], "cy")
    assert not _there(team.person, "origin/agents/cy")
    return team


@pytest.mark.parametrize("in_process", [False, True], ids=["git", "in-process"])
def test_push_looks_at_the_remote_for_an_agent_this_clone_never_fetched(
    tmp_path: Path, in_process: bool
) -> None:
    team = _only_on_the_remote(tmp_path, in_process)
    person = team.person

    said = _lands(person, "cy")

    assert "agents/cy: created from origin/agents/cy, tracking it" in said
    assert tip(person, "agents/cy") == tip(team.remote, "agents/cy")
    assert tip(person, "origin/agents/cy") == tip(team.remote, "agents/cy")
    assert "c1" in _items(team.remote)


@pytest.mark.parametrize("in_process", [False, True], ids=["git", "in-process"])
def test_an_agent_on_no_remote_either_is_refused_with_a_way_out(
    tmp_path: Path, in_process: bool
) -> None:
    """The look found no branch on the remote: ``git fetch`` (the advice before) would
    bring nothing, and the sync refused again. The refusal says so, and the ways out: the
    push from the agent's own clone, or ``fork`` for a new agent."""
    team = _only_on_the_remote(tmp_path, in_process)
    before = git(team.remote, "for-each-ref").stdout

    done = vcx(team.person, "sync", "nobody", "--push", "origin")

    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        "git-vcontext: error: no branch agents/nobody for agent 'nobody', here or on origin"
        " (looked just now): an agent's branch reaches origin from the clone it works in"
        " (git push origin agents/nobody there, or that agent's own sync --push once its"
        " conflicts are resolved), then sync again; a new agent starts with git vcontext"
        " fork nobody"
    ]
    assert git(team.remote, "for-each-ref").stdout == before
    assert not git(team.person, "for-each-ref", "refs/heads/agents/").stdout


def test_the_way_out_for_an_agent_on_no_remote_never_pastes_a_masked_password(
    git_repo: Path,
) -> None:
    """A ``--push`` URL holding credentials is shown masked (``agent:***@``): the refusal's
    ``git push URL agents/NAME``, pasted, sent the password ``***``. It names REMOTE, the
    agent clone's own name or URL for that server, and never the password."""
    from git_vcontext.branches.agents import _nowhere
    from git_vcontext.gitio import open_repo

    url = "http://agent:s3cret@127.0.0.1:9/remote.git"
    said = _nowhere(open_repo(str(git_repo)), "nobody", url, lambda step: step)

    assert "s3cret" not in said
    assert "git push http" not in said
    assert "git push REMOTE agents/nobody there, REMOTE being that clone's name or URL" in said


def test_a_local_sync_does_not_look_at_any_remote(tmp_path: Path) -> None:
    """Without --push nothing talks to the network: the refusal stands as it was."""
    team = _only_on_the_remote(tmp_path, False)

    done = vcx(team.person, "sync", "cy")

    assert done.returncode == 3, done.stdout + done.stderr
    assert "git fetch brings the agent branches a remote has" in done.stderr
    assert not _there(team.person, "origin/agents/cy")


def test_mcp_sync_looks_at_the_remote_for_an_agent_as_the_command_line_does(
    tmp_path: Path,
) -> None:
    """One truth: ``vcontext_sync`` with ``push`` takes an agent only the remote has, as
    ``sync --push`` does (both select the agents through ``workflow.link.checked``)."""
    team = _only_on_the_remote(tmp_path, False)

    async def call() -> Any:
        async with in_process(team.person) as client:
            return await client.call_tool("vcontext_sync", {"agents": ["cy"], "push": "origin"})

    answer = run(call)

    assert not answer.is_error, text(answer)
    assert "agents/cy: created from origin/agents/cy" in text(answer)
    assert tip(team.person, "agents/cy") == tip(team.remote, "agents/cy")


@pytest.mark.parametrize("how", ["single-branch", "path", "url"])
def test_an_agent_the_look_finds_but_no_tracking_branch_keeps_is_taken_from_the_look(
    tmp_path: Path, how: str
) -> None:
    """PRODUCT.md, "Command-line contract": ``--push`` takes a configured remote or a URL.
    The look found cy's branch on the remote, but no remote-tracking branch keeps it (a
    single-branch clone's fetch refspec, or ``--push`` given as the remote's path or URL:
    ``git fetch`` brings nothing there). Before, the sync refused cy with the ``git fetch
    REMOTE refs/heads/agents/cy:refs/heads/agents/cy`` to run first; now it makes the
    branch from what the look fetched, as that command does (no upstream: none names it),
    says so, and lands, as with a remote name."""
    team = _only_on_the_remote(tmp_path, False)
    person = team.person
    if how == "single-branch":
        git(
            person,
            "config",
            "--replace-all",
            "remote.origin.fetch",
            "+refs/heads/main:refs/remotes/origin/main",
        )
        remote = "origin"
    else:
        remote = str(team.remote) if how == "path" else team.remote.as_uri()

    done = vcx(person, "sync", "cy", "--push", remote)

    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert f"agents/cy: created from {remote}'s agents/cy, as git fetch would make it" in said
    assert "c1" in _items(team.remote)
    assert tip(person, "agents/cy") == tip(team.remote, "agents/cy")
    assert not git(person, "config", "--get-regexp", r"^branch\.agents/", check=False).stdout
    again = vcx(person, "sync", "cy", "--push", remote)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "created from" not in again.stdout


def test_a_branch_made_meanwhile_is_taken_as_it_is_not_refused(tmp_path: Path) -> None:
    """The look makes the agent's branch during the sync's argument checking, before the
    sync's lock: another sync of the same agent in this clone (the MCP server's, a
    person's) or the person may make it between the look's "no branch here" and its own
    creation. Before, that sync was refused ("a branch named 'agents/cy' already exists",
    exit 3) where a look a moment later takes the branch as it is; now it takes it as it
    is too, never moving it (no clobber), saying nothing of a creation it did not make."""
    import pygit2

    from git_vcontext.gitio.places import fetched_namespace
    from git_vcontext.workflow.link import _untracked

    team = _only_on_the_remote(tmp_path, False)
    person, url = team.person, team.remote.as_uri()
    repo = pygit2.Repository(str(person))
    copy = f"{fetched_namespace(repo, url)}heads/agents/cy"
    git(person, "fetch", "-q", url, f"+refs/heads/agents/cy:{copy}")  # (the look's fetch)
    git(person, "branch", "agents/cy", "main")  # made meanwhile, elsewhere than the copy
    made = tip(person, "agents/cy")
    said: list[str] = []

    _untracked(repo, url, "agents/cy", said.append)

    assert tip(person, "agents/cy") == made
    assert said == []


@pytest.mark.parametrize("in_process", [False, True], ids=["git", "in-process"])
def test_the_look_at_the_remote_retries_a_dropped_connection(
    tmp_path: Path, in_process: bool
) -> None:
    """PRODUCT.md, "Sync at scale": a transient failure (a connection closed) is retried
    within the sync's deadline, over any transport — the look for an agent only the remote
    has too. The remote over HTTP behind a proxy that closes its first connections (the
    in-process look's and git's first fetch: before, the look was tried once and the
    sync refused cy, adding "looking at origin for it failed: … Empty reply from server");
    now it is tried again, said, and the sync lands."""
    team = _only_on_the_remote(tmp_path, in_process)
    person = team.person
    with (
        servers.HttpFront(tmp_path) as front,
        servers.DroppingProxy(
            front.port, every=1, how="close", most=2 if in_process else 1
        ) as proxy,
    ):
        url = f"http://{servers.LOOPBACK}:{proxy.port}/{team.remote.name}"
        git(person, "remote", "set-url", "origin", url)
        git(person, "config", "vcontext.inProcessHttp", str(in_process).lower())
        done = vcx(person, "sync", "cy", "--push", "origin")

        said = done.stdout + done.stderr
        assert proxy.dropped == proxy.most, said
    assert done.returncode == 0, said
    assert "trying again" in said, said
    assert "agents/cy: created from origin/agents/cy, tracking it" in said
    assert tip(person, "agents/cy") == tip(team.remote, "agents/cy")
    assert "c1" in _items(team.remote)


def test_checkout_refusal_for_a_branch_only_the_agents_clone_has_leads_somewhere(
    tmp_path: Path,
) -> None:
    """The closing note of session 15, as it happened: bo's round stopped on a conflict in
    bo's clone (nothing pushed); the person pulled main and ran ``sync bo --push origin
    --checkout`` to resolve it: "no branch agents/bo … git fetch brings the agent branches a
    remote has", and ``git fetch`` then sync gave the same refusal. The refusal now says
    the remote has none either and how bo's branch gets there; done literally (``git push
    origin agents/bo`` in bo's clone), the next sync leaves the conflict stopped here."""
    team, bo, _ = bo_stopped_at_checkout(tmp_path)
    person = team.person
    git(person, "pull", "-q", "--no-rebase", "origin", "main")

    done = vcx(person, "sync", "bo", "--push", "origin", "--checkout")

    assert done.returncode == 3, done.stdout + done.stderr
    said = done.stderr.strip()
    assert "git fetch brings" not in said
    assert "here or on origin (looked just now)" in said
    step = "git push origin agents/bo"
    assert f"({step} there," in said
    git(bo, *step.split()[1:])
    again = vcx(person, "sync", "bo", "--push", "origin", "--checkout")
    assert again.returncode == 1, again.stdout + again.stderr
    assert "agents/bo: created from origin/agents/bo, tracking it" in again.stdout
    assert _there(person, "MERGE_HEAD")


def test_checkout_looks_at_the_remote_as_plain_push_does(tmp_path: Path) -> None:
    """The closing note of session 15: after ``git pull origin main`` in the person's clone
    (which fetches main alone), ``sync bo --push origin --checkout`` must take bo's branch
    from the remote as plain ``--push`` does (one ``checked``, one look), and leave bo's
    conflict stopped here for the person to resolve."""
    team = setup(tmp_path, ["bo"])
    bo, person = team.agents["bo"], team.person
    person_deletes_t1(team)
    works_on_t1(bo)
    git(bo, "push", "-q", "origin", "agents/bo")
    git(person, "pull", "-q", "--no-rebase", "origin", "main")
    assert not _there(person, "origin/agents/bo")

    done = vcx(person, "sync", "bo", "--push", "origin", "--checkout")

    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "agents/bo: created from origin/agents/bo, tracking it" in said
    assert "no branch" not in said
    assert git(person, "branch", "--show-current").stdout.strip() == "agents/bo"
    assert _there(person, "MERGE_HEAD")
    assert TASKS in git(person, "diff", "--name-only", "--diff-filter=U").stdout


def test_a_single_branch_clone_is_told_the_fetch_that_brings_the_agent(tmp_path: Path) -> None:
    """Advice leads somewhere (session 15's review): in a ``git clone --single-branch`` a
    plain ``sync cy`` (no --push: no look) said "git fetch brings the agent branches a
    remote has", and ``git fetch`` there brings main alone: the same refusal again. It now
    names the fetch that makes agents/cy here; done literally, the next sync takes it."""
    team = _only_on_the_remote(tmp_path, False)
    clone = tmp_path / "single"
    git(tmp_path, "clone", "-q", "--single-branch", str(team.remote), str(clone))
    identity(clone, "person")

    done = vcx(clone, "sync", "cy")

    assert done.returncode == 3, done.stdout + done.stderr
    said = done.stderr.strip()
    step = "git fetch origin refs/heads/agents/cy:refs/heads/agents/cy"
    assert f": {step} makes it here if origin has it" in said, said
    assert "git fetch brings" not in said
    git(clone, *shlex.split(step)[1:])
    again = vcx(clone, "sync", "cy")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "c1" in {i["id"] for i in read(clone, TASKS)["todoList"]["items"]}


@pytest.mark.parametrize("in_process", [False, True], ids=["git", "in-process"])
def test_an_agent_branch_force_pushed_since_the_last_fetch_is_taken_as_the_remote_has_it(
    tmp_path: Path, in_process: bool
) -> None:
    """cy pushed c-old to its branch, the person's clone fetched it, then cy rewrote its
    branch (c-old dropped, c-new instead) and force-pushed. The person's sync of cy made
    agents/cy from the stale origin/agents/cy of the last fetch, then merged the rewritten
    copy into it: the work cy had dropped came back into the base. An agent with no branch
    here is taken from what the remote has now (the look: as ``git fetch`` then ``git
    switch`` would make it), so only cy's present work lands."""
    team: Team = setup(tmp_path, ["cy"])
    cy, person = team.agents["cy"], team.person
    git(person, "config", "vcontext.inProcessFetch", str(in_process).lower())
    _work(cy, "cy", "c-old")
    git(cy, "push", "-q", "origin", "agents/cy")
    git(person, "fetch", "-q", "origin")
    stale = tip(person, "origin/agents/cy")
    git(cy, "reset", "-q", "--hard", "HEAD~1")
    _work(cy, "cy", "c-new")
    git(cy, "push", "-q", "--force", "origin", "agents/cy")
    assert tip(person, "origin/agents/cy") == stale  # (not fetched since)

    said = _lands(person, "cy")

    assert tip(person, "agents/cy") == tip(team.remote, "agents/cy"), said
    assert not _holds(person, stale, "agents/cy")
    items = _items(team.remote)
    assert "c-new" in items
    assert "c-old" not in items
