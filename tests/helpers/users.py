"""Running a command as another user (``nobody``), for repositories another user owns."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

NOBODY = 65534


def as_nobody(folder: Path) -> list[str]:
    """``setpriv`` to the user nobody; with the capability to read and search any folder
    when this machine's Python lies where nobody may not look (e.g. under /root): that
    capability does not let anyone write, so the repositories stay read-only to it."""
    if shutil.which("setpriv") is None:
        pytest.skip("running as another user needs setpriv (util-linux)")
    become = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    probe = [*become, "sh", "-c", '"$0" -c pass', sys.executable]
    if subprocess.run(probe, cwd=folder, capture_output=True).returncode != 0:
        become += ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]
        if subprocess.run([*become, *probe[4:]], cwd=folder, capture_output=True).returncode:
            pytest.skip("the user nobody cannot run this Python")
    return become


@contextmanager
def roots_folder(prefix: str) -> Iterator[tuple[Path, list[str]]]:
    """A folder in /tmp that root owns and anyone may read (removed after), and how to run
    a command as nobody there; skips unless the tests run as root."""
    if os.geteuid() != 0:
        pytest.skip("another user's view needs root to set up")
    base = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    try:
        base.chmod(0o755)
        yield base, as_nobody(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def nobody_env(base: Path, trusted: str) -> dict[str, str]:
    """nobody's environment: an empty HOME of its own under ``base``, no system config,
    ``trusted`` as safe.directory given the CI runner's way (GIT_CONFIG_COUNT)."""
    home = base / "nobody-home"
    home.mkdir(exist_ok=True)
    os.chown(home, NOBODY, NOBODY)
    return {
        **os.environ,
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "safe.directory",
        "GIT_CONFIG_VALUE_0": trusted,
    }
