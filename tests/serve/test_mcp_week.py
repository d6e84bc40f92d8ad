"""The week (issue 34, "Done when"): three agents with one MCP session each on their own
clones and ``agents/NAME`` branches, one person editing ``tasks.vcontext.json`` on main and
pushing through the pre-push hook, one bare remote, ``sync --push``, over seeded random
schedules (``helpers.week``).

At the end every agent's last ``sync --push`` exits 0, the remote's base validates and git
fsck is clean, every value each actor published is on the base, every agent branch holds
the base's items, and nothing printed a traceback. Each actor does only what the tool's
own answers and the README say.

CI runs the fixed seeds below, each with every ingredient (several creations of one
playbook target, a task depending on one the other side deleted, a plan converted half-way),
and each ingredient alone; a nightly-style run draws more:
``VCONTEXT_WEEK_SEEDS=50 python -m pytest -n 2 tests/serve/test_mcp_week.py`` (or a list
of seeds).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import week
from helpers.mcp_support import run

SEEDS = [1, 2, 3]


def _week(tmp_path: Path, seed: int, ingredients: frozenset[str]) -> week.Week:
    the_week = week.Week(tmp_path, seed, ingredients)
    run(the_week.run)
    week.check(the_week)
    return the_week


@pytest.mark.parametrize("seed", week.seeds_from_env(SEEDS))
def test_the_week_lands_every_agent_and_loses_nothing(tmp_path: Path, seed: int) -> None:
    the_week = _week(tmp_path, seed, frozenset(week.INGREDIENTS))
    kinds = {kind for actor, _path, kind in the_week.ledger.conflicts if actor != "person"}
    # the shared task the person deleted while agents updated it, or added dependencies on it
    assert kinds & {"delete/modify", "delete/reference"}


@pytest.mark.parametrize("ingredient", week.INGREDIENTS)
def test_the_week_with(tmp_path: Path, ingredient: str) -> None:
    _week(tmp_path, SEEDS[0], frozenset({ingredient}))
