"""``fsio.permitted`` answers as the process acts: a program it says may run, runs, and one
it says may not, does not (plain ``os.access`` asks for the real user without
capabilities, and said no to a program that ran: doctor then called a working install
broken). Checked as the user nobody on a program in a folder only root may list."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers.users import roots_folder

ASK = (
    "import os, sys; from git_vcontext.fsio import permitted; "
    "print(permitted(sys.argv[1], os.X_OK))"
)


def test_permitted_to_run_is_what_running_does() -> None:
    with roots_folder("vcontext-permitted-") as (base, become):
        private = base / "private"
        private.mkdir(mode=0o700)
        program = private / "true"
        shutil.copy("/bin/true", program)
        program.chmod(0o755)
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
        said = subprocess.run([*become, sys.executable, "-c", ASK, str(program)],
                              capture_output=True, text=True, env=env, cwd=base)  # fmt: skip
        assert said.returncode == 0, said.stderr
        ran = subprocess.run([*become, str(program)], capture_output=True, cwd=base)
        assert said.stdout.strip() == str(ran.returncode == 0)
