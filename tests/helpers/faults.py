"""Killing ``sync --push`` at chosen steps, and an agent that then does only what it is told.

The kill points are the product's own (``git_vcontext.faults``): each git command the
process starts and each in-process ref move count as a step; ``GIT_VCONTEXT_KILL_STEP=N``
kills the process (SIGKILL) at step N, ``GIT_VCONTEXT_KILL_AT=TEXT`` at the first step
whose name contains TEXT. Every step taken is logged to ``<file>.log``.

``obey`` runs the commands the tool's messages tell the user to run, literally: removing a
lock file, resetting a branch as said, running ``git vcontext status``. Nothing else.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from helpers import soak

ADVICE = (
    re.compile(r"rm -f '([^']+)'"),
    re.compile(r"(git reset --soft [0-9a-f]+ && git commit -C [0-9a-f]+)"),
    re.compile(r"(git reset --keep [0-9a-f]+)"),
    re.compile(r"run (git vcontext status)"),
)


def kill_env(*, step: int | None = None, at: str | None = None, log: Path) -> dict[str, str]:
    """The environment of a process to kill at step ``step`` or at the step named ``at``."""
    env = dict(os.environ)
    for name in ("GIT_VCONTEXT_KILL_STEP", "GIT_VCONTEXT_KILL_AT", "GIT_VCONTEXT_STEP_PID"):
        env.pop(name, None)
    if step is not None:
        env["GIT_VCONTEXT_KILL_STEP"] = str(step)
    if at is not None:
        env["GIT_VCONTEXT_KILL_AT"] = at
    env["GIT_VCONTEXT_STEP_FILE"] = str(log)
    return env


def steps_taken(log: Path) -> list[str]:
    """The steps a killed (or finished) run took, by name."""
    path = log.with_name(log.name + ".log")
    if not path.exists():
        return []
    return [line.split(" ", 1)[1] for line in path.read_text().splitlines()]


def sync_push(
    clone: Path, agent: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*soak.cli(), "sync", agent, "--push", "origin"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
    )


def obey(clone: Path, said: str) -> list[str]:
    """Run what ``said`` tells the user to run (in the order the kinds of advice are
    listed); the commands run."""
    done = []
    for pattern in ADVICE:
        for found in pattern.findall(said):
            if pattern is ADVICE[0]:
                Path(found).unlink(missing_ok=True)
                done.append(f"rm -f {found}")
                continue
            if found.startswith("git vcontext"):
                args = [*soak.cli(), *found.split()[2:]]
            else:
                args = ["sh", "-c", found]
            subprocess.run(args, cwd=clone, capture_output=True, text=True)
            done.append(found)
        if done:
            return done
    return done


@dataclass
class Recovery:
    """What the agent did after a kill: each sync's exit and output, the advice it followed."""

    exits: list[int] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    followed: list[str] = field(default_factory=list)

    @property
    def landed(self) -> bool:
        return bool(self.exits) and self.exits[-1] == 0


def until_synced(clone: Path, agent: str, attempts: int = 4) -> Recovery:
    """Sync again, doing what each failed sync says, until one exits 0 (or ``attempts``)."""
    out = Recovery()
    for _ in range(attempts):
        proc = sync_push(clone, agent)
        said = proc.stdout + proc.stderr
        out.exits.append(proc.returncode)
        out.outputs.append(said)
        if proc.returncode == 0:
            break
        assert "commit or stash" not in said, said  # never: the files may be a sync's leftovers
        out.followed += obey(clone, said)
    return out
