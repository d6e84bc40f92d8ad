"""The server guard on the pushes ``sync --push`` really makes: a small soak is run against a
bare remote with the guard (``install --server --guard``), every push the remote receives is
captured (git's ref lines, the refs and the guard's ``vcontext/`` folder just before it),
then each push is replayed into a copy of the remote as it was, with the guard's process
alone, the code under test and (``--baseline SRC``) another checkout's, in turn.

Run: python tests/bench/bench_guard_replay.py [--agents 4] [--rounds 4] [--runs 3]
                                              [--baseline <checkout>/src] [--command]
                                              [--last N]

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
The verdict cache of each push is the one the guard had then (renamed to each code's own
fingerprint). Byte code: both checkouts are compiled first (``compileall``), as an
installed package is.
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
    hook_env = {**_env(src), "GIT_DIR": str(where)}
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
        remote, pushes = capture(Path(tmp), args.agents, args.rounds)
        pushes = pushes[-args.last :] if args.last else pushes
        caches = {label: fingerprint(src) for label, src in codes.items()}
        hooks = {
            label: None if args.command else installed_hook(src, Path(tmp), label)
            for label, src in codes.items()
        }
        spent: dict[tuple[str, str], list[float]] = {}
        kinds: dict[str, str] = {}
        floors = []
        for push in pushes:
            for _ in range(args.runs):
                floors.append(floor())
                for label, src in codes.items():
                    prepare(remote, push, Path(tmp) / "replay.git", caches[label])
                    cpu, kind = once(push, Path(tmp) / "replay.git", src, hooks[label])
                    spent.setdefault((push.name, label), []).append(cpu)
                    kinds.setdefault(push.name, kind)  # as this code judged it
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
    print(
        f"python -c pass: {statistics.median(floors) * 1000:.0f} ms; "
        f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
