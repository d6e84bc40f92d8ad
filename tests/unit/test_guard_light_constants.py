"""The guard's light path (``prepush.light``) keeps copies of a few names rather than load the
modules that own them (issue 28: every module is paid at every push); the copies must say
what the owners say, or the light path would judge by other rules than the full check."""

from __future__ import annotations

from git_vcontext.branches import agent_prefix_of
from git_vcontext.prepush import light
from git_vcontext.validation.projections import EVENTS, drift_targets
from git_vcontext.vermas.project import PROJECTIONS


def test_one_reading_of_the_agent_prefix_for_the_commands_and_both_guard_paths() -> None:
    """``branches.agent_prefix_of`` is what ``branches.agents.agent_prefix``, the light
    path and the fast path all read the setting by (no copy left to drift)."""
    assert agent_prefix_of(None) == agent_prefix_of("") == "agents/"
    assert agent_prefix_of("bots") == agent_prefix_of(" bots/ ") == "bots/"
    assert agent_prefix_of("-x") is None
    assert agent_prefix_of("  -x/") is None


def test_every_file_a_projection_drift_depends_on_ends_as_the_light_path_expects() -> None:
    names = [EVENTS, *PROJECTIONS]
    assert all(name.endswith(light.PROJECTION_SUFFIX) for name in names)
    for name in names:  # each of them, anywhere, has drift targets: the pre-filter lets it by
        assert drift_targets([f"team/{name}"])
        assert drift_targets([name])
    assert not drift_targets(["team/todo.vcontext.json", "plan.tron", "x.jsonl.json"])
