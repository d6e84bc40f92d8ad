"""A lock file on a remote-tracking ref of this clone, met by ``sync --push``'s own push.

PRODUCT.md, "Sync at scale" (no sync gives up; an interrupted sync is safe to run again)
and the command-line contract (one clear line): a lock file a killed git left on
``refs/remotes/origin/…`` is said, with its safe removal, and the round lands, as the
look says it (``tests/git/test_sync_tracking_refs.py``). Once the remote took a push, git
moves the pushed branches' remote-tracking refs here; a lock in the way is an ``error:
update_ref failed …`` line of git's, exit 0:

- that line was kept among the push's words (``Pushed.said``): when the same push lost the
  race for the integration lease (another agent integrating), the sync took the lock for
  the remote's, named it as what stops the push, and gave up ("push to origin refused:
  refs/vcontext/lease/main [rejected] (stale info)", exit 1) where it waits for the lease;
- a round that published without a look (over git, under the lease) said nothing of it,
  while ``status`` went on counting main "3 commits ahead of origin/main" (one truth).

Each lock is said once, whatever age each look gave it. Real git: a bare remote, two
agents' clones (``helpers.team``); looks through git (``vcontext.inProcessFetch false``).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from pathlib import Path

from helpers.run import cli_path
from helpers.team import EPOCH, TASKS, edit, git, remote_show, setup, vcx


def _work(clone: Path, item: str) -> None:
    edit(
        clone,
        TASKS,
        lambda d: d["todoList"]["items"].append({"id": item, "title": item, "status": "pending"}),
    )
    git(clone, "commit", "-qam", item)


def _stale_lock(clone: Path, ref: str) -> Path:
    """A lock file on ``ref`` as a killed git leaves it (an hour old)."""
    lock = clone / ".git" / f"{ref}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    old = time.time() - 3600
    os.utime(lock, (old, old))
    return lock


def _warnings(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("git-vcontext: warning: ")]


def _items(remote: Path) -> set[str]:
    return {i["id"] for i in remote_show(remote, "main", TASKS)["todoList"]["items"]}


def _landed_once(clone: Path, agent: str, item: str) -> None:
    """``agent`` lands a first round, so that its next one may publish without a look."""
    git(clone, "config", "vcontext.inProcessFetch", "false")
    _work(clone, item)
    done = vcx(clone, "sync", agent, "--push", "origin")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_lock_on_a_tracking_branch_the_push_could_not_move_is_said_and_status_follows(
    tmp_path: Path,
) -> None:
    team = setup(tmp_path, ["cy"])
    cy = team.agents["cy"]
    _landed_once(cy, "cy", "c1")
    lock = _stale_lock(cy, "refs/remotes/origin/main")
    _work(cy, "c2")

    done = vcx(cy, "sync", "cy", "--push", "origin")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "c2" in _items(team.remote)
    (line,) = _warnings(done.stderr)
    assert "git push origin: origin/main not updated: " in line
    assert line.endswith("; the push landed")
    assert f"rm -f '{lock}'" in line
    assert "error: update_ref" not in done.stdout + done.stderr
    subprocess.run(shlex.split(line[line.index("rm -f ") :].split(";")[0]), check=True)
    assert not lock.exists()
    shown = vcx(cy, "status", "--fetch")
    assert shown.returncode == 0, shown.stderr
    assert "up to date with origin/main" in shown.stdout, shown.stdout


GATE = """#!/bin/sh
# holds the first push of main while armed: an integration under way, its lease held
while read old new ref; do
  if [ "$ref" = refs/heads/main ] && [ -f "{gate}/armed" ]; then
    rm -f "{gate}/armed"; touch "{gate}/entered"
    i=0; while [ ! -f "{gate}/open" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done
  fi
done
exit 0
"""


def _sync(clone: Path, agent: str, out: Path) -> subprocess.Popen[bytes]:
    with out.open("wb") as sink:
        return subprocess.Popen(
            [*cli_path(), "sync", agent, "--push", "origin"],
            cwd=clone,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, **EPOCH},
        )


def _until(what: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not what() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.1)


def test_a_lock_on_a_tracking_branch_never_makes_a_lost_lease_race_give_up(
    tmp_path: Path,
) -> None:
    """dee integrates (its push of main held at the remote, the lease its); cy publishes
    its work and tries the lease in one push, which moves origin/agents/cy here (locked)
    and loses the lease: cy waits for dee's round and lands after it."""
    team = setup(tmp_path, ["cy", "dee"])
    cy, dee = team.agents["cy"], team.agents["dee"]
    _landed_once(cy, "cy", "c1")
    _landed_once(dee, "dee", "d1")
    vcx(cy, "sync", "cy", "--push", "origin")  # (cy's copy of the base: d1's round)
    gate = tmp_path / "gate"
    gate.mkdir()
    hook = team.remote / "hooks" / "pre-receive"
    hook.write_text(GATE.format(gate=gate))
    hook.chmod(0o755)
    _stale_lock(cy, "refs/remotes/origin/agents/cy")
    _work(cy, "c2")
    _work(dee, "d2")
    (gate / "armed").write_text("")

    first = _sync(dee, "dee", tmp_path / "dee.out")
    _until(lambda: (gate / "entered").exists() or first.poll() is not None, 120)
    assert (gate / "entered").exists(), (tmp_path / "dee.out").read_text()
    second = _sync(cy, "cy", tmp_path / "cy.out")
    _until(lambda: second.poll() is not None or "waiting" in (tmp_path / "cy.out").read_text(), 60)
    (gate / "open").write_text("")
    first.wait(120)
    second.wait(120)

    said = (tmp_path / "cy.out").read_text()
    assert first.returncode == 0, (tmp_path / "dee.out").read_text()
    assert second.returncode == 0, said
    assert {"c1", "c2", "d1", "d2"} <= _items(team.remote)
    assert "refused" not in said, said
    (line,) = _warnings(said)  # (said once: each look gave its own age)
    assert "origin/agents/cy not updated: " in line, said


def test_a_lock_is_said_once_whatever_age_each_look_gave_it(tmp_path: Path) -> None:
    from git_vcontext.gitio import locks

    lock = str(_stale_lock(tmp_path, "refs/remotes/origin/main"))
    first = f"git fetch origin: origin/main not updated: {locks.advice(lock)}"
    later = first.replace(" s ago", "1 s ago")
    pushed = f"git push origin: origin/main not updated: {locks.advice(lock)}; the push landed"

    assert locks.said_once([first, "other", later, pushed, "other"]) == [first, "other"]


def test_the_push_keeps_none_of_gits_lock_paragraph_among_the_remotes_words(
    tmp_path: Path,
) -> None:
    """The lock's own note says it (its file, its safe removal): none of what git says of
    it stays among the push's words (``Pushed.said``: the remote's reasons, quoted after
    any ref the same push had rejected). git writes a blank line between its ``error:
    update_ref failed …`` line and the paragraph after it ("Another git process seems to
    be running …", "remove the file manually to continue."): that paragraph was kept,
    without the line naming the file it tells the person to remove."""
    from git_vcontext.gitio import remote as remotes

    team = setup(tmp_path, ["cy"])
    cy = team.agents["cy"]
    _stale_lock(cy, "refs/remotes/origin/main")
    _work(cy, "c1")
    head = git(cy, "rev-parse", "HEAD").stdout.strip()
    notes: list[str] = []

    pushed = remotes.push(
        str(cy), "origin", [remotes.Update(head, "refs/heads/main")], verify=False, notes=notes
    )  # (no hook: its notes of the agent's fork block on main are words of their own)

    assert [row.ok for row in pushed.rows] == [True]
    assert pushed.said == (), pushed.said
    (note,) = notes
    assert note.startswith("git push origin: origin/main not updated: ")
