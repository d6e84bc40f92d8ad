"""The server guard on the pushes ``sync --push`` really makes: a small soak is run against a
bare remote with the guard (``install --server --guard``), every push the remote receives is
captured (git's ref lines, the refs, the guard's ``vcontext/`` folder and git's quarantine of
the objects it brought, just before it), then each push is replayed into a copy of the remote
as it was (the quarantine and git's environment for it too), with the guard's process
alone, the code under test and (``--baseline SRC``) another checkout's, in turn.

Run: python tests/bench/bench_guard_replay.py [--agents 4] [--rounds 4] [--runs 3]
                                              [--baseline <checkout>/src] [--command]
                                              [--last N] [--split] [--keep DIR]

Each code's guard is started as its ``install --server --guard`` installs it: the hook it
writes (the shim, then the guard's Python as the shim starts it); ``--command``: the
guard's command alone (``git-vcontext hook pre-receive``), as before the hook's form
mattered.

Prints, per kind of push (the lease taken alone, an ordinary push the light path judges,
one the full check judges), how many there were and the median CPU time (user + sys of
the hook's processes: its shell, the guard's Python and the git processes it starts) per
push, and the total for all pushes (``--last N``: only the soak's last N pushes are
replayed, where its documents are largest: a 16 x 10 soak's last 60 in a few
minutes), with ``python -c pass`` measured in turn for scale.

Then, per kind of push as ``sync --push`` makes it (read from git's ref lines: the lease
taken alone; an agent's request published, with or without the lease taken in the same
push; an integration: the base moved, with the agent branches it merged, the lease
released and the requests landed; an agent branch moved alone; anything else), the path
that judged it, the median and the total CPU of each code. ``--split`` runs each push once
more per code under a launcher that reports the guard's Python apart from the git
processes it starts (their CPU and how many ``posix_spawnp`` started): where the time goes.
The verdict cache of each push is the one the guard had then (renamed to each code's own
fingerprint). Byte code: both checkouts are compiled first (``compileall``), as an
installed package is.

The capturing hook is a hook of the remote besides the guard, so the soak's agents push
their leases (as with any other hook): the pushes are those of a remote where the guard is
not alone. With the guard alone, agents on the same machine write their leases in process
(``remote.lease.guard_accepts``), and the "lease taken alone" pushes are not made at all;
``bench_soak.py --guard --trace`` counts the pushes per sync then.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the soak harness

from timing import PYTHON, cli, env

from helpers import soak

CAPTURE = """#!/bin/sh
D=$(mktemp -d "{caps}/push.XXXXXX")
cat > "$D/stdin"
git for-each-ref --format='%(objectname) %(refname)' > "$D/refs"
cat HEAD > "$D/HEAD"
if [ -d vcontext ]; then cp -a vcontext "$D/vcontext"; fi
if [ -n "$GIT_QUARANTINE_PATH" ]; then cp -a "$GIT_QUARANTINE_PATH" "$D/quarantine"; fi
date +%s.%N > "$D/time"
exec "$(dirname "$0")/pre-receive.real" < "$D/stdin"
"""


def capture(root: Path, agents: int, rounds: int) -> tuple[Path, list[Path]]:
    """Run the soak; the remote and the captured pushes, in the order they came."""
    caps = root / "pushes"
    caps.mkdir()

    def seeded(remote: Path) -> None:
        hooks = remote / "hooks"
        (hooks / "pre-receive").rename(hooks / "pre-receive.real")
        (hooks / "pre-receive").write_text(CAPTURE.format(caps=caps))
        (hooks / "pre-receive").chmod(0o755)

    run = soak.soak(root, agents, rounds, True, False, {}, True, seeded=seeded)
    syncs = [s for log in run.logs for s in log.syncs]
    lost = sum(len(v) for v in soak.lost(run, run.at_end).values())
    gave_up = sum(1 for s in syncs if s["exit"])
    print(f"soak {agents} x {rounds}: {len(syncs)} syncs, {gave_up} gave up, {lost} lost")
    pushes = sorted(caps.iterdir(), key=lambda d: float((d / "time").read_text()))
    return root / "remote.git", pushes


def captured(root: Path, agents: int, rounds: int) -> tuple[Path, list[Path]]:
    """``capture`` into ``root``, or the soak captured there before (``--keep``: the same
    pushes replayed again, to compare or profile codes on them)."""
    caps = root / "pushes"
    if not (root / "remote.git").is_dir() or not caps.is_dir():
        root.mkdir(parents=True, exist_ok=True)
        return capture(root, agents, rounds)
    pushes = sorted(caps.iterdir(), key=lambda d: float((d / "time").read_text()))
    print(f"replaying the {len(pushes)} pushes kept in {root}")
    return root / "remote.git", pushes


QUARANTINE = "tmp_objdir-incoming-replay"


def quarantined(where: Path) -> dict[str, str]:
    """git's environment for a pre-receive hook reading the push from its quarantine (as
    it was captured): the objects the push brought there, the repository's as alternates."""
    quarantine = where / "objects" / QUARANTINE
    if not quarantine.exists():
        return {}
    return {
        "GIT_QUARANTINE_PATH": str(quarantine),
        "GIT_OBJECT_DIRECTORY": str(quarantine),
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(where / "objects"),
    }


