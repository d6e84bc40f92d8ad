"""git_vcontext.oscalls (issue 32: the merge driver's process does without ``os``): its
path functions answer as ``os.path``'s, its ``getenv`` as ``os.environ``, in a process
that loaded ``os`` and in one that did not (``python -S``, as install starts the driver)."""

from __future__ import annotations

import os
import posixpath
import random
import subprocess
import sys

import pytest

from git_vcontext import oscalls

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the posix module's own paths")

PARTS = ["", "/", "//", "a", "b c", ".", "..", ".x.tmp", "d/", "/e", "f//g", "ü"]


def _paths(count: int) -> list[str]:
    rng = random.Random(32)
    return ["".join(rng.choice(PARTS) for _ in range(rng.randint(0, 5))) for _ in range(count)]


def test_dirname_and_basename_are_os_path_s() -> None:
    for path in _paths(3000):
        assert oscalls.dirname(path) == posixpath.dirname(path), path
        assert oscalls.basename(path) == posixpath.basename(path), path


def test_join_of_a_folder_and_a_name_is_os_path_s() -> None:
    paths = _paths(300)
    for folder in paths:
        for name in paths[:40]:
            assert oscalls.join(folder, name) == posixpath.join(folder, name), (folder, name)


def test_getenv_reads_os_environ_once_os_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VCONTEXT_OSCALLS_PROBE", "set since the start")
    assert oscalls.getenv("VCONTEXT_OSCALLS_PROBE") == "set since the start"
    monkeypatch.delenv("VCONTEXT_OSCALLS_PROBE")
    assert oscalls.getenv("VCONTEXT_OSCALLS_PROBE") is None


def test_getenv_without_os_reads_the_environment_the_process_started_with() -> None:
    code = (
        "import sys\n"
        "from git_vcontext import oscalls\n"
        "print(repr(oscalls.getenv('SOURCE_DATE_EPOCH')), repr(oscalls.getenv('NOT_SET_X')))\n"
        "print('os' in sys.modules)\n"
    )
    src = os.path.dirname(os.path.dirname(oscalls.__file__))
    env = {"SOURCE_DATE_EPOCH": "12 \udcff", "PATH": os.environ.get("PATH", "")}
    done = subprocess.run(
        [sys.executable, "-S", "-c", f"import sys; sys.path.insert(0, {src!r})\n" + code],
        env=env,
        capture_output=True,
        text=True,
        errors="surrogateescape",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["'12 \\udcff' None", "False"]
