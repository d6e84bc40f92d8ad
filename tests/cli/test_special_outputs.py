"""An output that is not a regular file (``-o /dev/null``, a named pipe) is written into, never
replaced: the atomic rename that protects documents would put a regular file in place of the
machine's ``/dev/null``. Tested on a pipe and on a device node of the test's own folder."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from git_vcontext.fsio import write_atomic
from helpers.run import run_cli

TODO = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}


class Reader:
    """Reads a named pipe to its end in a thread, as ``cat fifo`` would."""

    def __init__(self, fifo: Path) -> None:
        self.data = b""
        self._thread = threading.Thread(target=self._read, args=(fifo,), daemon=True)
        self._thread.start()

    def _read(self, fifo: Path) -> None:
        with open(fifo, "rb") as fh:
            self.data = fh.read()

    def join(self) -> bytes:
        self._thread.join(timeout=60)
        assert not self._thread.is_alive()
        return self.data


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this system")
    path = tmp_path / "out.pipe"
    os.mkfifo(path)
    return path


@pytest.fixture
def device(tmp_path: Path) -> Path:
    """A node like /dev/null (char 1, 3) in the test's folder: needs the right to make one."""
    path = tmp_path / "null"
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (OSError, AttributeError):
        pytest.skip("cannot make a device node here (not root)")
    return path


def test_write_atomic_writes_into_a_named_pipe_and_leaves_it_a_pipe(fifo: Path) -> None:
    reader = Reader(fifo)
    write_atomic(fifo, b"data\n")
    assert reader.join() == b"data\n"
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert [p.name for p in fifo.parent.iterdir()] == [fifo.name]  # no temporary file left


def test_merge_and_convert_write_into_a_pipe(tmp_path: Path, fifo: Path) -> None:
    doc = tmp_path / "todo.vcontext.json"
    doc.write_text(json.dumps(TODO))
    for args in (
        ("merge", doc, doc, doc, "-o", fifo),
        ("convert", doc, "--to", "tron", "-o", fifo),
    ):
        reader = Reader(fifo)
        proc = run_cli(*map(str, args))
        assert proc.returncode == 0, proc.stderr
        assert b"vContextInfo" in reader.join()
        assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_o_dev_null_leaves_the_device_a_device(tmp_path: Path, device: Path) -> None:
    doc = tmp_path / "todo.vcontext.json"
    doc.write_text(json.dumps(TODO))
    for args in (
        ("merge", doc, doc, doc, "-o", device),
        ("merge", doc, doc, doc, "-o", tmp_path / "out.json", "--report", device),
        ("convert", doc, "--to", "tron", "-o", device),
    ):
        proc = run_cli(*map(str, args))
        assert proc.returncode == 0, proc.stderr
        assert stat.S_ISCHR(device.stat().st_mode), args
        assert device.read_bytes() == b""
