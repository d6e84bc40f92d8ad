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
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.mcp_platform import new_repo, stdio, todo_document
from helpers.mcp_support import run, text

AGENT_WRITES = 150
RUNS = 3

WRITER = r"""
import json, os, sys, time
path, stop = sys.argv[1], sys.argv[2]
saves = lost = 0
while not os.path.exists(stop):
    for _ in range(100):  # the server's replace is atomic: a read sees old or new
        try:
            with open(path, "rb") as fh:
                data = json.loads(fh.read())
            break
        except ValueError:  # our own in-place save of a moment ago, still being written
            time.sleep(0.001)
    if saves and data["todoList"].get("title") != f"save {saves}":
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
print(json.dumps({"saves": saves, "lost": lost}))
"""


@pytest.mark.parametrize("attempt", range(1, RUNS + 1))
def test_lost_saves_none_while_a_person_saves_every_20_ms(attempt: int, tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", {"todo.vcontext.json": todo_document(["a", "b", "c"])})
    todo = repo / "todo.vcontext.json"
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(todo), str(stop)],
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
    assert counted["lost"] == 0, counted
    final = json.loads(todo.read_text())["todoList"]
    assert final["title"] == f"save {counted['saves']}"
    assert refused == [], refused[:3]