def fingerprint(src: str) -> str:
    code = "from git_vcontext.prepush.cache import fingerprint; print(fingerprint())"
    done = subprocess.run([PYTHON, "-c", code], env=_env(src), capture_output=True, text=True)
    return done.stdout.strip()


def _env(src: str) -> dict[str, str]:
    found = {**env(), "GIT_VCONTEXT_HOOK_VERBOSE": "1"}
    found.pop("PYTHONPATH", None)
    if src:
        found["PYTHONPATH"] = src
    return found


def prepare(remote: Path, push: Path, where: Path, cache: str) -> None:
    """A bare repository holding the remote's objects (hard links), the refs and the
    guard's folder as they were when ``push`` arrived."""
    if where.exists():
        shutil.rmtree(where)
    subprocess.run(["git", "init", "-q", "--bare", str(where)], check=True)
    shutil.rmtree(where / "objects")
    subprocess.run(["cp", "-al", str(remote / "objects"), str(where / "objects")], check=True)
    lines = [line.split() for line in (push / "refs").read_text().splitlines() if line]
    feed = "".join(f"create {ref} {oid}\n" for oid, ref in lines)
    subprocess.run(["git", "update-ref", "--stdin"], cwd=where, input=feed, text=True, check=True)
    shutil.copy(push / "HEAD", where / "HEAD")
    if (push / "quarantine").exists():  # what the push brought, where git's hook reads it
        shutil.copytree(push / "quarantine", where / "objects" / QUARANTINE)
    if (push / "vcontext").exists():
        shutil.copytree(push / "vcontext", where / "vcontext")
        verdicts = where / "vcontext" / "verdicts"
        for folder in verdicts.iterdir() if verdicts.exists() else []:
            folder.rename(verdicts / cache)


def installed_hook(src: str, folder: Path, label: str) -> Path:
    """The pre-receive hook ``install --server --guard`` of the code in ``src`` writes (its
    shim, starting that code's guard as it starts it), in ``folder``."""
    code = (
        "from git_vcontext.setup.config import script_command\n"
        "from git_vcontext.setup.server import hook_text\n"
        "print(hook_text(script_command(), 'pre-receive'), end='')\n"
    )
    done = subprocess.run(
        [PYTHON, "-c", code],
        env=_env(src), capture_output=True, text=True, check=True,
    )  # fmt: skip
    hook = folder / f"pre-receive.{label.replace(' ', '-')}"
    hook.write_text(done.stdout)
    hook.chmod(0o755)
    return hook


def once(push: Path, where: Path, src: str, hook: Path | None = None) -> tuple[float, str]:
    """CPU seconds of one guard run (with its children) and which path judged the push:
    ``hook``, the shim install writes (as git starts it), or the guard's command alone."""
    hook_env = {**_env(src), "GIT_DIR": str(where), **quarantined(where)}
    command = [str(hook)] if hook is not None else cli("hook", "pre-receive")
    with open(push / "stdin", "rb") as stdin:
        proc = subprocess.Popen(
            command, cwd=where, env=hook_env, stdin=stdin,
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        assert proc.stderr is not None
        said = proc.stderr.read().decode(errors="replace")
        _, status, used = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"the guard refused a push sync made: {said}")
    kind = "light" if "guard (light)" in said else "full" if "guard: checked" in said else "lease"
    return used.ru_utime + used.ru_stime, kind


