"""Running git and the installed command line as a user would; the checkout's root."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run git in ``repo`` and return the completed process."""
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check)


def cli_path() -> list[str]:
    """How to start the installed command line (the console script next to this Python)."""
    script = Path(sys.executable).with_name("git-vcontext")
    return [str(script)] if script.exists() else [sys.executable, "-m", "git_vcontext"]


def run_cli(
    *args: str,
    cwd: Path | None = None,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git-vcontext args`` as a separate process, as a user or git would
    (``timeout``: seconds before it is killed and the test fails)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [*cli_path(), *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        env=full_env,
        timeout=timeout,
    )


def add_packs(repo: Path, count: int, salt: str = "") -> None:
    """``count`` packs of one new blob each in ``repo`` (``salt`` makes the blobs new when a
    test adds packs more than once), as pushes received unpacked would leave them: what a
    remote's ``gc --auto`` (``gc.autoPackLimit``) counts."""
    for n in range(count):
        blob = subprocess.run(
            ["git", "hash-object", "-w", "--stdin"], cwd=repo, input=f"{n} {salt}\n",
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        subprocess.run(
            ["git", "pack-objects", "-q", "objects/pack/pack"], cwd=repo, input=blob,
            capture_output=True, text=True, check=True,
        )  # fmt: skip


def bare_repository(parent: Path, name: str = "r.git") -> Path:
    """An empty bare repository ``parent/name`` with an identity of its own (commits made in
    it with plumbing need one)."""
    where = parent / name
    run_git(parent, "init", "-q", "--bare", str(where))
    run_git(where, "config", "user.name", "T")
    run_git(where, "config", "user.email", "t@example.com")
    return where


@contextmanager
def in_another_pid_namespace(code: str) -> Iterator[str]:
    """Python ``code`` run under ``unshare --pid`` (pid 1 there, as in a container sharing
    this machine's files), alive while the block runs: what it printed before a line
    ``end`` (it then waits for its stdin to close). Skips where ``unshare --pid`` cannot
    run (no util-linux, user namespaces refused)."""
    import pytest

    try:
        proc = subprocess.Popen(
            ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc",
             sys.executable, "-c", code],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
    except OSError:
        pytest.skip("no unshare")
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        for line in iter(proc.stdout.readline, ""):  # (EOF: unshare refused)
            if line == "end\n":
                break
            lines.append(line)
        else:
            pytest.skip("unshare --pid refused here")
        yield "".join(lines)
    finally:
        proc.communicate("")
