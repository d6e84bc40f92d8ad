"""A file-level conflict of a tree merge, said by branch (PRODUCT.md, "Resolving conflicts":
the labels name the branches; "us" and "them" flip with the direction of a merge)."""

from __future__ import annotations

from git_vcontext.branches.treemerge import PathConflict, named


def test_resolving_delete_modify_named_says_which_branch_deleted_in_text_and_json() -> None:
    raw = PathConflict("a.vcontext.json", "deleted by us")
    assert raw.describe() == "a.vcontext.json: deleted by us"  # unnamed: libgit2's words
    (into_base,) = named([raw], "main", "agents/bo")
    assert into_base.describe() == "a.vcontext.json: deleted on main, modified on agents/bo"
    (into_agent,) = named([PathConflict("a.vcontext.json", "deleted by them")], "agents/bo", "main")
    assert into_agent.describe() == into_base.describe()  # the same fact both ways
    data = into_base.to_json()
    assert (data["kind"], data["deleted"], data["modified"]) == (
        "delete/modify",
        "main",
        "agents/bo",
    )


def test_resolving_an_event_log_deleted_by_one_branch_says_where_to_restore_it() -> None:
    log = PathConflict("p.vcontext.json", "deleted by them", reasons=("it holds a log",))
    (said,) = named([log], "main", "agents/bo")
    assert said.log_deleted
    assert said.describe().startswith("p.vcontext.json: deleted on agents/bo, kept on main: ")
    assert "restore it on agents/bo" in said.describe()
    assert said.to_json()["kind"] == "delete"
