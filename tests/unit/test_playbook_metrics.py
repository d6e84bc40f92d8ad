"""M10: ``playbook.metrics`` recomputed from the log; stored values that agree are kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from git_vcontext.merging import merge3
from git_vcontext.playbook import find_playbooks, recompute_metrics
from git_vcontext.playbook.metrics import metric_differences
from helpers.playbook import doc, ev, seed_blocks


def test_m10_seed_metrics_already_agree_and_keep_their_spelling(shared_dir: Path) -> None:
    blocks = seed_blocks(shared_dir, "000") + seed_blocks(shared_dir, "001")
    playbooks = [pb for b in blocks for _, pb in find_playbooks(b)]
    playbooks += [b for b in blocks if isinstance(b, dict) and "entries" in b]  # a bare Playbook
    with_metrics = [p for p in playbooks if "metrics" in p]
    assert len(with_metrics) == 3
    for playbook in with_metrics:
        assert recompute_metrics(playbook) == playbook["metrics"]
        assert metric_differences(playbook["metrics"], recompute_metrics(playbook)) == []


def test_m10_counts_targets_current_confidence_and_latest_instant() -> None:
    log = [
        ev("e1", "a", "append", at=0, confidence=0.2),
        ev("e2", "a", prev="e1", at=1, confidence=0.8),  # the current confidence of a
        ev("e3", "b", "append", at="2025-01-01T05:00:00+05:00", confidence=0.4),  # 00:00Z
        ev("e4", "c", "append", at=2),  # no confidence
    ]
    playbook = doc(log, metrics={"totalEntries": 1, "custom": "kept"})["playbook"]
    assert recompute_metrics(playbook) == {
        "totalEntries": 3,
        "custom": "kept",
        "averageConfidence": 0.6,
        "lastUpdated": "2025-01-01T00:02:00Z",
    }


def test_m10_stored_values_that_agree_are_kept() -> None:
    log = [
        ev(f"e{i}", f"t{i}", "append", at=i, confidence=c) for i, c in enumerate((0.9, 0.95, 0.85))
    ]
    stored = {
        "lastUpdated": "2025-01-01T01:02:00+01:00",
        "averageConfidence": 0.9,
        "totalEntries": 3,
    }
    playbook: dict[str, Any] = doc(log, metrics=dict(stored))["playbook"]
    assert recompute_metrics(playbook) == stored  # 0.9000000000000001 and +01:00 agree


def test_m10_without_events_last_updated_is_the_playbook_updated() -> None:
    playbook = {"updated": "2025-12-27T08:00:00Z", "entries": [], "metrics": {"totalEntries": 0}}
    assert recompute_metrics(playbook) == {"totalEntries": 0, "lastUpdated": "2025-12-27T08:00:00Z"}


def test_m10_ace_entries() -> None:
    playbook = {
        "entries": [
            {"id": "a", "confidence": 1.0, "updatedAt": "2025-01-02T00:00:00Z"},
            {"id": "b", "confidence": 0.5, "createdAt": "2025-01-03T00:00:00Z"},
        ],
        "metrics": {"totalEntries": 9, "averageConfidence": 0.1},
    }
    assert recompute_metrics(playbook) == {
        "totalEntries": 2,
        "averageConfidence": 0.75,
        "lastUpdated": "2025-01-03T00:00:00Z",
    }


def test_metric_differences_lists_each_wrong_key() -> None:
    stored = {"totalEntries": 2, "averageConfidence": 0.5}
    new = {"totalEntries": 3, "lastUpdated": "2025-01-01T00:00:00Z"}
    assert metric_differences(stored, new) == [
        ("totalEntries", 2, 3),
        ("averageConfidence", 0.5, None),
        ("lastUpdated", None, "2025-01-01T00:00:00Z"),
    ]
    assert metric_differences(None, new) == []


def test_m10_merge_recomputes_metrics_of_the_merged_log() -> None:
    base = doc([ev("e1", "a", "append", at=0)], metrics={"totalEntries": 1})
    ours = doc([ev("e1", "a", "append", at=0), ev("o1", "b", "append", at=1)],
               metrics={"totalEntries": 2, "lastUpdated": "2025-01-01T00:01:00Z"})  # fmt: skip
    theirs = doc([ev("e1", "a", "append", at=0), ev("t1", "c", "append", at=2)],
                 metrics={"totalEntries": 2, "lastUpdated": "2025-01-01T00:02:00Z"})  # fmt: skip
    result = merge3(base, ours, theirs)
    assert result.clean
    assert result.data["playbook"]["metrics"] == {
        "totalEntries": 3,
        "lastUpdated": "2025-01-01T00:02:00Z",
    }
