"""Documents behind symbolic links: every command that writes a user's file writes through the
link, atomically at its target, and leaves the link a link (relative, absolute, chained or
dangling); a loop is a one-line error that changes nothing."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.errors import OperationalError
from git_vcontext.fsio import link_target, write_atomic
from helpers.run import REPO_ROOT, run_cli

CONCURRENT = REPO_ROOT / "tests" / "examples" / "playbook" / "concurrent-agents"
EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


def todo(*statuses: str) -> dict[str, Any]:
    items = [{"id": f"t{n}", "title": "T", "status": s} for n, s in enumerate(statuses)]
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """``work/doc.vcontext.json`` -> ``../store/real.vcontext.json`` (a relative link)."""
    (tmp_path / "store").mkdir()
    (tmp_path / "work").mkdir()
    real = tmp_path / "store" / "real.vcontext.json"
    real.write_text(json.dumps(todo("pending"), indent=2) + "\n")
    link = tmp_path / "work" / "doc.vcontext.json"
    link.symlink_to(Path("..") / "store" / "real.vcontext.json")
    return link, real


def assert_still_a_link(link: Path, real: Path) -> None:
    assert link.is_symlink()
    assert link.resolve() == real.resolve()
    assert not real.is_symlink()


# -- the one helper ---------------------------------------------------------------------


def test_write_atomic_through_a_relative_link_keeps_the_link_and_the_mode(
    linked: tuple[Path, Path],
) -> None:
    link, real = linked
    real.chmod(0o640)
    write_atomic(link, b"new\n")
    assert_still_a_link(link, real)
    assert real.read_bytes() == b"new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert not [p for p in real.parent.iterdir() if p.name.endswith(".tmp")]


def test_write_atomic_follows_a_chain_of_links_and_an_absolute_one(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("{}")
    (tmp_path / "abs.json").symlink_to(real.resolve())
    (tmp_path / "chain.json").symlink_to("abs.json")
    write_atomic(tmp_path / "chain.json", b"[1]")
    assert real.read_text() == "[1]"
    assert (tmp_path / "chain.json").is_symlink()
    assert (tmp_path / "abs.json").is_symlink()


def test_write_atomic_through_a_dangling_link_creates_its_target(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    link = tmp_path / "doc.json"
    link.symlink_to("store/later.json")
    write_atomic(link, b"{}")
    assert link.is_symlink()
    assert (tmp_path / "store" / "later.json").read_bytes() == b"{}"


def test_write_atomic_refuses_a_link_loop_and_names_a_missing_folder(tmp_path: Path) -> None:
    (tmp_path / "a.json").symlink_to("b.json")
    (tmp_path / "b.json").symlink_to("a.json")
    with pytest.raises(OperationalError, match="too many levels of symbolic links"):
        write_atomic(tmp_path / "a.json", b"{}")
    assert (tmp_path / "a.json").is_symlink()
    assert (tmp_path / "b.json").is_symlink()
    (tmp_path / "c.json").symlink_to("gone/x.json")
    with pytest.raises(OperationalError, match=r"c\.json \(a link to .*gone/x\.json\): cannot"):
        write_atomic(tmp_path / "c.json", b"{}")
    assert link_target(str(tmp_path / "plain.json")) == str(tmp_path / "plain.json")


# -- every command that writes a user's file --------------------------------------------


def test_playbook_add_update_deprecate_write_through_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.vcontext.json"
    real.write_bytes((CONCURRENT / "document.vcontext.json").read_bytes())
    link = tmp_path / "team.vcontext.json"
    link.symlink_to(real.name)
    steps = [
        ["add", "--target", "pin-deps", "--kind", "rule", "--text", "Pin them."],
        ["update", "--target", "pin-deps", "--text", "Pin them all."],
        ["deprecate", "--target", "pin-deps", "--reason", "superseded"],
    ]
    for args in steps:
        proc = run_cli("playbook", args[0], str(link), *args[1:], env=EPOCH)
        assert proc.returncode == 0, proc.stderr
        assert_still_a_link(link, real)
    events = json.loads(real.read_text())["playbook"]["items"]
    assert [e["operation"] for e in events if e.get("targetId") == "pin-deps"] == [
        "append",
        "update",
        "deprecate",
    ]


def test_ace_apply_writes_through_the_link(tmp_path: Path) -> None:
    plan = {
        "vAgendaInfo": {"version": "0.2"},
        "plan": {
            "id": "p",
            "title": "P",
            "status": "inProgress",
            "sequence": 3,
            "playbook": {
                "version": 1,
                "entries": [
                    {"id": "e1", "kind": "strategy", "text": "Keep it short", "helpfulCount": 1}
                ],
            },
        },
    }
    real = tmp_path / "plans" / "plan.vcontext.json"
    real.parent.mkdir()
    real.write_text(json.dumps(plan, indent=2))
    link = tmp_path / "plan.vcontext.json"
    link.symlink_to("plans/plan.vcontext.json")
    patch = tmp_path / "patch.json"
    op = {"op": "incrementCounter", "entryId": "e1", "delta": {"helpfulCount": 2}}
    patch.write_text(json.dumps({"baseDocumentSequence": 3, "operations": [op]}))
    proc = run_cli("ace", "apply", str(patch), str(link), env=EPOCH)
    assert proc.returncode == 0, proc.stderr
    assert_still_a_link(link, real)
    entries = json.loads(real.read_text())["plan"]["playbook"]["entries"]
    assert entries[0]["helpfulCount"] == 3


def test_convert_and_merge_outputs_write_through_links(linked: tuple[Path, Path]) -> None:
    link, real = linked
    folder = link.parent
    out_real = folder / "out.tron"
    out_link = folder / "out-link.tron"
    out_link.symlink_to("out.tron")  # dangling until convert writes it
    proc = run_cli("convert", str(link), "--to", "tron", "-o", str(out_link))
    assert proc.returncode == 0, proc.stderr
    assert out_link.is_symlink()
    assert out_real.read_text().startswith("class ")
    base, ours, theirs = (folder / f"{n}.json" for n in ("base", "ours", "theirs"))
    base.write_text(json.dumps(todo("pending", "pending")))
    ours.write_text(json.dumps(todo("completed", "pending")))
    theirs.write_text(json.dumps(todo("pending", "blocked")))
    proc = run_cli("merge", str(base), str(ours), str(theirs), "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert_still_a_link(link, real)
    assert json.loads(real.read_text()) == todo("completed", "blocked")


def test_merge_driver_writes_through_a_linked_ours(linked: tuple[Path, Path]) -> None:
    """git passes a temporary regular file as %A; called by hand on a link, the link stays."""
    link, real = linked
    base, theirs = link.parent / "base.json", link.parent / "theirs.json"
    base.write_text(json.dumps(todo("pending")))
    theirs.write_text(json.dumps(todo("pending", "pending")))
    real.write_text(json.dumps(todo("completed")))
    proc = run_cli("merge-driver", str(base), str(link), str(theirs), "-p", "doc.vcontext.json")
    assert proc.returncode == 0, proc.stderr
    assert_still_a_link(link, real)
    assert json.loads(real.read_text()) == todo("completed", "pending")


def test_a_link_loop_is_one_line_exit_3_and_nothing_changes(tmp_path: Path) -> None:
    doc = tmp_path / "doc.json"
    doc.write_text(json.dumps(todo("pending")))
    (tmp_path / "a.json").symlink_to("b.json")
    (tmp_path / "b.json").symlink_to("a.json")
    proc = run_cli("convert", str(doc), "--to", "tron", "-o", str(tmp_path / "a.json"))
    err = proc.stderr.decode()
    assert proc.returncode == 3
    assert err.count("\n") == 1
    assert "symbolic links" in err
    assert os.readlink(tmp_path / "a.json") == "b.json"
