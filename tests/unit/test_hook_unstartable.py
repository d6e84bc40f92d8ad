"""The pre-push hook when the console script it was installed with cannot start."""

from __future__ import annotations

import shlex
import stat
import subprocess
from typing import TYPE_CHECKING

import pytest

from git_vcontext.setup.config import LAUNCHER
from git_vcontext.setup.hooks import hook_text

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize("launcher", [True, False], ids=["through-sh", "first-line"])
def test_a_script_whose_python_is_gone_is_refused_with_a_fix_that_leads_somewhere(
    tmp_path: Path, launcher: bool
) -> None:
    """PRODUCT.md "Installing never breaks git" (the hook refuses with the fix that works):
    a script whose Python is gone (a system upgrade left the virtual environment's
    ``python`` dangling) exits 127; the hook advised ``"/bin/sh" -m git_vcontext install``
    for a script ``install`` rewrote to start through /bin/sh, and ``"PYTHON" -m …`` with
    the very Python that is gone otherwise: neither runs. It names the Python that is gone
    and the way out (install git-vcontext again, or push --no-verify)."""
    gone = tmp_path / "old x" / "bin" / "python"
    script = tmp_path / "git-vcontext"
    first = LAUNCHER.format(python=gone) if launcher else f"#!{gone}\n"
    script.write_text(first + "import sys\nsys.exit(0)\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    hook = tmp_path / "pre-push"
    hook.write_text(hook_text(shlex.quote(str(script))))

    done = subprocess.run(
        ["sh", str(hook), "origin", "/srv/x.git"], input="", capture_output=True, text=True
    )

    assert done.returncode != 0
    assert "push refused" in done.stderr
    assert '/bin/sh" -m' not in done.stderr, done.stderr
    assert f'"{gone}" -m git_vcontext install' not in done.stderr, done.stderr
    assert f"its Python {gone} is gone" in done.stderr, done.stderr
    assert "git push --no-verify" in done.stderr
