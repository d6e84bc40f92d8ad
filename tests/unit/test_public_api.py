"""The library API of PRODUCT.md: parse/dump both encodings, merge, diff, playbook_view."""

from __future__ import annotations

import importlib

import git_vcontext as gv

DOC = (
    '{"vContextInfo": {"version": "0.4"}, '
    '"todoList": {"items": [{"id": "t1", "title": "A", "status": "pending"}]}}'
)


def test_loads_dumps_both_encodings() -> None:
    doc = gv.loads(DOC)
    tron = gv.dumps(doc.data, "tron")
    assert gv.loads(tron, format="tron").data == doc.data
    assert gv.loads(gv.dumps(doc.data, "tron", tron_flavor="standard")).data == doc.data


def test_merge_and_diff_are_callable_even_after_their_packages_were_imported() -> None:
    importlib.import_module("git_vcontext.merging.files")
    importlib.import_module("git_vcontext.diffing.core")
    base = gv.loads(DOC).data
    ours = gv.loads(DOC.replace("pending", "completed")).data
    result = gv.merge(base, ours, base)
    assert result.clean
    assert result.data == ours
    changes = gv.diff(base, ours).changes
    assert [c.op for c in changes] == ["change"]


def test_playbook_view_is_exported() -> None:
    view = gv.playbook_view(
        {
            "playbook": {
                "items": [
                    {
                        "eventId": "e1",
                        "targetId": "x",
                        "operation": "append",
                        "kind": "rule",
                        "text": "t",
                        "createdAt": "2025-01-01T00:00:00Z",
                    }
                ]
            }
        }
    )
    assert [e.target_id for e in view.entries] == ["x"]
