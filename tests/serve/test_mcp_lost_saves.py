"""A save by anyone between the server's read and its replace is never lost.

PRODUCT.md, "Where agents' platforms run it": identity (inode, size, mtime, content)
checked right before the rename, and the write redone. Issue 37, finding 7: a person's
in-place save landing between the server's re-read and its atomic replace was lost
(saves every 20-60 ms during 150 agent writes lost 1 of 81, 0 of 63, 1 of 67). Done
when: a writer process saving every 20 ms during 150 agent writes, 0 saves lost over
3 runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from helpers.mcp_platform import new_repo, stdio, todo_document
from helpers.mcp_support import run, text

AGENT_WRITES = 150
RUNS = 3
PATIENCE = 10.0
"""How long the person waits for a save of theirs that is not in the file to come back
(the server watches a file it replaced for 2 s, and puts a late save back at once; a
loaded machine can delay that by far more than the person's 20 ms between saves)."""

WRITER = r"""
import json, os, sys, time
path, stop, patience = sys.argv[1], sys.argv[2], float(sys.argv[3])
saves = lost = late = 0


def read():
    for _ in range(100):  # the server's replace is atomic: a read sees old or new
        try:
            with open(path, "rb") as fh:
                return json.loads(fh.read())
        except ValueError:  # our own in-place save of a moment ago, still being written
            time.sleep(0.001)
    raise SystemExit("the document never read as JSON")


while not os.path.exists(stop):
    data = read()
    if saves and data["todoList"].get("title") != f"save {saves}":
        # not there now: a save that landed in a file the server replaced comes back a
        # moment later (on a loaded machine, later than this person's next look); lost
        # is a save that never comes back while this person waits without saving
        deadline = time.monotonic() + patience
        while data["todoList"].get("title") != f"save {saves}" and time.monotonic() < deadline:
            time.sleep(0.005)
            data = read()
        if data["todoList"].get("title") == f"save {saves}":
            late += 1
        else:
            lost += 1
    saves += 1
    data["todoList"]["title"] = f"save {saves}"
    raw = (json.dumps(data, indent=2) + "\n").encode()
    fd = os.open(path, os.O_WRONLY)  # in place, as many editors save
    try:
        os.write(fd, raw)
        os.ftruncate(fd, len(raw))
    finally:
        os.close(fd)
    time.sleep(0.02)
print(json.dumps({"saves": saves, "lost": lost, "late": late}))
"""


@pytest.mark.parametrize("attempt", range(1, RUNS + 1))
def test_lost_saves_none_while_a_person_saves_every_20_ms(attempt: int, tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", {"todo.vcontext.json": todo_document(["a", "b", "c"])})
    todo = repo / "todo.vcontext.json"
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(todo), str(stop), str(PATIENCE)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    refused: list[str] = []

    async def agent() -> None:
        async with stdio(repo) as client:
            for n in range(AGENT_WRITES):
                status = "inProgress" if n % 2 else "blocked"
                done = await client.call_tool("vbrief_update_todo", {"id": "t1", "status": status})
                if done.is_error:
                    refused.append(text(done))

    try:
        run(agent)
    finally:
        stop.touch()
        out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    counted = json.loads(out)
    assert counted["saves"] > 50, counted  # the person really saved throughout
    assert counted["lost"] == 0, counted  # "late": back after the person first looked
    final = _eventually(todo, f"save {counted['saves']}", PATIENCE)["todoList"]
    assert final["title"] == f"save {counted['saves']}", counted
    assert refused == [], refused[:3]


def _service(root: Path) -> Any:
    from git_vcontext.mcp_server import startup as setup
    from git_vcontext.mcp_server.service import Options

    where, repo = setup.find_root(str(root))
    return setup.service(Options(root=where), repo)


def _update(svc: Any, status: str) -> None:
    from git_vcontext.mcp_server.tools.dispatch import call

    answer = call(svc, "vbrief_update_todo", {"id": "t1", "status": status})
    assert not answer.error, answer.text


def _eventually(path: Path, title: str, seconds: float) -> dict[str, Any]:
    """The document once its title is ``title`` (the server puts a late save back a moment
    after it lands), or as it is after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        data: dict[str, Any] = json.loads(path.read_bytes())
        if data["todoList"].get("title") == title or time.monotonic() > deadline:
            return data
        time.sleep(0.01)


def test_lost_saves_none_when_an_older_replaced_file_takes_a_save_during_the_next_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor opened the document before one write's replace and saves into that file
    only while the next write is under way: the save still comes back (each replaced file
    is checked before it is let go, not only the last one)."""
    from git_vcontext.mcp_server import writer

    repo = new_repo(tmp_path / "repo", {"todo.vcontext.json": todo_document(["a", "b"])})
    todo = repo / "todo.vcontext.json"
    svc = _service(repo)
    _update(svc, "blocked")
    person = os.open(todo, os.O_WRONLY)  # the file the next write replaces
    try:
        saved = json.loads(todo.read_bytes())
        saved["todoList"]["title"] = "the person's save"
        raw = (json.dumps(saved, indent=2) + "\n").encode()
        _update(svc, "inProgress")  # replaces the person's open file
        render = writer._render
        landed: list[bool] = []

        def render_then_save(*args: Any) -> Any:
            if not landed:  # the next write is under way: the save lands in the old file
                os.pwrite(person, raw, 0)
                os.ftruncate(person, len(raw))
                landed.append(True)
            return render(*args)

        monkeypatch.setattr(writer, "_render", render_then_save)
        _update(svc, "completed")
    finally:
        os.close(person)
    assert landed
    final = _eventually(todo, "the person's save", writer.RETIRED + 3)
    assert final["todoList"].get("title") == "the person's save"
    # the write under way when the save landed was done again on it
    assert final["todoList"]["items"][0]["status"] == "completed"


def test_lost_saves_none_when_a_save_by_rename_lands_right_after_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor that saves by renaming a new file into place, between the server's last
    check and its rename: that file is never unlinked; the write is done again on it."""
    from git_vcontext.mcp_server import writer

    repo = new_repo(tmp_path / "repo", {"todo.vcontext.json": todo_document(["a", "b"])})
    todo = repo / "todo.vcontext.json"
    svc = _service(repo)
    _update(svc, "blocked")
    saved = json.loads(todo.read_bytes())
    saved["todoList"]["title"] = "saved by rename"
    check = writer._same_file
    landed: list[bool] = []

    def check_then_save(fd: int, loaded: Any) -> bool:
        fine = check(fd, loaded)
        if fine and not landed:  # right after the check, before the server's rename
            fresh = tmp_path / "editor-save.json"
            fresh.write_text(json.dumps(saved, indent=2) + "\n")
            os.replace(fresh, todo)
            landed.append(True)
        return fine

    monkeypatch.setattr(writer, "_same_file", check_then_save)
    _update(svc, "completed")
    assert landed
    final = json.loads(todo.read_bytes())["todoList"]
    assert final.get("title") == "saved by rename"  # the person's save stays
    assert final["items"][0]["status"] == "completed"  # the write, redone on it


def test_lost_saves_none_when_a_save_lands_in_the_replaced_file_after_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor opened the document before a write's replace and saves into that file
    once the write is done, with no write after it: the watcher puts the save back at
    once (from its stat), well before the file is let go."""
    from git_vcontext.mcp_server import writer

    # The replaced file is watched for 60 s here (2 s in the product): the save put back
    # within half of that is seen by its stat, as one put back when the file is let go
    # would come 60 s after the write. With the product's 2 s, a loaded machine (load 26
    # on 2 cores) failed "< RETIRED" at 2.43 s, while a put back only at the end (the stat
    # look removed) came 2.10 s after the save: 0.1 s told the two apart.
    monkeypatch.setattr(writer, "RETIRED", 60.0)
    repo = new_repo(tmp_path / "repo", {"todo.vcontext.json": todo_document(["a", "b"])})
    todo = repo / "todo.vcontext.json"
    svc = _service(repo)
    _update(svc, "blocked")
    person = os.open(todo, os.O_WRONLY)
    try:
        saved = json.loads(todo.read_bytes())
        saved["todoList"]["title"] = "saved late"
        raw = (json.dumps(saved, indent=2) + "\n").encode()
        _update(svc, "completed")  # replaces the file the person holds open
        time.sleep(0.05)
        os.pwrite(person, raw, 0)
        os.ftruncate(person, len(raw))
        landed = time.monotonic()
    finally:
        os.close(person)
    try:
        final = _eventually(todo, "saved late", writer.RETIRED / 2)
        assert final["todoList"].get("title") == "saved late"
        assert time.monotonic() - landed < writer.RETIRED / 2  # by its stat, not at the end
    finally:  # the watcher lets the file go now (not 60 s into later tests)
        for watched in svc.writer._retired.values():
            for retired in watched:
                retired.until = 0.0
    # the write that had returned stays in the file: merged into the save put back (the
    # save was made on the file before it; before, the save replaced the write's change)
    assert final["todoList"]["items"][0]["status"] == "completed"


def test_lost_saves_a_save_that_conflicts_with_the_write_goes_back_as_it_is(
    tmp_path: Path,
) -> None:
    """The person changed the same field the write changed: the save goes back as the
    person wrote it (a person's save is never lost; the agent's change is in its commit)."""
    from git_vcontext.mcp_server import writer

    repo = new_repo(tmp_path / "repo", {"todo.vcontext.json": todo_document(["a", "b"])})
    todo = repo / "todo.vcontext.json"
    svc = _service(repo)
    person = os.open(todo, os.O_WRONLY)
    try:
        saved = json.loads(todo.read_bytes())
        saved["todoList"]["title"] = "saved late"
        saved["todoList"]["items"][0]["status"] = "cancelled"
        raw = (json.dumps(saved, indent=2) + "\n").encode()
        _update(svc, "completed")  # replaces the file the person holds open
        os.pwrite(person, raw, 0)
        os.ftruncate(person, len(raw))
    finally:
        os.close(person)
    final = _eventually(todo, "saved late", writer.RETIRED + 3)
    assert final["todoList"].get("title") == "saved late"
    assert final["todoList"]["items"][0]["status"] == "cancelled"
