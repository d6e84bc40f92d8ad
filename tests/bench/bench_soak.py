"""Soak at benchmark size: N agent processes × R rounds of edit → commit → sync --push.

Run: python tests/bench/bench_soak.py [--agents 16] [--rounds 25] [--server] [--guard]
     [--no-lease] [--no-hooks] [--keep DIR]
Prints what was lost (must be 0), syncs that gave up (must be 0), whether every agent's
last round is on the remote's base when the agents stop, M8 ``merge`` entries against
integrations (at most one each), per-sync times, the time until the base holds everyone's
last round, the CPU time all processes used (a figure the machine's other load does not
inflate) and the load average; exit 1 when anything was lost, a sync gave up or an
integration logged more than one M8 entry.
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
    parser.add_argument(
        "--server", action="store_true", help="install --server on the remote (with the guard)."
    )
    parser.add_argument(
        "--guard", action="store_true", help="install --server --guard: the guard alone."
    )
    parser.add_argument(
        "--no-lease", action="store_true", help="vcontext.syncLease=false: no lease, optimistic."
    )
    parser.add_argument("--keep", metavar="DIR", help="Run under DIR and keep the repositories.")
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caching on, as after an install
    os.environ.pop("SOURCE_DATE_EPOCH", None)  # event ids need their entropy
    if args.keep:
        root = Path(args.keep)
        root.mkdir(parents=True, exist_ok=False)
        return _bench(root, args)
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp:
        return _bench(Path(tmp), args)


def _bench(root: Path, args: argparse.Namespace) -> int:
    start, load = time.perf_counter(), os.getloadavg()
    config = {"vcontext.syncLease": "false"} if args.no_lease else {}
    run = soak.soak(
        root, args.agents, args.rounds, not args.no_hooks, args.server, config, args.guard
    )
    docs = soak.documents(soak.fresh_clone(run, root))
    missing = soak.lost(run, run.at_end)
    syncs = [s for log in run.logs for s in log.syncs]
    gave_up = [s for s in syncs if s["exit"] != 0]
    n_lost = sum(len(v) for v in missing.values())
    design = "server" if args.server else "lease off" if args.no_lease else "lease"
    design += ", guard on the remote" if args.server or args.guard else ""
    print(
        f"soak: {args.agents} agents × {args.rounds} rounds against one bare remote "
        f"(pre-push hook {'on' if not args.no_hooks else 'off'}, {design}, "
        f"cpus: {os.cpu_count()}, load average before: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})"
    )
    print(f"| events written | {sum(len(log.events) for log in run.logs)} |")
    print(f"| lost when the agents stopped (events, items, plan items, changes) | {n_lost} "
          f"{_detail(missing)} |")  # fmt: skip
    print(f"| syncs that gave up (exit != 0) | {len(gave_up)} of {len(syncs)} |")
    print(f"| agents whose last round is not on the base when they stop | "
          f"{len(soak.last_rounds_missing(run, run.at_end))} |")  # fmt: skip
    print(f"| fork blocks on the base | {len(soak.forks_on_base(docs))} |")
    print(f"| duplicated ids | {len(soak.duplicates(docs))} |")
    merges, integrations = soak.merges_into_base(run.remote), soak.integrations(run.remote)
    entries = soak.merge_entries(docs)
    print(f"| M8 merge entries (todo changeLog) / integrations (merge commits on the base) / "
          f"agents' rounds they merged | {entries} / {integrations} / "
          f"{merges} |")  # fmt: skip
    _how(syncs)
    times = sorted(s["seconds"] for s in syncs)
    print(f"| sync time median / p95 / max | {_ms(statistics.median(times))} / "
          f"{_ms(times[int(0.95 * (len(times) - 1))])} / {_ms(times[-1])} |")  # fmt: skip
    cpu = sorted(float(str(s["cpu"])) for s in syncs)
    print(f"| CPU per sync, median / p95 (with its git and hook processes) | "
          f"{_ms(statistics.median(cpu))} / {_ms(cpu[int(0.95 * (len(cpu) - 1))])} |")  # fmt: skip
    print(f"| CPU of all syncs / of the whole soak | {sum(cpu):.0f} s / {run.cpu_seconds:.0f} s |")
    print(f"| until the base holds every agent's last round (agents' wall time) | "
          f"{run.loop_seconds:.1f} s |")  # fmt: skip
    print(f"| final syncs failed | {sum(1 for s in run.final_syncs if s['exit'])} |")
    print(f"| total incl. setup and checks | {time.perf_counter() - start:.1f} s |")
    print(f"| load average after | {' '.join(f'{x:.1f}' for x in os.getloadavg())} |")
    if gave_up:
        print("last failure:", gave_up[-1]["output"].strip().splitlines()[-3:])
    return 1 if n_lost or gave_up or entries > integrations else 0


def _how(syncs: list[dict[str, object]]) -> None:
    here = sum(1 for s in syncs if s.get("integrated"))
    elsewhere = sum(1 for s in syncs if s.get("elsewhere"))
    waited = sum(1 for s in syncs if s.get("waited"))
    retried = sum(int(str(s["retries"])) for s in syncs)
    print(f"| syncs that integrated / found their round merged by another / waited for a "
          f"lease | {here} / {elsewhere} / {waited} |")  # fmt: skip
    print(f"| pushes retried (as reported by sync) | {retried} |")


def _detail(missing: dict[str, list[str]]) -> str:
    return "(" + ", ".join(f"{k} {len(v)}" for k, v in missing.items()) + ")"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


if __name__ == "__main__":
    sys.exit(main())
