"""Benchmark: ``validate`` of 1,000 small vContext files in one process (target: under 3 s).

Run: ``python tests/bench/bench_validate.py [FILES]``. Writes todo lists, plans and
playbooks (JSON and TRON, a few with errors) into a temporary git repository, then prints
the in-process time of ``check_bytes`` over all of them (first file apart: it pays the
jsonschema import and the schema compilation) and the whole-process time of
``git vcontext validate`` with no paths (every tracked vContext file).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[2] / "src"
sys.path.insert(0, str(SRC))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import cli, env  # noqa: E402

STAMP = "2025-06-01T09:00:00Z"


def todo(n: int) -> dict[str, Any]:
    items: list[dict[str, object]] = [
        {"id": f"t{i}", "title": f"Task {i}", "status": "pending", "created": STAMP}
        for i in range(8)
    ]
    items[3]["dependencies"] = ["t1", "t2"]
    if n % 100 == 0:
        items[5]["status"] = "done"  # one file in a hundred is invalid
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"id": f"l{n}", "items": items}}


def plan(n: int) -> dict[str, Any]:
    items = [{"id": f"p{i}", "title": f"Step {i}", "status": "inProgress"} for i in range(6)]
    return {
        "vContextInfo": {"version": "0.4"},
        "plan": {"title": f"Plan {n}", "status": "draft", "items": items, "sequence": 3},
    }


def playbook(n: int) -> dict[str, Any]:
    events = [
        {
            "eventId": f"e{i}",
            "targetId": f"x{i // 2}",
            "operation": "append" if i % 2 == 0 else "update",
            **({"prevEventId": f"e{i - 1}"} if i % 2 else {"kind": "rule", "text": "Do it."}),
            "createdAt": STAMP,
        }
        for i in range(6)
    ]
    return {"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": events}}


def big_playbook(events: int, bad_every: int = 0) -> bytes:
    """One playbook with ``events`` events: a creation and three updates per target.

    With ``bad_every``, that one event in so many has a date without a time (invalid).
    """
    log = []
    for i in range(events):
        if i % 4 == 0:
            log.append(playbook(0)["playbook"]["items"][0] | {"eventId": f"e{i}"})
        else:
            log.append(playbook(0)["playbook"]["items"][1] | {"prevEventId": f"e{i - 1}"})
        log[-1] |= {"eventId": f"e{i}", "targetId": f"x{i // 4}"}
        if bad_every and i % bad_every == 1:
            log[-1]["createdAt"] = "2025-06-01"
    doc = {"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": log}}
    return json.dumps(doc, indent=2).encode()


def write_files(top: Path, count: int) -> list[Path]:
    from git_vcontext import dumps

    paths = []
    makers = (todo, plan, playbook)
    for n in range(count):
        data = makers[n % 3](n)
        tron = n % 5 == 0
        path = top / f"docs/d{n // 100}/doc{n}.vcontext.{'tron' if tron else 'json'}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps(data, "tron") if tron else json.dumps(data, indent=2) + "\n")
        paths.append(path)
    return paths


def todo_list_bytes(n: int) -> bytes:
    """A todo list of ``n`` items as a person's editor writes it (what a push may carry)."""
    items = [{"id": f"t{i}", "title": "x" * 100, "status": "pending"} for i in range(n)]
    data = {"vBRIEFInfo": {"version": "0.4"}, "todoList": {"items": items}}
    return json.dumps(data, indent=2).encode()


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    from git_vcontext.validation.files import check_bytes

    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp)
        paths = write_files(top, count)
        blobs = [(p.read_bytes(), str(p)) for p in paths]
        start = time.perf_counter()
        check_bytes(*blobs[0])
        first = time.perf_counter() - start
        start = time.perf_counter()
        invalid = sum(not check_bytes(raw, name).valid for raw, name in blobs[1:])
        rest = time.perf_counter() - start
        print(f"{count} files: first {first * 1e3:.0f} ms (imports, schema compile)")
        print(
            f"in process: {first + rest:.2f} s for {count} files "
            f"({rest / (count - 1) * 1e3:.2f} ms per file after the first), {invalid} invalid"
        )
        raw = big_playbook(20_000)
        start = time.perf_counter()
        verdict = check_bytes(raw, "big.vcontext.json").valid
        took = time.perf_counter() - start
        size = len(raw) / 1e6
        print(f"one 20,000-event playbook ({size:.1f} MB): {took:.2f} s, valid {verdict}")
        bad = big_playbook(20_000, bad_every=40)
        start = time.perf_counter()
        found = len(check_bytes(bad, "big.vcontext.json").findings)
        took = time.perf_counter() - start
        print(f"the same with {found} bad datetimes (located findings): {took:.2f} s")
        big = todo_list_bytes(150_000)
        for label, data in (
            ("valid", big),
            ("one bad status", big.replace(b'"status": "pending"', b'"status": "bogus"', 1)),
            ("every status bad", big.replace(b'"status": "pending"', b'"status": "bogus"')),
        ):
            start = time.process_time()
            found = len(check_bytes(data, "big.vcontext.json").findings)
            took = time.process_time() - start
            size = len(data) / 1e6
            print(f"150,000 items ({size:.0f} MB), {label}: {took:.2f} s CPU, {found} findings")
        subprocess.run(["git", "init", "-q"], cwd=top, check=True)
        subprocess.run(["git", "add", "-A"], cwd=top, check=True)
        start = time.perf_counter()
        run_env = {**env(), "PYTHONPATH": str(SRC)}  # this checkout, not an installed copy
        proc = subprocess.run(cli("validate"), cwd=top, env=run_env, capture_output=True)
        whole = time.perf_counter() - start
        print(
            f"git vcontext validate (no paths, one process): {whole:.2f} s, exit {proc.returncode}"
        )


if __name__ == "__main__":
    main()
