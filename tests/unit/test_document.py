"""The document model: roots, containers, identities, sets, logs."""

from __future__ import annotations

from git_vcontext import document as d


def test_describe_finds_root_family_version_and_container() -> None:
    info = d.describe({"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}})
    assert (info.info_key, info.family, info.version, info.container) == (
        "vContextInfo",
        "vcontext",
        "0.4",
        "todoList",
    )
    assert d.describe({"vAgendaInfo": {"version": "0.2"}, "plan": {}}).family == "vagenda"
    assert d.describe({"vBRIEFInfo": {"version": "0.5"}, "plan": {}}).family == "vbrief"
    assert not d.describe({"items": []}).is_vcontext
    assert not d.describe([1, 2]).is_vcontext
    two = d.describe({"vContextInfo": {}, "todoList": {}, "plan": {}})
    assert two.containers == ("todoList", "plan") and two.container is None


def test_identity_key_prefers_id_then_uid_then_event_ids() -> None:
    assert d.identity_key([[{"id": "a"}, {"id": "b"}]]) == "id"
    assert d.identity_key([[{"uid": 1}, {"uid": 2}]]) == "uid"
    assert d.identity_key([[{"eventId": "e1"}], [{"eventId": "e2"}]]) == "eventId"
    assert d.identity_key([[{"event_id": "e1"}]]) == "event_id"
    assert d.identity_key([[{"depends_on_id": "x"}]]) == "depends_on_id"


def test_identity_key_rejects_duplicates_non_objects_and_missing_keys() -> None:
    assert d.identity_key([[{"id": "a"}, {"id": "a"}]]) is None
    assert d.identity_key([[{"id": "a"}, "b"]]) is None
    assert d.identity_key([[{"title": "x"}]]) is None
    assert d.identity_key([[{"id": True}]]) is None
    # elements without the key are allowed (merged by position, M3)
    assert d.identity_key([[{"id": "a"}, {"title": "anonymous"}]]) == "id"


def test_m3_a_repeated_key_value_on_any_side_leaves_the_array_unkeyed() -> None:
    # the first key field carried decides; a repeat is not rescued by another field
    choice = d.key_choice([[{"id": "a", "uid": 1}, {"id": "a", "uid": 2}]])
    assert choice.key is None and choice.repeat == d.Repeat("id", "a", 0)
    once, twice = [{"id": "t1"}, {"id": "t2"}], [{"id": "t1"}, {"id": "t1"}]
    assert d.key_choice([once, once, twice]).repeat == d.Repeat("id", "t1", 2)
    assert d.key_choice([None, twice, once]).repeat.describe() == "id 't1' repeats in ours"
    # 1 and "1" are different values, not a repeat
    assert d.key_choice([[{"id": 1}, {"id": "1"}]]).key == "id"


def test_m3_an_id_and_a_uid_sharing_a_value_leave_the_array_unkeyed() -> None:
    choice = d.key_choice([[{"id": "x"}, {"title": "a"}], [{"id": "y"}, {"uid": "x"}]])
    assert choice.key is None
    assert choice.repeat == d.Repeat("uid", "x", 1, across="id")
    assert choice.repeat.describe() == "uid 'x' is also an id in ours"
    # different values: keyed by id, the uid-only element merged by position
    assert d.key_choice([[{"id": "x"}, {"uid": "z"}]]).key == "id"


def test_set_like_fields_need_string_arrays() -> None:
    assert d.is_set_like(("todoList", "items", 0, "tags"), [["a"], ["b"]])
    assert d.is_set_like(("vContextInfo", "metadata", "extensions"), [["x"]])
    assert not d.is_set_like(("plan", "metadata", "extensions"), [["x"]])
    assert not d.is_set_like(("x", "dependencies"), [[{"id": "a"}]])
    assert not d.is_set_like(("x", "items"), [["a"]])


def test_logs_sequences_and_metrics_are_recognised_at_any_depth() -> None:
    assert d.is_playbook_log(("playbook", "items"))
    assert d.is_playbook_log(("plan", "playbook", "entries"))
    assert not d.is_playbook_log(("todoList", "items"))
    assert d.is_changelog(("plan", "changeLog"))
    assert d.is_sequence_field(("todoList", "items", 3, "sequence"))
    assert d.is_sequence_field(("playbook", "version"))
    assert not d.is_sequence_field(("vContextInfo", "version"))
    assert d.is_metrics(("plan", "playbook", "metrics"))
    assert d.is_event_array([[{"eventId": "e"}], []])
    assert d.is_ace_entries(("plan", "playbook", "entries"), [[{"id": "entry-1"}]])
    assert not d.is_ace_entries(("playbook", "items"), [[{"eventId": "e", "id": "x"}]])


def test_anchored_path_names_elements_by_identity() -> None:
    data = {"todoList": {"items": [{"id": "t1"}, {"id": "t2", "status": "x"}], "tags": ["a"]}}
    assert d.anchored_path(data, ["todoList", "items", 1, "status"]) == "todoList.items[t2].status"
    assert d.anchored_path(data, ["todoList", "tags", 0]) == "todoList.tags[0]"
    assert d.anchored_path(data, []) == "(root)"
