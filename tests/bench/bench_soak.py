"""Soak at benchmark size: 16 agent processes × 25 rounds of edit → commit → sync --push.

Run: python tests/bench/bench_soak.py [--agents N] [--rounds R] [--keep DIR]
Prints lost events/items (must be 0), pushes retried, syncs that gave up mid-run,
per-sync times and the total wall time; exit 1 when anything was lost.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the soak harness

from helpers import soak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--no-hooks", action="store_true", help="Clones without the pre-push hook.")
    parser.add_argument("--keep", metavar="DIR", help="Run under DIR and keep the repositories.")
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caching on, as after an install
    os.environ.pop("SOURCE_DATE_EPOCH", None)  # event ids need their entropy
    if args.keep:
        root = Path(args.keep)
        root.mkdir(parents=True, exist_ok=False)
        return _bench(root, args.agents, args.rounds, not args.no_hooks)
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp:
        return _bench(Path(tmp), args.agents, args.rounds, not args.no_hooks)


def _bench(root: Path, agents: int, rounds: int, hooks: bool) -> int:
    start = time.perf_counter()
    run = soak.soak(root, agents, rounds, hooks)
    docs = soak.documents(soak.fresh_clone(run, root))
    missing = soak.lost(run, docs)
    syncs = [s for log in run.logs for s in log.syncs]
    gave_up = [s for s in syncs if s["exit"] != 0]
    written = sum(len(log.events) for log in run.logs)
    n_lost = sum(len(v) for v in missing.values())
    print(
        f"soak: {agents} agents × {rounds} rounds against one bare remote"
        f" (pre-push hook {'on' if hooks else 'off'}, cpus: {os.cpu_count()})"
    )
    print(f"| events written | {written} |")
    print(f"| items + plan items + changeLog entries written | {3 * agents * rounds} |")
    print(f"| lost (events, items, plan items, changes) | {n_lost} {_detail(missing)} |")
    print(f"| duplicated ids | {len(soak.duplicates(docs))} |")
    log = docs[soak.TODO]["todoList"].get("changeLog", [])
    merges = sum(1 for c in log if c.get("operation") == "merge")
    print(f"| todo changeLog entries: total / M8 merge | {len(log)} / {merges} |")
    print(f"| syncs (loop + final) | {len(syncs)} + {len(run.final_syncs)} |")
    print(f"| pushes retried (as reported by sync) | {soak.total_retries(run)} |")
    print(f"| loop syncs that gave up (exit != 0) | {len(gave_up)} |")
    print(f"| final syncs failed | {sum(1 for s in run.final_syncs if s['exit'])} |")
    times = sorted(s["seconds"] for s in syncs)
    print(f"| sync time median / p95 / max | {_ms(statistics.median(times))} / "
          f"{_ms(times[int(0.95 * (len(times) - 1))])} / {_ms(times[-1])} |")  # fmt: skip
    print(f"| soak wall time (agents + final syncs) | {run.seconds:.1f} s |")
    print(f"| total incl. setup and checks | {time.perf_counter() - start:.1f} s |")
    if gave_up:
        print("last failure:", gave_up[-1]["output"].strip().splitlines()[-1:])
    return 1 if n_lost else 0


def _detail(missing: dict[str, list[str]]) -> str:
    return "(" + ", ".join(f"{k} {len(v)}" for k, v in missing.items()) + ")"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


if __name__ == "__main__":
    sys.exit(main())
