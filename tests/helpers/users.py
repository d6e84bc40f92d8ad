"""Running a command as another user (``nobody``), for repositories another user owns."""

from __future__ import annotations

import shutil
import subprocess
import sys
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
