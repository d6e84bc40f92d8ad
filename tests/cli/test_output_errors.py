"""A failed or short write to stdout is an error (exit 3, one line), never output cut short.

PRODUCT.md, "Command-line contract": a failed or short write to stdout (a full disk,
``ulimit -f``) is such an error (exit 3), never exit 0 with output cut short. Issue 31,
point 6: under ``ulimit -f`` convert, textconv, view and diff exited 0 with a truncated
file (Python's buffered stdout drops the rest of a large write the kernel takes only in
part). Each command runs for real: under ``RLIMIT_FSIZE`` (SIGXFSZ ignored, so the kernel
answers a short write, then EFBIG), with ``/dev/full`` as stdout (ENOSPC), and writing to
a file on a full tmpfs (a private mount namespace; skipped where the machine forbids it).
"""

from __future__ import annotations

import json
import os
import resource
import shlex
import signal
import subprocess
from pathlib import Path

import pytest

from helpers.run import cli_path, run_cli

LIMIT = 4096


def _todo(n: int, title: str) -> dict[str, object]:
    items = [{"id": f"t{i}", "title": f"{title} {i}", "status": "pending"} for i in range(n)]
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"sequence": 1, "items": items}}


def _playbook(n: int) -> dict[str, object]:
    events = [
        {
            "eventId": f"e{i}",
            "targetId": f"target-{i}",
            "operation": "append",
            "kind": "rule",
            "narrative": {"Overview": f"rule number {i} " * 4},
            "createdAt": "2025-01-01T00:00:00Z",
        }
        for i in range(n)
    ]
    return {"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": events}}


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """Documents whose outputs are each far larger than the limits below (≥ 100 KB)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, data in {
        "old.vcontext.json": _todo(2000, "first"),
        "new.vcontext.json": _todo(2000, "second"),
        "playbook.vcontext.json": _playbook(800),
    }.items():
        (folder / name).write_text(json.dumps(data, indent=2) + "\n")
    return folder


COMMANDS = {
    "textconv": ["textconv", "old.vcontext.json"],
    "convert": ["convert", "old.vcontext.json", "--to", "tron"],
    "view": ["view", "playbook.vcontext.json", "--format", "json"],
    "diff": ["diff", "old.vcontext.json", "new.vcontext.json"],
    "merge": ["merge", "old.vcontext.json", "old.vcontext.json", "new.vcontext.json"],
    "validate": ["validate", "old.vcontext.json", "--format", "json"],
}
WRITES_MUCH = [k for k in COMMANDS if k != "validate"]


def _limited() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def _refused_in_one_line(done: subprocess.CompletedProcess[bytes], reason: str) -> None:
    assert done.returncode == 3, done.stderr
    assert done.stderr == f"git-vcontext: error: cannot write the output ({reason})\n".encode()


@pytest.mark.parametrize("name", WRITES_MUCH)
def test_output_cut_short_by_ulimit_f_is_exit_3(docs: Path, tmp_path: Path, name: str) -> None:
    whole = run_cli(*COMMANDS[name], cwd=docs)
    assert whole.returncode == 0, whole.stderr
    assert len(whole.stdout) > 10 * LIMIT
    with (tmp_path / "out").open("wb") as out:
        done = subprocess.run(
            [*cli_path(), *COMMANDS[name]],
            cwd=docs,
            stdout=out,
            stderr=subprocess.PIPE,
            preexec_fn=_limited,
        )
    _refused_in_one_line(done, "File too large")
    assert (tmp_path / "out").stat().st_size == LIMIT


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("name", list(COMMANDS))
def test_output_to_a_full_device_is_exit_3(docs: Path, name: str) -> None:
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [*cli_path(), *COMMANDS[name]], cwd=docs, stdout=full, stderr=subprocess.PIPE
        )
    _refused_in_one_line(done, "No space left on device")


def _in_a_full_tmpfs(
    docs: Path, where: Path, command: list[str]
) -> subprocess.CompletedProcess[bytes]:
    """Run ``command`` with stdout to a file on a 64 KB tmpfs mounted at ``where`` in a
    private mount namespace (gone with the process)."""
    where.mkdir()
    script = (
        f"mount -t tmpfs -o size=64k tmpfs {shlex.quote(str(where))} || exit 99; "
        f"exec {shlex.join([*cli_path(), *command])} > {shlex.quote(str(where / 'out'))}"
    )
    for flags in (["-m"], ["-Urm"]):
        done = subprocess.run(
            ["unshare", *flags, "sh", "-c", script], cwd=docs, capture_output=True
        )
        if done.returncode != 99 and b"unshare failed" not in done.stderr:
            return done
    pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="tmpfs and unshare are Linux's")
def test_output_to_a_full_tmpfs_is_exit_3(docs: Path, tmp_path: Path) -> None:
    try:
        done = _in_a_full_tmpfs(docs, tmp_path / "tmpfs", COMMANDS["textconv"])
    except FileNotFoundError:
        pytest.skip("no unshare command (util-linux) on this system")
    _refused_in_one_line(done, "No space left on device")


def test_a_closed_pipe_is_not_an_error(docs: Path) -> None:
    """A reader that stops early (``| head``) is no failure of ours: exit 0, nothing said."""
    proc = subprocess.Popen(
        [*cli_path(), *COMMANDS["textconv"]],
        cwd=docs,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    proc.stdout.read(100)
    proc.stdout.close()
    assert proc.wait(timeout=60) == 0
    assert proc.stderr is not None
    assert proc.stderr.read() == b""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_an_output_file_that_is_a_full_device_is_exit_3(docs: Path) -> None:
    """``-o DEVICE`` is written into (never renamed over), and every byte counts there too."""
    done = run_cli("convert", "old.vcontext.json", "--to", "tron", "-o", "/dev/full", cwd=docs)
    assert done.returncode == 3, done.stderr
    assert (
        done.stderr
        == b"git-vcontext: error: /dev/full: cannot write the output (No space left on device)\n"
    )
