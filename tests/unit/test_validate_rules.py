"""PRODUCT.md "Validation": every semantic rule has a failing and a passing case."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from git_vcontext.spelling import Number
from git_vcontext.validation import validate
from git_vcontext.validation.rules import RULES

AGENT = {"id": "a1", "type": "aiAgent"}
PROPOSAL = {"proposal": "Do it."}  # seed 000: a Plan's narratives.proposal is required


def todo(*items: dict[str, Any], **container: Any) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "todoList": {**container, "items": list(items)}}


def item(ident: str, **fields: Any) -> dict[str, Any]:
    return {"id": ident, "title": ident.upper(), "status": "pending", **fields}


def event(eid: str, target: str, op: str = "append", **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"eventId": eid, "targetId": target, "operation": op}
    if op in ("append", "initial"):
        base.update(kind="rule", text="Write tests first.")
    return {**base, "createdAt": "2025-01-01T00:00:00Z", **fields}


def playbook(*events: dict[str, Any]) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": list(events)}}


def rules_of(data: Any) -> list[str]:
    return [f.rule for f in validate(data).findings]


def pointers(data: Any, rule: str) -> list[str]:
    return [f.pointer for f in validate(data).findings if f.rule == rule]


def test_a_valid_todo_list_has_no_findings() -> None:
    doc = todo(item("t1"), item("t2", dependencies=["t1"], created="2025-01-01T10:00:00+02:00"))
    report = validate(doc)
    assert report.valid
    assert report.findings == ()
    assert report.skipped == ()


# -- container ---------------------------------------------------------------


def test_container_rule_none_and_two_containers() -> None:
    assert rules_of({"vContextInfo": {"version": "0.4"}}) == ["container"]
    both = {**todo(item("t1")), "plan": {"title": "P", "status": "draft"}}
    assert rules_of(both) == ["container"]
    assert pointers(both, "container") == ["/plan"]


# -- version -----------------------------------------------------------------


@pytest.mark.parametrize("version", ["0.2", "0.3"])
def test_version_rule_older_vcontext_needs_migration(version: str) -> None:
    doc = todo(item("t1"))
    doc["vContextInfo"]["version"] = version
    (finding,) = validate(doc).findings
    assert finding.rule == "version"
    assert finding.pointer == "/vContextInfo/version"
    assert "migrate" in finding.message


def test_version_rule_unknown_vcontext_version() -> None:
    doc = todo(item("t1"))
    doc["vContextInfo"]["version"] = "0.5"
    assert rules_of(doc) == ["version"]
    assert rules_of(todo(item("t1"))) == []


@pytest.mark.parametrize(
    ("info", "pointer", "says"),
    [
        ({}, "/vContextInfo", "no version"),
        ({"version": 0.4}, "/vContextInfo/version", "the number 0.4"),
        ({"version": Number("0.40", 0.4)}, "/vContextInfo/version", "the number 0.40"),
        ({"version": None}, "/vContextInfo/version", "null"),
        ("0.4", "/vContextInfo", "the string"),
    ],
)
def test_version_rule_a_missing_or_numeric_version_is_invalid_and_checks_still_run(
    info: Any, pointer: str, says: str
) -> None:
    """PRODUCT.md "Validation": missing or numeric versions are invalid (rule version), never
    a reason to skip the schema: the bad status is still found."""
    doc = {"vContextInfo": info, "todoList": {"items": [item("t1", status="bogus")]}}
    report = validate(doc)
    assert {(f.rule, f.pointer) for f in report.findings} == {
        ("version", pointer),
        ("schema", "/todoList/items/0/status"),
    }
    (version,) = [f for f in report.findings if f.rule == "version"]
    assert says in version.message
    assert report.skipped == ()


def test_version_rule_old_versions_need_migration_and_are_still_checked() -> None:
    doc = {"vContextInfo": {"version": "0.3"}, "todoList": {"items": [item("t1", status="x")]}}
    assert sorted(rules_of(doc)) == ["schema", "version"]


def test_version_rule_a_container_without_any_info_is_a_document_missing_its_version() -> None:
    doc = {"todoList": {"items": [item("t1"), item("t1")]}}
    assert [(f.rule, f.pointer) for f in validate(doc).findings] == [
        ("version", ""),
        ("unique-id", "/todoList/items/1/id"),
    ]


def test_version_rule_vbrief_and_vagenda_roots_keep_their_version_checks() -> None:
    """Validation (PRODUCT.md): a missing or numeric version is never a reason to skip checks,
    for vBRIEF and vAgenda roots too (every real one in the corpus names a string)."""
    plan = {"title": "P", "status": "x", "items": []}
    brief = {"vBRIEFInfo": {"version": 0.5}, "plan": plan}
    report = validate(brief)
    assert not report.valid
    assert [(f.rule, f.pointer) for f in report.findings] == [("version", "/vBRIEFInfo/version")]
    assert any("vBRIEF (no version)" in s for s in report.skipped)
    assert rules_of({"vBRIEFInfo": {}, "plan": plan}) == ["version"]
    assert rules_of({"vAgendaInfo": {"title": "x"}, "todoList": {"items": []}}) == ["version"]
    assert rules_of({"vBRIEFInfo": "0.5", "plan": {"title": "P", "status": "x"}}) == ["schema"]


def test_vagenda_and_vbrief_versions_say_which_checks_were_skipped() -> None:
    agenda = {"vAgendaInfo": {"version": "0.3"}, "todoList": {"items": [item("t1")]}}
    report = validate(agenda)
    assert report.valid
    assert any("vAgenda predates" in s for s in report.skipped)
    brief: dict[str, Any] = {
        "vBRIEFInfo": {"version": "0.6"},
        "plan": {"title": "P", "status": "x", "items": []},
    }
    report = validate(brief)
    assert report.valid
    assert any("vBRIEF 0.6" in s for s in report.skipped)
    dup = copy.deepcopy(brief)
    dup["plan"]["items"] = [item("a"), item("a")]
    assert rules_of(dup) == ["unique-id"]  # semantic rules still run


def test_vbrief_04_is_checked_by_the_core_schema() -> None:
    doc = todo(item("t1", status="done"))
    doc["vBRIEFInfo"] = doc.pop("vContextInfo")
    assert rules_of(doc) == ["schema"]


# -- unique ids --------------------------------------------------------------


def test_unique_id_within_a_container_including_sub_items() -> None:
    doc = todo(item("t1", subItems=[item("t2")]), item("t2"))
    assert pointers(doc, "unique-id") == ["/todoList/items/1/id"]
    assert rules_of(todo(item("t1", subItems=[item("t2")]), item("t3"))) == []


def test_unique_id_scopes_a_plan_items_own_todo_list_separately() -> None:
    plan = {
        "vContextInfo": {"version": "0.4"},
        "plan": {
            "title": "P",
            "status": "draft",
            "narratives": {"proposal": "Split the work."},
            "items": [item("s1", todoList={"items": [item("s1")]})],
        },
    }
    assert rules_of(plan) == []


def test_unique_event_id() -> None:
    doc = playbook(event("e1", "x"), event("e1", "y"))
    (finding,) = validate(doc).findings
    assert finding.rule == "unique-event-id"
    assert finding.pointer == "/playbook/items/1"
    assert rules_of(playbook(event("e1", "x"), event("e2", "y"))) == []


# -- playbook invariants (anomalies of playbook/) ----------------------------


@pytest.mark.parametrize(
    ("events", "rule"),
    [
        ([event("e1", "x"), event("e2", "x", "update", prevEventId="e9")], "dangling-prev"),
        (
            [event("e1", "x"), event("e2", "y"), event("e3", "x", "update", prevEventId="e2")],
            "cross-target-prev",
        ),
        ([event("e1", "x", prevEventId="e0"), event("e0", "x", "update")], "append-with-prev"),
        ([event("e1", "x"), event("e2", "x", "update")], "update-without-prev"),
    ],
)
def test_playbook_invariants_are_rules(events: list[dict[str, Any]], rule: str) -> None:
    assert f"playbook-{rule}" in rules_of(playbook(*events))


def test_concurrent_creations_of_one_target_are_a_note_not_an_error() -> None:
    """Issue 26 (PRODUCT.md "Playbook view"): two agents creating ``dlq`` on their branches
    is concurrency: several roots of one entry, noted (``playbook-duplicate-creation``),
    the document valid. It was an error, whose advice the history check then refused."""
    report = validate(playbook(event("e1", "x"), event("e2", "x")))
    assert report.valid
    assert [f.rule for f in report.notes] == ["playbook-duplicate-creation"]
    assert "several roots of one entry" in report.notes[0].message


def test_concurrent_creations_settled_by_an_update_are_no_longer_advised_to_be_settled() -> None:
    """PRODUCT.md "Playbook view" (an update after the winner settles concurrent heads):
    once that update is there, validate's note stays a fact of the log but no longer
    advises what was done ("an update after the winner settles the heads they left"
    after ``playbook update`` did it: found in trial9); it names the settling update."""
    created = [
        event("e1", "dlq", createdAt="2025-01-01T00:00:00Z"),
        event("e2", "dlq", createdAt="2025-01-02T00:00:00Z"),
    ]
    (before,) = validate(playbook(*created)).notes
    assert "an update after the winner settles the heads they left" in before.message
    update = event("e3", "dlq", "update", prevEventId="e2", createdAt="2025-01-03T00:00:00Z")

    report = validate(playbook(*created, update))

    assert report.valid
    (note,) = report.notes
    assert note.rule == "playbook-duplicate-creation"
    assert "several roots of one entry" in note.message
    assert "settles the heads they left" not in note.message
    assert "settled by e3, an update after the winner" in note.message


def test_playbook_cycle_is_a_rule() -> None:
    events = [
        event("e1", "x", "update", prevEventId="e2"),
        event("e2", "x", "update", prevEventId="e1"),
    ]
    assert "playbook-cycle" in rules_of(playbook(*events))


def test_playbook_chain_passes() -> None:
    events = [event("e1", "x"), event("e2", "x", "update", prevEventId="e1", confidence=0.5)]
    assert rules_of(playbook(*events)) == []


def test_playbook_creation_needs_kind_and_narrative_or_text() -> None:
    no_content = event("e1", "x")
    del no_content["text"]
    (finding,) = validate(playbook(no_content)).findings
    assert finding.rule == "schema"
    assert "'narrative' or 'text'" in finding.message
    no_kind = event("e1", "x")
    del no_kind["kind"]
    assert [f.message for f in validate(playbook(no_kind)).findings] == [
        "missing required field 'kind'; add it"
    ]
    with_narrative = event("e1", "x", narrative={"Background": "b"})
    del with_narrative["text"]
    assert rules_of(playbook(with_narrative)) == []


def test_embedded_playbook_is_checked_too() -> None:
    doc = todo(item("t1"), playbook={"items": [event("e1", "x"), event("e1", "y")]})
    assert "unique-event-id" in rules_of(doc)


# -- datetimes ----------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["2025-01-01T10:00:00", "2025-01-01", "yesterday", "2025-13-01T10:00:00Z", "2025-01-01T10:00Z"],
)
def test_datetime_rule_rejects(value: str) -> None:
    doc = todo(item("t1", dueDate=value))
    assert pointers(doc, "datetime") == ["/todoList/items/0/dueDate"]


@pytest.mark.parametrize(
    "value", ["2025-01-01T10:00:00Z", "2025-01-01T10:00:00.123+05:30", "2025-01-01t10:00:00z"]
)
def test_datetime_rule_accepts(value: str) -> None:
    assert rules_of(todo(item("t1", dueDate=value))) == []


def test_datetime_rule_message_says_what_to_add() -> None:
    (finding,) = validate(todo(item("t1", created="2025-01-01T10:00:00"))).findings
    assert "no UTC offset" in finding.message
    assert '"Z"' in finding.message


@pytest.mark.parametrize(
    "value",
    [
        "2025-02-30T10:00:00Z",  # February 30
        "2025-02-29T10:00:00Z",  # not a leap year
        "1900-02-29T10:00:00Z",  # a century that is not a leap year
        "2025-04-31T10:00:00Z",
        "2025-01-01T24:00:00Z",
        "2016-12-30T23:59:60Z",  # a leap second only ends a month
        "2016-12-31T12:59:60Z",  # ... at 23:59:60 UTC
    ],
)
def test_datetime_rule_real_calendar_dates_and_times(value: str) -> None:
    (finding,) = validate(todo(item("t1", dueDate=value))).findings
    assert finding.rule == "datetime"
    assert finding.pointer == "/todoList/items/0/dueDate"
    assert "real" in finding.message or "leap second" in finding.message


@pytest.mark.parametrize(
    "value",
    [
        "2024-02-29T10:00:00Z",
        "2000-02-29T10:00:00Z",
        "2016-12-31T23:59:60Z",  # the leap second of 2016 (RFC 3339 5.7)
        "2016-12-31T18:59:60-05:00",  # the same second, in New York
        "2017-01-01T00:59:60+01:00",  # ... and in Paris, already the next day
    ],
)
def test_datetime_rule_accepts_leap_days_and_leap_seconds(value: str) -> None:
    assert rules_of(todo(item("t1", dueDate=value))) == []


def test_schedule_calendar_dates_are_real_dates_too() -> None:
    plan_item = item("p1", startDate="2026-02-30")
    plan = {
        "vContextInfo": {"version": "0.4"},
        "plan": {"title": "P", "status": "draft", "items": [plan_item]},
    }
    assert pointers(plan, "datetime") == ["/plan/items/0/startDate"]


def test_schedule_dates_may_be_calendar_dates() -> None:
    plan_item = item("p1", startDate="2026-02-10", endDate="2026-03-01T00:00:00Z")
    plan = {
        "vContextInfo": {"version": "0.4"},
        "plan": {"title": "P", "status": "draft", "narratives": PROPOSAL, "items": [plan_item]},
    }
    assert rules_of(plan) == []


# -- changeLog ----------------------------------------------------------------


def change(seq: int) -> dict[str, Any]:
    return {
        "sequence": seq,
        "timestamp": "2025-01-01T00:00:00Z",
        "agent": AGENT,
        "operation": "update",
    }


def test_changelog_sequence_must_not_decrease() -> None:
    doc = todo(item("t1"), sequence=5, changeLog=[change(1), change(3), change(2)])
    assert pointers(doc, "changelog-sequence") == ["/todoList/changeLog/2/sequence"]


def test_changelog_sequence_not_above_the_container() -> None:
    doc = todo(item("t1"), sequence=2, changeLog=[change(1), change(3)])
    (finding,) = validate(doc).findings
    assert finding.rule == "changelog-sequence"
    assert "raise that to 3" in finding.message


def test_changelog_sequence_passes() -> None:
    assert rules_of(todo(item("t1"), sequence=3, changeLog=[change(1), change(1), change(3)])) == []


# -- dependencies -------------------------------------------------------------


def test_dependency_missing() -> None:
    doc = todo(item("t1", dependencies=["t9"]))
    (finding,) = validate(doc).findings
    assert finding.rule == "dependency-missing"
    assert finding.pointer == "/todoList/items/0/dependencies/0"


def test_dependency_cycle() -> None:
    doc = todo(
        item("a", dependencies=["c"]), item("b", dependencies=["a"]), item("c", dependencies=["b"])
    )
    (finding,) = validate(doc).findings
    assert finding.rule == "dependency-cycle"
    assert "a -> b -> c -> a" in finding.message


def test_dependency_self_cycle() -> None:
    assert rules_of(todo(item("a", dependencies=["a"]))) == ["dependency-cycle"]


def test_dependencies_across_sub_items_pass() -> None:
    doc = todo(item("a", subItems=[item("a1")]), item("b", dependencies=["a1", "a"]))
    assert rules_of(doc) == []


def test_blocking_edges_form_no_cycle_but_informing_edges_may() -> None:
    items = [item("a"), item("b")]
    blocks = [
        {"from": "a", "to": "b", "type": "blocks"},
        {"from": "b", "to": "a", "type": "blocks"},
    ]
    informs = [
        {"from": "a", "to": "b", "type": "blocks"},
        {"from": "b", "to": "a", "type": "informs"},
    ]

    def doc(edges: list[dict[str, str]]) -> dict[str, Any]:
        plan = {"title": "P", "status": "approved", "items": items, "edges": edges}
        return {"vBRIEFInfo": {"version": "0.5"}, "plan": plan}

    assert rules_of(doc(blocks)) == ["dependency-cycle"]
    assert rules_of(doc(informs)) == []
    assert rules_of(doc([{"from": "a", "to": "zz"}])) == ["dependency-missing"]


# -- fork ---------------------------------------------------------------------


def fork(**fields: Any) -> dict[str, Any]:
    return {"parentUid": "u1", "parentSequence": 3, "forkedAt": "2025-01-01T00:00:00Z", **fields}


def conflicts(*statuses: str) -> dict[str, Any]:
    listed = [{"path": "$.todoList.items[0].status", "status": s} for s in statuses]
    return {"strategy": "threeWayMerge", "conflicts": listed}


def test_fork_parent_sequence_not_negative() -> None:
    doc = todo(item("t1"), uid="u1", fork=fork(parentSequence=-1))
    assert pointers(doc, "fork-parent-sequence") == ["/todoList/fork/parentSequence"]
    assert rules_of(todo(item("t1"), uid="u1", fork=fork(parentSequence=0))) == []


@pytest.mark.parametrize(
    ("status", "resolution", "ok"),
    [
        ("conflict", conflicts("unresolved"), True),
        ("merged", conflicts("resolved"), True),
        ("unmerged", None, True),
        ("conflict", None, False),
        ("conflict", conflicts("resolved"), False),
        ("merged", conflicts("unresolved", "resolved"), False),
        ("mergePending", conflicts("unresolved"), False),
    ],
)
def test_fork_merge_status_agrees_with_conflict_resolution(
    status: str, resolution: dict[str, Any] | None, ok: bool
) -> None:
    block = fork(mergeStatus=status)
    if resolution is not None:
        block["conflictResolution"] = resolution
    found = rules_of(todo(item("t1"), fork=block))
    assert [r for r in found if r != "conflict-unresolved"] == ([] if ok else ["fork-merge-status"])
    # a Conflict left "unresolved" is always a finding of its own (PRODUCT.md "Validation")
    unresolved = "unresolved" in [c["status"] for c in (resolution or {}).get("conflicts", [])]
    assert ("conflict-unresolved" in found) == unresolved


# -- structured conflicts ----------------------------------------------------------


def test_conflict_unresolved_in_the_info_metadata_is_a_finding_per_conflict() -> None:
    """PRODUCT.md "Validation" (conflict-unresolved): what conflictStyle structured writes."""
    doc = todo(item("t1"))
    doc["vContextInfo"]["metadata"] = {"conflictResolution": conflicts("unresolved", "resolved")}
    (finding,) = validate(doc).findings
    assert finding.rule == "conflict-unresolved"
    assert finding.pointer == "/vContextInfo/metadata/conflictResolution/conflicts/0/status"
    assert "$.todoList.items[0].status" in finding.message
    doc["vContextInfo"]["metadata"] = {"conflictResolution": conflicts("resolved", "deferred")}
    assert rules_of(doc) == []


# -- conflict markers in values --------------------------------------------------


def test_conflict_markers_inside_a_string_value() -> None:
    text = "<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n"
    doc = todo(item("t1", narrative={"Background": text}))
    assert pointers(doc, "conflict-markers") == ["/todoList/items/0/narrative/Background"]
    assert rules_of(todo(item("t1", narrative={"Background": "a <<<<<<< b"}))) == []


# -- not vContext ---------------------------------------------------------------


@pytest.mark.parametrize("value", [{"name": "x"}, None, 3, True, {"plan": "pro"}])
def test_not_vcontext(value: Any) -> None:
    assert rules_of(value) == ["not-vcontext"]


@pytest.mark.parametrize(
    "value",
    [
        {"vContextInfo": "0.4"},
        {"vBRIEFInfo": None, "plan": {}},
        {"todoList": {"items": []}},
        {"playbook": {"items": []}},
        {"operations": []},  # an ACE patch (seed 002)
    ],
)
def test_what_counts_as_a_vcontext_document(value: Any) -> None:
    """An info key (any value) or a container object at the top makes a document: it is
    checked, never skipped as "not a vContext document"."""
    from git_vcontext.validation.checks import is_document

    assert is_document(value)
    assert "not-vcontext" not in rules_of(value)


def test_text_is_parsed_first_and_a_list_is_a_list_of_jsonl_records() -> None:
    assert rules_of("{not json") == ["parse"]
    assert rules_of('{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}') == []
    events = [{"event_id": "e1"}, {"event_id": "e1"}]
    assert "unique-event-id" in rules_of(events)


def test_every_reported_rule_is_listed() -> None:
    samples = [
        todo(item("t1", dependencies=["t9"]), item("t1")),
        playbook(event("e1", "x"), event("e1", "x"), event("e3", "x", "update")),
        {"x": 1},
    ]
    for sample in samples:
        assert {f.rule for f in validate(sample).findings} <= set(RULES)


def test_a_playbook_in_the_pre_event_log_form_is_one_finding() -> None:
    items = [{"title": "A", "status": "active", "content": "x"} for _ in range(5)]
    doc = {"vContextInfo": {"version": "0.4"}, "playbook": {"items": items}}
    (finding,) = validate(doc).findings
    assert finding.rule == "schema"
    assert finding.pointer == "/playbook/items"
    assert "pre-0.4 form" in finding.message


def test_json_report_carries_the_id_anchored_path() -> None:
    (error,) = validate(todo(item("t1", status="done"))).to_json()["errors"]
    assert error["where"] == "todoList.items[t1].status"
    assert error["pointer"] == "/todoList/items/0/status"
    assert error["rule"] == "schema"


def test_ace_entries_in_a_v04_document_are_one_finding() -> None:
    entries = [{"id": f"e{i}", "kind": "rule", "text": "t"} for i in range(3)]
    doc = {"vContextInfo": {"version": "0.4"}, "playbook": {"entries": entries}}
    (finding,) = validate(doc).findings
    assert finding.pointer == "/playbook/entries"
    assert "ACE form" in finding.message
    legacy = {"vAgendaInfo": {"version": "0.3"}, "playbook": {"entries": entries}}
    assert validate(legacy).valid


def test_the_version_rule_s_description_says_how_to_migrate_as_its_finding_does() -> None:
    """PRODUCT.md "Validation" (rule ``version``): the finding on a 0.3 document says how to
    migrate it (set version to "0.4"); the rule's one-line description says the same, not
    only "older documents need migration"."""
    how = 'set version to "0.4"'
    old = {"vContextInfo": {"version": "0.3"}, "todoList": {"items": []}}
    [finding] = validate(old).findings
    assert finding.rule == "version"
    assert how in finding.message
    assert how in RULES["version"]
    assert "\n" not in RULES["version"]
