"""The compiled quick check gives jsonschema's verdict on every document (it only says yes/no)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import parse
from git_vcontext.errors import ParseError
from git_vcontext.validation.fastcheck import Compiler, Unsupported
from git_vcontext.validation.schemas import (
    TooMany,
    quick_check,
    reference,
    schema_errors,
    validator,
)

REFS = (
    "vcontext-core",
    "vcontext-playbooks",
    "vagenda-ace",
    "vbrief-0.5",
    "vagenda-ace#/$defs/AcePatch",
    "vermas#/$defs/Event",
    "vermas#/$defs/WorkOrder",
    "vermas#/$defs/Message",
    "vermas#/$defs/Route",
)
STAMP = "2025-01-01T00:00:00Z"
AGENT = {"id": "a", "type": "system"}
CORE: dict[str, Any] = {
    "vContextInfo": {"version": "0.4", "metadata": {"extensions": ["x"]}},
    "todoList": {
        "uid": "u",
        "sequence": 2,
        "agent": AGENT,
        "changeLog": [{"sequence": 1, "timestamp": STAMP, "agent": AGENT, "operation": "create"}],
        "fork": {"parentUid": "p", "parentSequence": 1, "forkedAt": STAMP, "mergeStatus": "merged"},
        "items": [
            {
                "id": "t1",
                "title": "T",
                "status": "pending",
                "priority": "high",
                "percentComplete": 50,
                "tags": ["a"],
                "narrative": {"Background": "b"},
                "lockedBy": {"agent": AGENT, "acquiredAt": STAMP, "type": "soft"},
                "subItems": [{"title": "S", "status": "completed"}],
                "recurrence": {"frequency": "daily", "interval": 2},
            }
        ],
        "playbook": {
            "version": 1,
            "items": [
                {
                    "eventId": "e1",
                    "targetId": "x",
                    "operation": "append",
                    "kind": "rule",
                    "text": "t",
                    "createdAt": STAMP,
                    "confidence": 0.5,
                }
            ],
        },
    },
}
ENTRY = {"id": "e", "kind": "note", "text": "t", "helpfulCount": 1}
TEMPLATES: dict[str, Any] = {
    "vcontext-core": CORE,
    "vcontext-playbooks": CORE["todoList"]["playbook"],
    "vagenda-ace": {"vAgendaInfo": {"version": "0.2"}, "playbook": {"entries": [ENTRY]}},
    "vbrief-0.5": {
        "vBRIEFInfo": {"version": "0.5"},
        "plan": {
            "title": "P",
            "status": "running",
            "items": [{"id": "a", "title": "I", "status": "running", "narrative": {"A": ["x"]}}],
            "edges": [{"from": "a", "to": "a", "type": "informs"}],
        },
    },
    "vagenda-ace#/$defs/AcePatch": {"operations": [{"op": "appendEntry", "entry": ENTRY}]},
    "vermas#/$defs/Event": {
        "event_id": "e",
        "event_type": "a.b",
        "timestamp": STAMP,
        "actor": "x",
        "data": {},
    },
    "vermas#/$defs/WorkOrder": {
        "id": "w",
        "title": "T",
        "status": "open",
        "priority": 0,
        "issue_type": "bug",
        "created_at": STAMP,
        "updated_at": STAMP,
        "created_by": "c",
        "dependencies": [{"depends_on_id": "w0"}],
    },
    "vermas#/$defs/Message": {
        "id": "m",
        "from": "a",
        "to": "b",
        "subject": "s",
        "body": "b",
        "timestamp": STAMP,
        "read_at": None,
    },
    "vermas#/$defs/Route": {"prefix": "wo", "path": "/x", "factory": None},
}


def same_verdict(data: Any) -> None:
    for ref in REFS:
        quick = quick_check(ref)
        assert quick is not None, ref
        assert quick(data) == reference(ref).is_valid(data), (ref, data)
        assert _explained(validator(ref), data) == _explained(reference(ref), data), ref


def _explained(checker: Any, data: Any) -> list[tuple[str, list[Any], str]]:
    """What a validator says, in a comparable form, in a fixed order."""
    said = [(e.validator, list(e.absolute_path), e.message) for e in checker.iter_errors(data)]
    return sorted(said, key=repr)


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*here, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*here, i)))
    return out


PATHS = {ref: _paths(doc)[1:] for ref, doc in TEMPLATES.items()}
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 200),
    st.floats(-2, 2, allow_nan=False),
    st.sampled_from(["", "x", "pending", "done", "a.b", "running", "soft", "rule", "e1"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


def _mutations(ref: str) -> st.SearchStrategy[tuple[str, list[tuple[Any, Any]]]]:
    edit = st.tuples(st.sampled_from(PATHS[ref]), VALUES)
    return st.tuples(st.just(ref), st.lists(edit, min_size=1, max_size=3))


@settings(max_examples=400, deadline=None)
@given(case=st.sampled_from(REFS).flatmap(_mutations))
def test_quick_check_agrees_with_jsonschema_on_mutated_documents(
    case: tuple[str, list[tuple[tuple[Any, ...], Any]]],
) -> None:
    ref, edits = case
    data = copy.deepcopy(TEMPLATES[ref])
    for path, value in edits:
        node: Any = data
        try:
            for part in path[:-1]:
                node = node[part]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    same_verdict(data)


@pytest.mark.parametrize("ref", REFS)
def test_each_template_is_valid_for_its_schema(ref: str) -> None:
    assert quick_check(ref)(TEMPLATES[ref]) is True
    assert reference(ref).is_valid(TEMPLATES[ref])


def test_a_keyword_it_does_not_know_leaves_the_schema_to_jsonschema() -> None:
    compiler = Compiler({"urn:x": {"type": "array", "uniqueItems": True}})
    with pytest.raises(Unsupported):
        compiler.ref("urn:x", "#")


@pytest.mark.corpus
def test_quick_check_agrees_with_jsonschema_on_the_corpus(shared_dir: Path) -> None:
    checked = 0
    for path in sorted((shared_dir / "corpus").rglob("*")):
        if path.suffix not in (".json", ".tron") or not path.is_file():
            continue
        try:
            data = parse(path.read_bytes(), path=str(path)).data
        except ParseError:
            continue
        same_verdict(data)
        checked += 1
    assert checked > 900


def test_an_invalid_item_among_many_is_explained_without_walking_the_valid_ones() -> None:
    """One bad item among 20,000 (a push anyone can make to a guarded remote): the same
    errors as jsonschema's own walk (which took 50 s for 150,000 items; the valid ones are
    no longer descended into: tests/bench/bench_validate.py --invalid measures it)."""
    data = copy.deepcopy(CORE)
    item = data["todoList"]["items"][0]
    data["todoList"]["items"] = [{**item, "id": f"t{i}"} for i in range(20000)]
    data["todoList"]["items"][7777]["status"] = "bogus"
    ours = _explained(validator("vcontext-core"), data)
    assert ours == _explained(reference("vcontext-core"), data)
    assert [path for _, path, _ in ours] == [["todoList", "items", 7777, "status"]]


def test_more_errors_than_the_limit_are_cut_with_a_finding_that_says_so() -> None:
    from git_vcontext.validation import schemas

    data = copy.deepcopy(CORE)
    item = data["todoList"]["items"][0]
    data["todoList"]["items"] = [{**item, "status": "bogus"} for _ in range(schemas.MAX_ERRORS + 5)]
    said = list(schema_errors("vcontext-core", data))
    assert len(said) == schemas.MAX_ERRORS + 1
    assert isinstance(said[-1], TooMany)
    assert f"more than {schemas.MAX_ERRORS}" in said[-1].message


def test_a_jsonl_files_records_share_one_budget_of_errors() -> None:
    """100,000 bad records took 25 s and gave 200,000 findings (the cut was per record)."""
    import json

    from git_vcontext.validation import schemas
    from git_vcontext.validation.files import check_bytes

    lines = "".join(json.dumps({"prefix": 1, "path": 2}) + "\n" for _ in range(3000))
    report = check_bytes(lines.encode(), ".work/routes.jsonl")
    assert len(report.findings) == schemas.MAX_ERRORS + 1
    assert f"more than {schemas.MAX_ERRORS}" in report.findings[-1].message


def test_an_any_of_over_a_long_bad_array_is_cut_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """jsonschema explains every branch of an anyOf in full before one error counts: a
    narrative of 300,000 bad values took 11 s and 970 MB for one finding. Each branch now
    stops descending after the budget's worth of bad elements."""
    import json

    from git_vcontext.validation import schemas
    from git_vcontext.validation.files import check_bytes

    checker = type(schemas.validator("vbrief-0.5"))
    plain = checker.descend
    into_elements: list[int] = []

    def counting(self: Any, instance: Any, schema: Any, path: Any = None, **kw: Any) -> Any:
        if isinstance(path, int):
            into_elements.append(path)
        return plain(self, instance, schema, path=path, **kw)

    monkeypatch.setattr(checker, "descend", counting)
    plan = {"title": "P", "status": "running"}
    item = {"id": "a", "title": "I", "status": "running", "narrative": {"k": [0] * 20000}}
    doc = {"vBRIEFInfo": {"version": "0.5"}, "plan": {**plan, "items": [item]}}
    report = check_bytes(json.dumps(doc).encode(), "p.vbrief.json")
    assert report.findings
    assert len(report.findings) <= schemas.MAX_ERRORS + 1
    assert 0 < len(into_elements) < 10 * (schemas.MAX_ERRORS + 2), len(into_elements)


def test_a_reference_whose_compilation_failed_fails_again_not_later_when_called() -> None:
    """Validation: a schema the quick check cannot compile is left to jsonschema; a second
    reference to the same (or an inner) schema must say so too, not hand back the
    placeholder of the failed compilation (an IndexError when a document is checked)."""
    uri = "https://example.invalid/s.json"
    inner = {"type": "object", "patternProperties": {"^x": {"type": "string"}}}
    resources = {uri: {"$defs": {"outer": {"$ref": "#/$defs/inner"}, "inner": inner}}}
    compiler = Compiler(resources)
    for fragment in ("#/$defs/outer", "#/$defs/outer", "#/$defs/inner"):
        with pytest.raises(Unsupported):
            compiler.ref(uri, fragment)
    assert compiler.done == {}