SPLIT = """import os, sys, resource, gc
gc.disable()
n = int(sys.argv[1]) + 2
sys.path += sys.argv[2:n]
del sys.argv[1:n]
spawns = [0]
spawn = os.posix_spawnp
def counted(*a, **k):
    spawns[0] += 1
    return spawn(*a, **k)
os.posix_spawnp = counted
import posix
end = posix._exit
def said():
    s, c = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    with open(os.environ["SPLIT_OUT"], "w") as fh:
        fh.write(f"{s.ru_utime + s.ru_stime} {c.ru_utime + c.ru_stime} {spawns[0]}")
def ended(code):
    said()
    end(code)
os._exit = posix._exit = ended
import atexit
atexit.register(said)
sys.argv = ["git-vcontext", "hook", "pre-receive"]
from git_vcontext.entry import run
run()
"""


def split(push: Path, where: Path, src: str, out: Path) -> tuple[float, float, int]:
    """The guard's Python alone, started as the hook starts it (``-S``, its import paths)
    but under a launcher counting ``posix_spawnp``: its own CPU, its git processes' CPU,
    and how many it started."""
    code = "from git_vcontext.setup.server import import_paths; print(chr(0).join(import_paths()))"
    found = subprocess.run([PYTHON, "-c", code], env=_env(src), capture_output=True, text=True)
    paths = [p for p in found.stdout.strip().split(chr(0)) if p]
    if src:
        paths.insert(0, src)
    hook_env = {**_env(src), "GIT_DIR": str(where), "SPLIT_OUT": str(out), **quarantined(where)}
    hook_env.pop("PYTHONPATH", None)
    command = [PYTHON, "-S", "-P", "-c", SPLIT, str(len(paths)), *paths]
    with open(push / "stdin", "rb") as stdin:
        subprocess.run(
            command, cwd=where, env=hook_env, stdin=stdin,
            stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True,
        )  # fmt: skip
    own, children, spawns = out.read_text().split()
    return float(own), float(children), int(spawns)


def what(push: Path) -> str:
    """What ``sync --push`` made this push for, from git's ref lines."""
    lines = [line.split() for line in (push / "stdin").read_text().splitlines() if line]
    zero = "0" * 40
    heads = [ref for _, _, ref in lines if ref.startswith("refs/heads/")]
    agents = [ref for ref in heads if ref.startswith("refs/heads/agents/")]
    leases = [(old, new) for old, new, ref in lines if ref.startswith("refs/vcontext/lease/")]
    requests = [(old, new) for old, new, ref in lines if ref.startswith("refs/vcontext/sync/")]
    if len(leases) == len(lines) and all(old == zero for old, _ in leases):
        return "lease taken alone"
    if len(heads) > len(agents):
        return "integration (base moved)"
    if requests and all(new != zero for _, new in requests):
        return "request published" + (" + lease taken" if leases else "")
    if agents and len(agents) == len(lines):
        return "agent branch(es) alone"
    return "other"


