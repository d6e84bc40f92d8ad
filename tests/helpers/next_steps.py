"""Doing exactly what ``sync`` says to do next: its ``next:`` commands, run as printed.

``sync`` ends every conflict with the commands that lead out of it (PRODUCT.md,
"Resolving conflicts"): ``  next: CMD`` on one line, or ``  next:`` followed by one
indented command per line. A test follows them as a person would type them: ``cd``
changes the folder, ``git vcontext …`` runs the installed command line, ``git …`` runs
git; the one choice they leave (``--take <ours|theirs>``, which no shell runs as
printed) is the caller's.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from helpers.run import cli_path

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


@dataclass
class Followed:
    """The commands run, each with its exit code and output, and the folder at the end."""

    cwd: Path
    runs: list[tuple[str, int, str]] = field(default_factory=list)

    @property
    def last(self) -> tuple[str, int, str]:
        return self.runs[-1]


def next_commands(out: str) -> list[str]:
    """The commands of the last ``next:`` block of ``out`` (sync's stdout or a warning)."""
    lines = out.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip().startswith("next:")]
    assert starts, f"no next step in:\n{out}"
    first = lines[starts[-1]].strip()[len("next:") :].strip()
    if first:
        return [first]
    commands = []
    for line in lines[starts[-1] + 1 :]:
        if not line.startswith("    "):
            break
        commands.append(line.strip())
    assert commands, f"an empty next block in:\n{out}"
    return commands


def follow(
    commands: list[str],
    cwd: Path,
    *,
    take: str = "ours",
    env: dict[str, str] | None = None,
    check: bool = True,
) -> Followed:
    """Run ``commands`` as printed, in ``cwd``; each must succeed (exit 0) when ``check``,
    except ``git vcontext conflicts``, ``sync --checkout`` and ``git pull`` (exit 1: there
    are conflicts, as there should be)."""
    done = Followed(cwd)
    full_env = {**os.environ, **EPOCH, **(env or {})}
    for command in commands:
        words = shlex.split(command.replace("<ours|theirs>", take))
        if words[0] == "cd":
            done.cwd = Path(words[1])
            continue
        assert words[0] == "git", command
        where = done.cwd
        if words[1] == "-C":  # git -C FOLDER …
            where, words = Path(words[2]), ["git", *words[3:]]
        argv = [*cli_path(), *words[2:]] if words[1:2] == ["vcontext"] else words
        proc = subprocess.run(argv, cwd=where, capture_output=True, text=True, env=full_env)
        output = proc.stdout + proc.stderr
        done.runs.append((command, proc.returncode, output))
        conflicts = words[1:3] == ["vcontext", "conflicts"] or "--checkout" in words
        conflicts = conflicts or words[1] in ("pull", "merge")  # stops on the conflict
        if check and proc.returncode != 0 and not (conflicts and proc.returncode == 1):
            raise AssertionError(f"{command!r} in {where}: exit {proc.returncode}\n{output}")
    return done


def follow_output(out: str, cwd: Path, **how: object) -> Followed:
    """Follow the last ``next:`` block of ``out``."""
    return follow(next_commands(out), cwd, **how)  # type: ignore[arg-type]
