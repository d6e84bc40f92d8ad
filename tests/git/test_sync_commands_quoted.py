"""The sync commands that ``sync`` and ``status`` print name each agent as one shell word
(``sync.advice.sync_command``), as their conflict lines already did.

PRODUCT.md: "Every conflict message of ``sync`` ends with the exact next command(s)"; an
agent name may hold what a shell reads (git takes ``$``, ``(``, a quote in a branch name):
the line a local sync into a base behind its upstream ends with, and the one ``status``
gives a branch only on the remote, ran ``$(…)`` or split the name when pasted.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from helpers.team import git, person_deletes_t1, setup, vcx

AGENT = "a$(id)'s;x"


def _command(text: str, tail: str) -> list[str]:
    found = re.search(r"(git vcontext sync .*?) " + re.escape(tail), text)
    assert found is not None, text
    return shlex.split(found.group(1))


def test_a_local_sync_behind_its_upstream_names_the_agents_sync_push_as_one_word_each(
    tmp_path: Path,
) -> None:
    team = setup(tmp_path, [AGENT])
    clone = team.agents[AGENT]
    person_deletes_t1(team)
    git(clone, "fetch", "-q", "origin")
    local = vcx(clone, "sync", AGENT)
    assert local.returncode == 0, local.stdout + local.stderr
    assert "main is behind origin/main" in local.stderr
    words = _command(local.stderr, "syncs with")
    assert words == ["git", "vcontext", "sync", AGENT, "--push", "origin"]


def test_status_names_the_sync_that_creates_a_branch_only_on_the_remote_as_one_word(
    tmp_path: Path,
) -> None:
    team = setup(tmp_path, [AGENT])
    git(team.agents[AGENT], "push", "-q", "origin", f"agents/{AGENT}")
    git(team.person, "fetch", "-q", "origin")
    shown = vcx(team.person, "status")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert _command(shown.stdout, "creates") == ["git", "vcontext", "sync", AGENT]
