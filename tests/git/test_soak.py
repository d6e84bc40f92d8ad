"""Soak: 4 agent processes × 5 rounds of edit → commit → `sync --push` against one bare
remote, each clone with the pre-push hook installed.

PRODUCT.md, "Sync at scale": many agents lose no event and no sync gives up; `sync
--push` exiting 0 means the agent's round is on the remote's base, so when the agents
stop, every item, plan item, playbook event and changeLog entry any of them wrote is
there; a batch adds at most one M8 `merge` entry per integration. Also: every document
validates, the base holds no fork block (M11), and every agent's view after a final
sync equals a fresh clone.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from git_vcontext.validation.files import check_bytes
from helpers import soak

AGENTS = 4
ROUNDS = 5


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[soak.SoakRun, Path]]:
    """One soak for the module (it is the expensive part), with git's config isolated."""
    root = tmp_path_factory.mktemp("soak")
    with pytest.MonkeyPatch.context() as mp:
        home = root / "home"
        home.mkdir()
        mp.setenv("HOME", str(home))
        mp.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        mp.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        for var in ("GIT_DIR", "GIT_WORK_TREE", "SOURCE_DATE_EPOCH"):
            mp.delenv(var, raising=False)
        result = soak.soak(root, AGENTS, ROUNDS)
        yield result, soak.fresh_clone(result, root)


def _show(repo: Path, rev: str, rel: str) -> Any:
    out = subprocess.run(["git", "show", f"{rev}:{rel}"], cwd=repo, capture_output=True, check=True)
    return parse(out.stdout, path=rel).data


def test_no_sync_gives_up_crashes_or_conflicts(run: tuple[soak.SoakRun, Path]) -> None:
    """Sync at scale: no sync gives up (the contract used to allow it mid-run)."""
    result, _ = run
    for log in result.logs:
        for s in log.syncs:
            assert s["exit"] == 0, s["output"]
            assert "CONFLICT" not in s["output"]
            assert "Traceback" not in s["output"]
    assert [s["exit"] for s in result.final_syncs] == [0] * len(result.final_syncs), [
        s["output"] for s in result.final_syncs if s["exit"]
    ]


def test_every_agents_last_round_is_on_the_base_when_the_agents_stop(
    run: tuple[soak.SoakRun, Path],
) -> None:
    """sync --push exiting 0 means the round is on the remote's base: nothing waits for
    the final syncs."""
    result, _ = run
    assert soak.last_rounds_missing(result, result.at_end) == []
    assert soak.lost(result, result.at_end) == {
        "items": [],
        "plan_items": [],
        "events": [],
        "changes": [],
    }


def test_m8_at_most_one_merge_entry_per_integration(run: tuple[soak.SoakRun, Path]) -> None:
    """One merge commit per integration, however many agents' rounds it merged, and at
    most one M8 ``merge`` entry per integration (not one per round merged)."""
    result, fresh = run
    merged = soak.merges_into_base(result.remote)
    integrations = soak.integrations(result.remote)
    assert merged == AGENTS * ROUNDS  # every round reached the base through an integration
    assert integrations <= merged
    assert soak.merge_entries(soak.documents(fresh)) <= integrations


def test_every_push_passed_the_installed_pre_push_hook(run: tuple[soak.SoakRun, Path]) -> None:
    """The clones have the hook installed (as a user's do) and their pushes were checked as
    it checks them (by sync in process, which then skips the hook, or by the hook): the
    verdict cache holds what was checked, and no sync was refused."""
    result, _ = run
    for clone in result.clones:
        hook = (clone / ".git" / "hooks" / "pre-push").read_text()
        assert "git-vcontext-hook-marker" in hook
        packs = list((clone / ".git" / "vcontext" / "verdicts").glob("*/*.pack.json"))
        assert packs, f"the pre-push hook of {clone.name} never ran"
    outputs = [s["output"] for log in result.logs for s in log.syncs]
    assert not [out for out in outputs if "pre-push" in out or "hook declined" in out]


def test_no_event_or_item_is_lost_on_the_remote_base(run: tuple[soak.SoakRun, Path]) -> None:
    result, fresh = run
    docs = soak.documents(fresh)
    assert soak.lost(result, docs) == {"items": [], "plan_items": [], "events": [], "changes": []}
    assert soak.duplicates(docs) == []
    written = sum(len(log.events) for log in result.logs)
    assert len(docs[soak.PLAYBOOK]["playbook"]["items"]) == written + 1  # + the seed event


def test_every_document_validates(run: tuple[soak.SoakRun, Path]) -> None:
    _, fresh = run
    for rel in soak.DOCUMENTS:
        report = check_bytes((fresh / rel).read_bytes(), rel)
        assert report.valid, report.lines()
    proc = soak.vcontext(fresh, "validate", check=False)  # every tracked vContext file
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_change_log_sequence_stays_non_decreasing(run: tuple[soak.SoakRun, Path]) -> None:
    _, fresh = run
    change_log = soak.documents(fresh)[soak.TODO]["todoList"]["changeLog"]
    sequences = [c["sequence"] for c in change_log]
    assert sequences == sorted(sequences)  # Validation: sequence non-decreasing in changeLog


def test_m11_the_base_holds_no_fork_block(run: tuple[soak.SoakRun, Path]) -> None:
    _, fresh = run
    for rel, data in soak.documents(fresh).items():
        assert soak.without_fork(data) == data, rel


def test_every_agent_view_equals_a_fresh_clone(run: tuple[soak.SoakRun, Path]) -> None:
    result, fresh = run
    expected = soak.documents(fresh)
    for clone in result.clones:
        view = soak.documents(clone)
        for rel in soak.DOCUMENTS:
            assert soak.without_fork(view[rel]) == expected[rel], (clone.name, rel)
            assert _show(clone, soak.BASE, rel) == expected[rel], (clone.name, rel)


def test_m11_agent_forks_are_merged_and_know_the_parent_sequence(
    run: tuple[soak.SoakRun, Path],
) -> None:
    result, fresh = run
    expected = soak.documents(fresh)
    for clone in result.clones:
        view = soak.documents(clone)
        for rel, key in ((soak.TODO, "todoList"), (soak.PLAN, "plan")):
            block = view[rel][key]["fork"]
            assert block["mergeStatus"] == "merged", (clone.name, rel)
            assert block["parentSequence"] == expected[rel][key]["sequence"], (clone.name, rel)
