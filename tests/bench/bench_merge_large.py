"""Large playbook merges: 100,000 base events, each side adding 5,000 (and growth from 1k).

Run: python tests/bench/bench_merge_large.py [--quick]
Prints the driver's whole-process time against just loading the three inputs and
dumping one with the stdlib (the floor for any JSON merge), for several sizes.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from timing import PYTHON, cli, median_seconds


def event(i: int, side: str, day: int) -> dict[str, object]:
    return {
        "eventId": f"evt-{side}-{i:06d}",
        "targetId": f"entry-{i % 20000}",
        "operation": "append" if i < 20000 else "update",
        "kind": "learning",
        "narrative": {"Overview": f"Lesson {i} from {side}."},
        "createdAt": f"2025-{1 + i % 12:02d}-{day:02d}T{i % 24:02d}:00:00Z",
        "tags": ["perf"],
        "confidence": 0.5,
    }


def playbooks(n: int, added: int) -> tuple[str, str, str]:
    base = [event(i, "base", 1) for i in range(n)]
    ours = base + [event(i, "ours", 2) for i in range(added)]
    theirs = base + [event(i, "theirs", 3) for i in range(added)]

    def doc(events: list[dict[str, object]]) -> str:
        return (
            json.dumps(
                {
                    "vContextInfo": {"version": "0.4"},
                    "playbook": {
                        "version": 1,
                        "created": "2025-01-01T00:00:00Z",
                        "updated": "2025-01-01T00:00:00Z",
                        "items": events,
                    },
                },
                indent=2,
            )
            + "\n"
        )

    return doc(base), doc(ours), doc(theirs)


STDLIB_FLOOR = """
import json, sys
docs = [json.load(open(p)) for p in ("base.json", "ours.json", "theirs.json")]
open("out.json", "w").write(json.dumps(docs[1], indent=2))
"""


def measure(n: int, added: int, runs: int) -> tuple[float, float]:
    work = Path(tempfile.mkdtemp())
    for name, text in zip(("base", "ours", "theirs"), playbooks(n, added), strict=True):
        (work / f"{name}.json").write_text(text)

    def fresh() -> None:
        shutil.copy(work / "ours.json", work / "a.json")

    driver = median_seconds(
        cli(
            "merge-driver",
            "base.json",
            "a.json",
            "theirs.json",
            "-p",
            "playbook.vcontext.json",
            "-l",
            "7",
        ),
        runs=runs,
        setup=fresh,
        cwd=str(work),
    )
    floor = median_seconds([PYTHON, "-c", STDLIB_FLOOR], runs=runs, cwd=str(work))
    merged = json.loads((work / "a.json").read_text())["playbook"]["items"]
    assert len(merged) == n + 2 * added, "every event must be in the result"
    shutil.rmtree(work)
    return driver, floor


def main() -> None:
    quick = "--quick" in sys.argv
    sizes = [(1_000, 50), (10_000, 500), (100_000, 5_000)]
    print("| base events | each side adds | driver | stdlib load 3 + dump 1 | ratio |")
    print("|---|---|---|---|---|")
    for n, added in sizes[: 2 if quick else 3]:
        start = time.perf_counter()
        driver, floor = measure(n, added, runs=3 if n >= 100_000 else 5)
        print(f"| {n:,} | {added:,} | {driver:.2f} s | {floor:.2f} s | {driver / floor:.2f}x |")
        sys.stdout.flush()
        _ = start


if __name__ == "__main__":
    main()
