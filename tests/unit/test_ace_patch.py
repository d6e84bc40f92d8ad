"""AcePatch (seed 002): reading, applying each operation, sequences; merging (M10) via merge3."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from git_vcontext.errors import Refused as AceError
from git_vcontext.merging import merge3
from git_vcontext.playbook.ace import apply_patch, document_sequence, read_patch
from helpers.playbook import ace_plan

NOW = "2025-06-01T12:00:00Z"


def _doc(**plan: Any) -> dict[str, Any]:
    """Seed 002's example plan (as JSON), with a sequence."""
    body = ace_plan(
        {"id": "entry-1", "kind": "strategy", "text": "Test first", "confidence": 0.95,
         "helpfulCount": 12, "harmfulCount": 0, "status": "active"},
        {"id": "entry-2", "kind": "learning", "text": "Validate early", "confidence": 0.9,
         "helpfulCount": 5, "harmfulCount": 0, "status": "active",
         "updatedAt": "2024-12-27T15:00:00Z"},
        **plan,
    )  # fmt: skip
    return {"vAgendaInfo": {"version": "0.2"}, "plan": body}


def _entries(data: Any) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in data["plan"]["playbook"]["entries"]}


SEED_PATCH = {
    "baseDocumentSequence": 12,
    "operations": [
        {"op": "incrementCounter", "entryId": "entry-1", "delta": {"helpfulCount": 1}},
        {
            "op": "appendEntry",
            "entry": {
                "id": "entry-3",
                "kind": "warning",
                "text": "Avoid rewriting",
                "status": "active",
            },
        },
    ],
}


def test_seed_002_patch_applies_and_bumps_sequence_and_version() -> None:
    data = _doc()
    out = apply_patch(data, read_patch(SEED_PATCH), now=NOW)
    assert not out.problems
    entries = _entries(out.data)
    assert entries["entry-1"]["helpfulCount"] == 13
    assert "entry-3" in entries
    assert document_sequence(out.data) == 13
    assert out.data["plan"]["playbook"]["version"] == 2
    assert out.data["plan"]["playbook"]["updated"] == NOW
    assert data == _doc()  # input untouched


def test_update_entry_changes_only_the_given_fields_and_refreshes_updated_at() -> None:
    patch = read_patch(
        {"operations": [{"op": "updateEntry", "entryId": "entry-2", "entry": {"text": "Now"}}]}
    )
    entry = _entries(apply_patch(_doc(), patch, now=NOW).data)["entry-2"]
    assert entry["text"] == "Now"
    assert entry["helpfulCount"] == 5
    assert entry["updatedAt"] == NOW


def test_deprecate_entry_is_soft_with_the_reason() -> None:
    patch = read_patch(
        {"operations": [{"op": "deprecateEntry", "entryId": "entry-1", "reason": "stale"}]}
    )
    entry = _entries(apply_patch(_doc(), patch, now=NOW).data)["entry-1"]
    assert entry["status"] == "deprecated"
    assert entry["deprecatedReason"] == "stale"
    assert entry["text"] == "Test first"


def test_identical_append_is_skipped_different_one_is_a_problem() -> None:
    existing = copy.deepcopy(_doc()["plan"]["playbook"]["entries"][0])
    same = read_patch({"operations": [{"op": "appendEntry", "entry": existing}]})
    out = apply_patch(_doc(), same, now=NOW)
    assert [op.op for op in out.skipped] == ["appendEntry"]
    assert not out.problems
    other = read_patch({"operations": [{"op": "appendEntry", "entry": {**existing, "text": "x"}}]})
    assert "exists" in apply_patch(_doc(), other, now=NOW).problems[0][1]


@pytest.mark.parametrize(
    ("op", "problem"),
    [
        ({"op": "incrementCounter", "entryId": "nope", "delta": {"helpfulCount": 1}}, "no entry"),
        ({"op": "incrementCounter", "entryId": "entry-1", "delta": {"likes": 1}}, "expected"),
        (
            {"op": "incrementCounter", "entryId": "entry-1", "delta": {"helpfulCount": 0.5}},
            "integer",
        ),
        ({"op": "updateEntry", "entryId": "entry-1", "entry": {"id": "entry-2"}}, "differs"),
    ],
)
def test_operations_that_do_not_apply_are_problems(op: dict[str, Any], problem: str) -> None:
    out = apply_patch(_doc(), read_patch({"operations": [op]}), now=NOW)
    assert problem in out.problems[0][1]


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ([], "not an AcePatch"),
        ({"operations": "x"}, "not an AcePatch"),
        ({"baseDocumentSequence": "12", "operations": []}, "integer"),
        ({"operations": [{"op": "explode"}]}, "unknown op"),
        ({"operations": [{"op": "incrementCounter"}]}, "entryId"),
        ({"operations": [{"op": "appendEntry", "entryId": "x"}]}, "needs an 'entry'"),
        ({"operations": [{"op": "incrementCounter", "entryId": "x"}]}, "delta"),
        ({"operations": [{"op": "updateEntry", "entry": []}]}, "object"),
    ],
)
def test_malformed_patches(patch: Any, message: str) -> None:
    with pytest.raises(AceError, match=message):
        read_patch(patch)


def test_event_log_playbooks_are_refused() -> None:
    data = {"playbook": {"items": [{"eventId": "e", "targetId": "t", "operation": "append"}]}}
    with pytest.raises(AceError, match="git vcontext playbook"):
        apply_patch(data, read_patch({"operations": []}), now=NOW)


def test_missing_sequence_counts_as_zero_and_is_added_only_with_a_guard() -> None:
    data = _doc()
    del data["plan"]["sequence"]
    assert document_sequence(data) == 0
    unguarded = apply_patch(data, read_patch({"operations": []}), now=NOW)
    assert "sequence" not in unguarded.data["plan"]
    guarded = apply_patch(data, read_patch({"baseDocumentSequence": 0, "operations": []}), now=NOW)
    assert guarded.data["plan"]["sequence"] == 1


def test_m10_concurrent_patch_merges_counters_additively() -> None:
    """A patch made at sequence 12, merged into a document that moved on to 13."""
    base = _doc()
    current = _doc(sequence=13)
    _entries(current)["entry-1"]["helpfulCount"] = 14
    patched = apply_patch(base, read_patch(SEED_PATCH), now=NOW).data
    result = merge3(base, current, patched)
    assert result.clean
    entries = _entries(result.data)
    assert entries["entry-1"]["helpfulCount"] == 15
    assert "entry-3" in entries
    assert result.data["plan"]["sequence"] == 14  # M8: both advanced


def test_m13_concurrent_deprecation_wins_over_active() -> None:
    base = _doc()
    current = _doc(sequence=13)
    _entries(current)["entry-1"]["status"] = "active"
    _entries(current)["entry-1"]["text"] = "Test first, always"
    patch = read_patch({"operations": [{"op": "deprecateEntry", "entryId": "entry-1"}]})
    patched = apply_patch(base, patch, now=NOW).data
    result = merge3(base, current, patched)
    assert result.clean
    assert _entries(result.data)["entry-1"]["status"] == "deprecated"
