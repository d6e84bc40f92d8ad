"""The bundled JSON Schemas: loaded from the package, never the network; constraints that matter."""

from __future__ import annotations

import json
from typing import Any

import pytest

from git_vcontext.shipped import schemas_dir
from git_vcontext.validation import validate
from git_vcontext.validation.schemas import FILES, PREFIX, validator

AGENT = {"id": "a1", "type": "aiAgent"}
STAMP = "2025-01-01T00:00:00Z"


def schema_findings(data: Any) -> list[tuple[str, str]]:
    return [(f.pointer, f.message) for f in validate(data).findings if f.rule == "schema"]


def todo_with(**fields: Any) -> dict[str, Any]:
    item = {"id": "t1", "title": "T", "status": "pending", **fields}
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": [item]}}


def test_every_schema_file_is_2020_12_with_our_id() -> None:
    folder = schemas_dir()
    for name in FILES:
        schema = json.loads(folder.joinpath(f"{name}.schema.json").read_text("utf-8"))
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"] == PREFIX + name


def test_registry_never_fetches_a_reference() -> None:
    from referencing.exceptions import Unresolvable

    with pytest.raises(Unresolvable):
        validator("vcontext-core").evolve(
            schema={"$ref": "https://example.com/not-bundled.json"}
        ).validate({})


def test_unknown_fields_are_allowed_everywhere() -> None:
    doc = todo_with(xMine={"any": [1]}, metadata={"k": "v"})
    doc["xTop"] = True
    doc["todoList"]["xList"] = 1
    assert validate(doc).valid


@pytest.mark.parametrize(
    ("fields", "pointer", "words"),
    [
        ({"status": "done"}, "/todoList/items/0/status", "use one of"),
        ({"title": 3}, "/todoList/items/0/title", "must be a string"),
        ({"priority": "urgent"}, "/todoList/items/0/priority", '"critical"'),
        ({"percentComplete": 120}, "/todoList/items/0/percentComplete", "at most 100"),
        ({"tags": ["a", 1]}, "/todoList/items/0/tags/1", "must be a string"),
        (
            {"lockedBy": {"agent": AGENT, "acquiredAt": STAMP, "type": "x"}},
            "/todoList/items/0/lockedBy/type",
            '"soft"',
        ),
        (
            {"lockedBy": {"agent": {"id": "a"}, "acquiredAt": STAMP, "type": "soft"}},
            "/todoList/items/0/lockedBy/agent",
            "'type'",
        ),
        ({"recurrence": {"interval": 2}}, "/todoList/items/0/recurrence", "'frequency'"),
        ({"reminders": [{"trigger": "-PT15M"}]}, "/todoList/items/0/reminders/0", "'action'"),
        ({"uris": [{"type": "x"}]}, "/todoList/items/0/uris/0", "'uri'"),
        (
            {"participants": [{"id": "p", "role": "owner"}]},
            "/todoList/items/0/participants/0",
            "'status'",
        ),
        ({"classification": "secret"}, "/todoList/items/0/classification", '"confidential"'),
        ({"narrative": {"Background": 1}}, "/todoList/items/0/narrative/Background", "string"),
    ],
)
def test_item_constraints(fields: dict[str, Any], pointer: str, words: str) -> None:
    ((where, message),) = schema_findings(todo_with(**fields))
    assert where == pointer
    assert words in message


def test_null_and_booleans_are_named_plainly() -> None:
    ((_, message),) = schema_findings(todo_with(title=None))
    assert message == "must be a string, not null"


def test_required_title_and_status() -> None:
    doc = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": [{"id": "t1"}]}}
    assert schema_findings(doc) == [
        ("/todoList/items/0", "missing required field 'title', 'status'; add it")
    ]


def test_extension_10_and_11_types() -> None:
    bad_change = {"sequence": 1, "timestamp": STAMP, "agent": AGENT, "operation": "rename"}
    doc = todo_with()
    doc["todoList"].update(
        changeLog=[bad_change],
        fork={"parentUid": "u", "forkedAt": STAMP, "mergeStatus": "done"},
        agent={"id": "a", "type": "robot"},
    )
    found = dict(schema_findings(doc))
    assert '"merge"' in found["/todoList/changeLog/0/operation"]
    assert "'parentSequence'" in found["/todoList/fork"]
    assert '"mergePending"' in found["/todoList/fork/mergeStatus"]
    assert '"aiAgent"' in found["/todoList/agent/type"]


