"""A remote that refuses the integration lease: the way out sync prints leads somewhere.

PRODUCT.md, "Command-line contract": every message that advises a command gives one that
works; "Sync at scale": `sync --push` needs only a remote that takes refs outside
`refs/heads/`. A remote whose own hook refuses the lease alone is left with
`vcontext.syncLease=false`; one whose hook takes only branches and tags (it refused the
agent's branch and request of the same push too) was told the same, which then refused the
request in turn (found in trial11: a team's pre-receive chained before the guard). Real
bare remotes, real `git push`, the advice followed as printed.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import soak

BRANCHES_ONLY = """#!/bin/sh
while read old new ref; do
  case $ref in refs/heads/*|refs/tags/*) ;;
  *) echo "policy: only branches and tags may be pushed here ($ref)" >&2; exit 1;; esac
done
exit 0
"""

NO_LEASE = """#!/bin/sh
case $1 in refs/vcontext/lease/*) echo "policy: no leases here ($1)" >&2; exit 1;; esac
exit 0
"""


def _team(tmp_path: Path, hook: str, text: str) -> tuple[Path, Path]:
    """A guarded remote (``install --server --guard``) given the team's ``hook`` once the
    seed is on it: a pre-receive as install keeps one it finds (``.legacy``, run first)."""
    remote, [clone] = soak.setup(tmp_path, 1, guard=True)
    name = "pre-receive.legacy" if hook == "pre-receive" else hook
    (remote / "hooks" / name).write_text(text)
    (remote / "hooks" / name).chmod(0o755)
    return remote, clone


def _work(clone: Path, item: str) -> None:
    path = clone / soak.TODO
    data = json.loads(path.read_text())
    data["todoList"]["items"].append({"id": item, "title": item, "status": "pending"})
    path.write_text(json.dumps(data, indent=2) + "\n")
    soak.git(clone, "commit", "-qam", item)


def _on_remote_base(remote: Path, item: str) -> bool:
    text = soak.git(remote, "show", f"{soak.BASE}:{soak.TODO}").stdout
    return any(i["id"] == item for i in json.loads(text)["todoList"]["items"])


def test_a_remote_taking_only_branches_is_not_told_to_drop_the_lease(tmp_path: Path) -> None:
    remote, clone = _team(tmp_path, "pre-receive", BRANCHES_ONLY)
    _work(clone, "t-mine")

    done = soak.vcontext(clone, "sync", "agent-0", "--push", "origin", check=False)

    assert done.returncode == 1, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "syncLease=false integrates without a lease" not in said
    assert "not the lease alone" in said
    assert "refs under refs/vcontext/" in said
    assert "policy: only branches and tags" in said  # the remote's own line
    # the way out it names: sync here, then git push the base and the agent branch
    assert soak.vcontext(clone, "sync", "agent-0", check=False).returncode == 0
    pushed = soak.git(clone, "push", "origin", soak.BASE, "agents/agent-0", check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert _on_remote_base(remote, "t-mine")


def test_a_remote_refusing_the_lease_alone_is_told_to_drop_the_lease_which_lands(
    tmp_path: Path,
) -> None:
    remote, clone = _team(tmp_path, "update", NO_LEASE)
    _work(clone, "t-mine")

    done = soak.vcontext(clone, "sync", "agent-0", "--push", "origin", check=False)

    assert done.returncode == 1, done.stdout + done.stderr
    assert "(vcontext.syncLease=false integrates without a lease)" in done.stdout + done.stderr
    soak.git(clone, "config", "vcontext.syncLease", "false")
    again = soak.vcontext(clone, "sync", "agent-0", "--push", "origin", check=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert _on_remote_base(remote, "t-mine")
