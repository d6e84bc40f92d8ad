"""Merge driver, whole process, on a 200-item todo list changed on both sides.

Run: python tests/bench/bench_merge_driver.py
Prints the median wall time of `git-vcontext merge-driver` next to `python -c pass`
(the floor of any Python program) and `git merge-file` on the same files.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from timing import PYTHON, cli, median_seconds, row


def documents(n: int = 200) -> tuple[str, str, str]:
    items = [
        {
            "id": f"t{i}",
            "title": f"Task {i}",
            "status": "pending",
            "tags": ["backend"],
            "narrative": {"Background": f"Context for task {i}."},
        }
        for i in range(n)
    ]
    base = {"vContextInfo": {"version": "0.4"}, "todoList": {"sequence": 1, "items": items}}
    ours = json.loads(json.dumps(base))
    theirs = json.loads(json.dumps(base))
    for i in range(0, n, 10):
        ours["todoList"]["items"][i]["status"] = "completed"
        theirs["todoList"]["items"][i + 1]["title"] = f"Task {i + 1} (renamed)"
    ours["todoList"]["items"].append({"id": "o1", "title": "Ours", "status": "pending"})
    theirs["todoList"]["items"].append({"id": "b1", "title": "Theirs", "status": "pending"})
    return tuple(json.dumps(d, indent=2) + "\n" for d in (base, ours, theirs))  # type: ignore[return-value]


def main() -> None:
    work = Path(tempfile.mkdtemp())
    base, ours, theirs = documents()
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        (work / f"{name}.json").write_text(text)

    def fresh() -> None:
        shutil.copy(work / "ours.json", work / "a.json")

    floor = median_seconds([PYTHON, "-c", "pass"])
    driver = median_seconds(
        cli(
            "merge-driver",
            "base.json",
            "a.json",
            "theirs.json",
            "-p",
            "todo.vcontext.json",
            "-l",
            "7",
        ),
        setup=fresh,
        cwd=str(work),
    )
    merge_file = median_seconds(
        ["git", "merge-file", "-p", "a.json", "base.json", "theirs.json"],
        setup=fresh,
        cwd=str(work),
    )
    print("| what | median | note |\n|---|---|---|")
    row("python -c pass", floor)
    row(
        "git-vcontext merge-driver, 200 items, both sides changed",
        driver,
        f"{driver / floor:.2f}x python -c pass",
    )
    row("git merge-file on the same files (for scale; it conflicts)", merge_file)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