def test_conflict_resolution_in_info_metadata() -> None:
    doc = todo_with()
    doc["vContextInfo"]["metadata"] = {
        "conflictResolution": {"strategy": "guess", "conflicts": [{"path": "$.x"}]}
    }
    found = dict(schema_findings(doc))
    assert set(found) == {
        "/vContextInfo/metadata/conflictResolution/strategy",
        "/vContextInfo/metadata/conflictResolution/conflicts/0",
    }


def test_plan_and_playbook_item_enums() -> None:
    plan = {"vContextInfo": {"version": "0.4"}, "plan": {"title": "P", "status": "running"}}
    assert [p for p, _ in schema_findings(plan)] == ["/plan/status"]
    event = {
        "eventId": "e1",
        "targetId": "x",
        "operation": "append",
        "kind": "rule",
        "text": "t",
        "createdAt": STAMP,
        "status": "completed",
        "confidence": 1.5,
    }
    book = {"vContextInfo": {"version": "0.4"}, "playbook": {"items": [event]}}
    assert [p for p, _ in schema_findings(book)] == [
        "/playbook/items/0/confidence",
        "/playbook/items/0/status",
    ]


def test_ace_entries_in_vagenda_documents() -> None:
    entry = {"id": "entry-1", "kind": "strategy", "text": "Test first", "helpfulCount": 3}
    doc: dict[str, Any] = {
        "vAgendaInfo": {"version": "0.2"},
        "playbook": {"version": 1, "entries": [entry]},
    }
    assert validate(doc).valid
    doc["playbook"]["entries"].append({"id": "entry-2", "kind": "idea"})
    found = dict(schema_findings(doc))
    assert set(found) == {"/playbook/entries/1", "/playbook/entries/1/kind"}


def test_ace_patch_files_are_checked_against_the_patch_schema() -> None:
    patch: dict[str, Any] = {
        "baseDocumentSequence": 3,
        "operations": [{"op": "incrementCounter", "entryId": "e"}],
    }
    assert validate(patch).valid
    patch["operations"].append({"op": "rewrite"})
    assert [p for p, _ in schema_findings(patch)] == ["/operations/1/op"]


def test_vermas_records() -> None:
    work_order = {
        "id": "wo-1",
        "title": "T",
        "status": "open",
        "priority": 2,
        "issue_type": "feature",
        "created_at": STAMP,
        "updated_at": STAMP,
        "created_by": "ceo",
    }
    from git_vcontext.validation.files import check_bytes

    good = json.dumps(work_order) + "\n"
    assert check_bytes(good.encode(), ".work/work_orders.jsonl").valid
    bad = json.dumps({**work_order, "id": "wo-2", "priority": 7, "status": "done"})
    report = check_bytes((good + "\n" + bad + "\n").encode(), ".work/work_orders.jsonl")
    assert [(f.pointer, f.line) for f in report.findings] == [("/1/status", 3), ("/1/priority", 3)]
    message = {"id": "m", "from": "a", "to": "b", "subject": "s", "timestamp": STAMP}
    report = check_bytes(json.dumps(message).encode(), ".work/messages.jsonl")
    assert [f.message for f in report.findings] == ["missing required field 'body'; add it"]
    route = check_bytes(
        b'{"prefix": "wo", "path": "/x/.work", "factory": null}\n', ".work/routes.jsonl"
    )
    assert route.valid


def test_unknown_jsonl_files_say_the_schema_was_skipped() -> None:
    from git_vcontext.validation.files import check_bytes

    report = check_bytes(b'{"a": 1}\n{"a": 2}\n', ".work/other.jsonl")
    assert report.valid
    assert report.skipped
    assert "VerMAS" in report.skipped[0]


def test_a_todo_list_check_reads_only_the_schemas_it_refers_to() -> None:
    """Issue 28 (the guard must not slow sync --push down): the quick check reads a schema
    file when a reference first needs it, so judging a todo list never reads the VerMAS,
    ACE or vBRIEF schemas; the full set is still there for jsonschema's registry."""
    import subprocess
    import sys

    code = (
        "from git_vcontext.validation import schemas, validate\n"
        "doc = {'vContextInfo': {'version': '0.4'}, 'todoList': {'items': ["
        "{'id': 't1', 'title': 'T', 'status': 'pending'}]}}\n"
        "assert not validate(doc).findings\n"
        "print(sorted(schemas._bundle()))\n"
        "print(len(schemas._contents_by_id()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    read = {name.removeprefix(PREFIX) for name in eval(out[0])}
    assert read == {"vcontext-core", "vcontext-extensions", "vcontext-playbooks"}
    assert out[1] == str(len(FILES))
