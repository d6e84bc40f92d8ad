"""``git vcontext playbook add|update|deprecate`` as processes: chained events, style kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.playbook import doc, ev
from helpers.run import REPO_ROOT, run_cli

CONCURRENT = REPO_ROOT / "tests" / "examples" / "playbook" / "concurrent-agents"
EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}  # 2026-01-01T00:00:00Z


def _write(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n")


def _items(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text())["playbook"]["items"]  # type: ignore[no-any-return]


def _pb(*args: str) -> tuple[int, str, str]:
    proc = run_cli("playbook", *args, env=EPOCH)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


@pytest.fixture
def playbook_file(tmp_path: Path) -> Path:
    path = tmp_path / "team.vcontext.json"
    path.write_bytes((CONCURRENT / "document.vcontext.json").read_bytes())
    return path


def test_add_update_deprecate_build_a_chain(playbook_file: Path) -> None:
    f = str(playbook_file)
    code, out, _ = _pb(
        "add",
        f,
        "--target",
        "pin-deps",
        "--kind",
        "rule",
        "--title",
        "Pin dependencies",
        "--narrative",
        "Overview=Pin them.",
        "--tag",
        "deps",
        "--confidence",
        "0.7",
        "--reason",
        "broke twice",
    )
    assert code == 0
    assert out.startswith("evt-20260101T000000Z-")
    created = _items(playbook_file)[-1]
    assert created["operation"] == "append"
    assert created["narrative"] == {"Overview": "Pin them."}
    assert created["status"] == "active"
    assert created["createdAt"] == "2026-01-01T00:00:00Z"
    code, _, _ = _pb(
        "update",
        f,
        "--target",
        "pin-deps",
        "--delta",
        "helpfulCount=+2",
        "--delta",
        "harmfulCount=1",
    )
    assert code == 0
    update = _items(playbook_file)[-1]
    assert update["prevEventId"] == created["eventId"]
    assert update["delta"] == {"helpfulCount": 2, "harmfulCount": 1}
    code, _, _ = _pb(
        "deprecate", f, "--target", "pin-deps", "--quarantine", "--reason", "lockfiles do it"
    )
    assert code == 0
    view = json.loads(run_cli("view", f, "--format", "json", "--status", "all").stdout)
    entry = next(e for e in view["entries"] if e["targetId"] == "pin-deps")
    assert entry["status"] == "quarantined"
    assert entry["helpfulCount"] == 2
    assert entry["deprecatedReason"] == "lockfiles do it"
    assert entry["heads"] == [_items(playbook_file)[-1]["eventId"]]
    assert view["metrics"]["agree"] is True  # recomputed on every write


def test_update_chains_to_the_winner_and_notes_the_other_head(playbook_file: Path) -> None:
    code, _, err = _pb(
        "update",
        str(playbook_file),
        "--target",
        "lock-before-migrate",
        "--text",
        "Lock, with a timeout, released in finally.",
    )
    assert code == 0
    assert _items(playbook_file)[-1]["prevEventId"] == "evt-002"
    assert "2 heads (evt-003, evt-002): chained to the winner evt-002" in err


def test_only_the_new_event_and_the_derived_fields_change(playbook_file: Path) -> None:
    before = playbook_file.read_text().splitlines()
    old_items = _items(playbook_file)
    assert (
        _pb(
            "update",
            str(playbook_file),
            "--target",
            "retry-flaky-tests",
            "--delta",
            "helpfulCount=+1",
        )[0]
        == 0
    )
    after = playbook_file.read_text().splitlines()
    changed = {"version", "updated", "totalEntries", "lastUpdated"}
    kept = [ln for ln in before if not any(f'"{k}"' in ln for k in changed)]
    it = iter(after)
    assert all(line in it for line in kept)  # every other line, byte for byte, in order
    assert _items(playbook_file)[:-1] == old_items


def test_source_date_epoch_makes_writes_reproducible(tmp_path: Path) -> None:
    outputs = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.vcontext.json"
        _write(path, doc([ev("e1", "t", "append")]))
        _pb("update", str(path), "--target", "t", "--text", "same")
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1]


def test_crlf_and_bom_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "win.vcontext.json"
    text = json.dumps(doc([ev("e1", "t", "append")]), indent=4).replace("\n", "\r\n")
    path.write_bytes(b"\xef\xbb\xbf" + text.encode() + b"\r\n")
    assert _pb("update", str(path), "--target", "t", "--delta", "helpfulCount=1")[0] == 0
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert b"\n" not in raw.replace(b"\r\n", b"")
    assert b'\r\n                "prevEventId": "e1",' in raw


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (("add", "--target", "lock-before-migrate", "--kind", "rule", "--text", "x"), 1, "exists"),
        (("update", "--target", "nope", "--text", "x"), 1, "no entry with targetId nope"),
        (("deprecate", "--target", "nope"), 1, "no entry"),
        (("add", "--target", "n", "--kind", "rule"), 2, "--text or --narrative"),
        (("add", "--target", "n", "--kind", "rules", "--text", "x"), 2, "Invalid value"),
        (("update", "--target", "lock-before-migrate"), 2, "something to change"),
        (("update", "--target", "lock-before-migrate", "--delta", "likes=+1"), 2, "helpfulCount"),
        (("update", "--target", "lock-before-migrate", "--delta", "helpfulCount=+x"), 2, "integer"),
        (("update", "--target", "lock-before-migrate", "--narrative", "no equals"), 2, "KEY=TEXT"),
        (("update", "--target", "lock-before-migrate", "--confidence", "1.5"), 2, "between"),
    ],
)
def test_refusals_leave_the_file_untouched(
    playbook_file: Path, args: tuple[str, ...], code: int, words: str
) -> None:
    before = playbook_file.read_bytes()
    action, *rest = args
    got, _, err = _pb(action, str(playbook_file), *rest)
    assert got == code
    assert words in err
    assert "Traceback" not in err
    assert playbook_file.read_bytes() == before


def test_ace_playbooks_point_to_ace_apply(tmp_path: Path) -> None:
    path = tmp_path / "ace.vcontext.json"
    source = (
        REPO_ROOT / "tests" / "examples" / "playbook" / "ace-in-a-plan" / "document.vcontext.json"
    )
    path.write_bytes(source.read_bytes())
    code, _, err = _pb("add", str(path), "--target", "x", "--kind", "note", "--text", "y")
    assert code == 1
    assert "ace apply" in err
    assert path.read_bytes() == source.read_bytes()


@pytest.mark.parametrize(
    ("content", "code"),
    [(b'{"todoList": {"items": []}}', 1), (b"{broken", 1), (b"", 1)],
)
def test_unusable_files(tmp_path: Path, content: bytes, code: int) -> None:
    path = tmp_path / "x.vcontext.json"
    path.write_bytes(content)
    got, _, err = _pb("update", str(path), "--target", "t", "--text", "x")
    assert got == code
    assert err.count("\n") == 1
    assert path.read_bytes() == content


def test_missing_file_exits_3(tmp_path: Path) -> None:
    assert _pb("update", str(tmp_path / "no.json"), "--target", "t", "--text", "x")[0] == 3


@pytest.mark.parametrize("name", ["new/playbook.vcontext.json", "new/playbook.vcontext.tron"])
def test_add_to_a_file_that_does_not_exist_creates_a_playbook_validate_accepts(
    tmp_path: Path, name: str
) -> None:
    """A new user's first step (it said "no such file", exit 3, and no command made one):
    ``playbook add`` creates the playbook in the format its name says, folder too, and
    every other part accepts it (PRODUCT.md: one truth)."""
    path = tmp_path / name
    code, out, err = _pb("add", str(path), "--target", "tests-first", "--kind", "rule",
                         "--text", "Write the test first")  # fmt: skip
    assert code == 0, err
    assert out.startswith("evt-"), out
    assert f"created {path}" in err
    check = run_cli("validate", str(path))
    assert check.returncode == 0, check.stdout + check.stderr
    code, _, err = _pb("add", str(path), "--target", "t2", "--kind", "note", "--text", "more")
    assert code == 0, err
    assert "created" not in err
    again = run_cli("convert", "--to", "json", str(path))
    assert again.returncode == 0, again.stderr
    items = (
        json.loads(again.stdout)["playbook"]["items"] if name.endswith(".tron") else _items(path)
    )
    assert [i["targetId"] for i in items] == ["tests-first", "t2"]


def test_add_creating_a_playbook_git_would_not_route_says_so(git_repo: Path) -> None:
    """A new playbook the attributes do not send to the driver would be merged by lines
    and checked by nothing: the note says so, and how to fix it; a routed one gets none."""
    assert run_cli("install", cwd=git_repo).returncode == 0
    notes = {}
    for name in ("notes/playbook.json", ".vcontext/playbook.vcontext.json"):
        proc = run_cli("playbook", "add", name, "--target", "t", "--kind", "note",
                       "--text", "x", cwd=git_repo)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        notes[name] = proc.stderr.decode()
    assert "is not a vContext file to git" in notes["notes/playbook.json"]
    assert "is not a vContext file" not in notes[".vcontext/playbook.vcontext.json"]


def test_add_to_a_missing_file_of_no_known_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "playbook.txt"
    code, _, err = _pb("add", str(path), "--target", "t", "--kind", "note", "--text", "x")
    assert code == 2
    assert err.count("\n") == 1
    assert "*.json or *.tron" in err
    assert not path.exists()


def test_without_source_date_epoch_ids_differ(tmp_path: Path) -> None:
    ids = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.vcontext.json"
        _write(path, doc([ev("e1", "t", "append")]))
        proc = run_cli("playbook", "update", str(path), "--target", "t", "--text", "same")
        assert proc.returncode == 0
        ids.append(_items(path)[-1]["eventId"])
    assert ids[0] != ids[1]


@pytest.mark.parametrize("exists", [False, True], ids=["creating it", "an existing file"])
def test_an_add_racing_another_writer_keeps_both_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exists: bool
) -> None:
    """Another writer (an agent, the MCP server) saves the playbook between this add's
    read and its write: the add is redone on their file, never written over it (two adds
    creating one new playbook lost the first event)."""
    from git_vcontext.commands import playbook_edit
    from git_vcontext.playbook.edit import append_event as real

    path = tmp_path / "new.vcontext.json"
    if exists:
        _write(path, doc([ev("e1", "first", "append")]))
    raced: list[bool] = []

    def racing(*args: Any, **kwargs: Any) -> Any:
        if not raced:
            raced.append(True)
            other = playbook_edit.EventOptions(kind="note", text="theirs")
            assert (
                playbook_edit.run(action="add", file=str(path), target="theirs", given=other) == 0
            )
        return real(*args, **kwargs)

    monkeypatch.setattr(playbook_edit, "append_event", racing)
    mine = playbook_edit.EventOptions(kind="note", text="mine")
    assert playbook_edit.run(action="add", file=str(path), target="mine", given=mine) == 0
    targets = [i["targetId"] for i in _items(path)]
    assert sorted(targets) == sorted(["mine", "theirs", *(["first"] if exists else [])])


def test_add_where_a_file_stands_for_the_folder_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x")
    code, _, err = _pb("add", str(tmp_path / "file.txt" / "p.vcontext.json"), "--target", "t",
                       "--kind", "note", "--text", "x")  # fmt: skip
    assert code == 3, err
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert "internal error" not in err