def floor() -> float:
    proc = subprocess.Popen([PYTHON, "-c", "pass"])
    _, _, used = os.wait4(proc.pid, 0)
    return used.ru_utime + used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3, help="Replays of each push per code.")
    parser.add_argument("--baseline", default="", help="Another checkout's src folder.")
    parser.add_argument("--last", type=int, default=0, help="Replay only the last N pushes.")
    parser.add_argument(
        "--split", action="store_true",
        help="Also the guard's Python apart from its git processes, per kind of push.",
    )  # fmt: skip
    parser.add_argument(
        "--keep", default="",
        help="Keep the captured soak in this folder (made if missing); when it holds one "
        "already, replay that one instead of running a soak (to profile the same pushes).",
    )  # fmt: skip
    parser.add_argument(
        "--command", action="store_true",
        help="Run the guard's command alone (git-vcontext hook pre-receive), not the hook "
        "install --server writes (its shim, and the Python it starts as it starts it).",
    )  # fmt: skip
    args = parser.parse_args()
    here = str(Path(__file__).resolve().parents[2] / "src")
    codes = {"this code": here, **({"baseline": args.baseline} if args.baseline else {})}
    for src in codes.values():
        compileall.compile_dir(src, quiet=1)
    with tempfile.TemporaryDirectory(prefix="bench-guard-replay-") as tmp:
        remote, pushes = captured(Path(args.keep or tmp), args.agents, args.rounds)
        pushes = pushes[-args.last :] if args.last else pushes
        whats = {push.name: what(push) for push in pushes}
        caches = {label: fingerprint(src) for label, src in codes.items()}
        hooks = {
            label: None if args.command else installed_hook(src, Path(tmp), label)
            for label, src in codes.items()
        }
        spent: dict[tuple[str, str], list[float]] = {}
        kinds: dict[str, str] = {}
        paths: dict[tuple[str, str], str] = {}
        parts: dict[tuple[str, str], tuple[float, float, int]] = {}
        floors = []
        for push in pushes:
            for _ in range(args.runs):
                floors.append(floor())
                for label, src in codes.items():
                    prepare(remote, push, Path(tmp) / "replay.git", caches[label])
                    cpu, kind = once(push, Path(tmp) / "replay.git", src, hooks[label])
                    spent.setdefault((push.name, label), []).append(cpu)
                    kinds.setdefault(push.name, kind)  # as this code judged it
                    paths.setdefault((push.name, label), kind)
            for label, src in codes.items() if args.split else ():
                prepare(remote, push, Path(tmp) / "replay.git", caches[label])
                out = Path(tmp) / "split.out"
                parts[(push.name, label)] = split(push, Path(tmp) / "replay.git", src, out)
    print(f"| guard CPU per push (median of {args.runs}) | " + " | ".join(codes) + " |")
    print("|---|" + "---|" * len(codes))
    for kind in ("lease", "light", "full"):
        names = [p.name for p in pushes if kinds[p.name] == kind]
        if not names:
            continue
        cells = []
        for label in codes:
            each = [statistics.median(spent[(n, label)]) for n in names]
            cells.append(f"{statistics.median(each) * 1000:.0f} ms")
        print(f"| {kind} ({len(names)} pushes) | " + " | ".join(cells) + " |")
    totals = []
    for label in codes:
        total = sum(statistics.median(spent[(p.name, label)]) for p in pushes)
        totals.append(f"{total:.2f} s")
    print(f"| all {len(pushes)} pushes | " + " | ".join(totals) + " |")
    by_what(pushes, whats, codes, spent, paths, parts)
    print(
        f"python -c pass: {statistics.median(floors) * 1000:.0f} ms; "
        f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )


def by_what(
    pushes: list[Path],
    whats: dict[str, str],
    codes: dict[str, str],
    spent: dict[tuple[str, str], list[float]],
    paths: dict[tuple[str, str], str],
    parts: dict[tuple[str, str], tuple[float, float, int]],
) -> None:
    """The table per kind of push: how many, the path each code judged them by, the median
    and total CPU (and with ``--split``, the medians of the guard's Python, its git
    processes, and how many it started)."""
    groups: dict[str, list[str]] = {}
    for push in pushes:
        groups.setdefault(whats[push.name], []).append(push.name)
    print()
    print("| push (what sync made it for) | code | paths | median CPU | total CPU | split |")
    print("|---|---|---|---|---|---|")
    for kind, names in sorted(groups.items(), key=lambda item: item[0]):
        for label in codes:
            each = [statistics.median(spent[(n, label)]) for n in names]
            ways = ", ".join(
                f"{way} {sum(paths[(n, label)] == way for n in names)}"
                for way in ("lease", "light", "full")
                if any(paths[(n, label)] == way for n in names)
            )
            cell = ""
            if parts:
                own = statistics.median(parts[(n, label)][0] for n in names) * 1000
                git = statistics.median(parts[(n, label)][1] for n in names) * 1000
                spawns = statistics.median(parts[(n, label)][2] for n in names)
                cell = f"Python {own:.0f} ms, git {git:.0f} ms ({spawns:.0f} started)"
            print(
                f"| {kind} ({len(names)}) | {label} | {ways} | "
                f"{statistics.median(each) * 1000:.0f} ms | {sum(each):.2f} s | {cell} |"
            )


if __name__ == "__main__":
    main()
