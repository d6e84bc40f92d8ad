"""Large playbook merges: 100,000 base events, each side adding 5,000 (and growth from 1k).

Run: python tests/bench/bench_merge_large.py [--quick] [--baseline SRC] [--runs N]
Prints the driver's whole-process time against just loading the three inputs and
dumping one with the stdlib (the floor for any JSON merge), for several sizes, run in
turn (median of N rounds). ``--baseline SRC``: the same merges by another checkout's code
(its ``src`` folder, e.g. main's), in the same rounds; both results must be identical.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from timing import PYTHON, alternating_medians, baseline, cli, met


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


def measure(n: int, added: int, runs: int, old_src: str | None) -> list[float]:
    """Median seconds of the floor, the driver, and the baseline's driver (when given)."""
    work = Path(tempfile.mkdtemp())
    for name, text in zip(("base", "ours", "theirs"), playbooks(n, added), strict=True):
        (work / f"{name}.json").write_text(text)
    args = ["merge-driver", "base.json", "a.json", "theirs.json", "-p",
            "playbook.vcontext.json", "-l", "7"]  # fmt: skip
    outputs: dict[str, bytes] = {}

    def fresh() -> None:
        shutil.copy(work / "ours.json", work / "a.json")

    def kept(label: str) -> Callable[[], None]:
        def keep() -> None:  # the previous run's result, then a fresh %A
            if (work / "a.json").exists():
                outputs[label] = (work / "a.json").read_bytes()
            fresh()

        return keep

    here = str(work)
    jobs = [([PYTHON, "-c", STDLIB_FLOOR], None, here), (cli(*args), fresh, here)]
    if old_src:
        jobs[1] = (cli(*args), kept("baseline"), here)  # after the baseline's run
        jobs.append(([*baseline(old_src, here), *args], kept("new"), here))
    times = alternating_medians(jobs, runs)
    merged = json.loads((work / "a.json").read_text())["playbook"]["items"]
    assert len(merged) == n + 2 * added, "every event must be in the result"
    if old_src:
        outputs["baseline"] = (work / "a.json").read_bytes()
        assert outputs["new"] == outputs["baseline"], "the baseline wrote another result"
    shutil.rmtree(work)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="1,000 and 10,000 events only")
    parser.add_argument("--baseline", help="another checkout's src folder, run in turn")
    parser.add_argument("--runs", type=int, default=0, help="rounds (default: 5, 3 at 100k)")
    opts = parser.parse_args()
    sizes = [(1_000, 50), (10_000, 500), (100_000, 5_000)]
    head = "| base events | each side adds | stdlib load 3 + dump 1 | driver | ratio (goal 1.2x) |"
    rule = "|---|---|---|---|---|"
    if opts.baseline:
        head += " baseline | ratio |"
        rule += "---|---|"
    print(head)
    print(rule)
    for n, added in sizes[: 2 if opts.quick else 3]:
        runs = opts.runs or (3 if n >= 100_000 else 5)
        times = measure(n, added, runs, opts.baseline)
        floor, driver = times[:2]
        ratio = driver / floor
        line = f"| {n:,} | {added:,} | {floor:.2f} s | {driver:.2f} s |"
        line += f" {ratio:.2f}x, {met(ratio, 1.2)} |"
        if opts.baseline:
            line += f" {times[2]:.2f} s | {times[2] / floor:.2f}x |"
        print(line)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
