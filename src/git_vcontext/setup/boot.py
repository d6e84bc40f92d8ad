"""How a process git starts often runs its Python: without ``site`` (``-S -P``), from the
folders install recorded (issue 28: the guard; issue 32: the merge driver). ``site`` and
the ``.pth`` files it reads cost each start a few milliseconds of CPU that git-vcontext
does not need once its folders are known."""

from __future__ import annotations

import os
import sys

DRIVER_ARGUMENTS = ("%O", "%A", "%B", "-p", "%P", "-l", "%L")
"""git's placeholders as the merge drivers take them, in this order (``config.config_entries``
writes them after the command, the criss-cross base driver these alone): the one place that
says where each is, for the shell form's fallback (``config._guarded_driver``) and BOOT's."""

LABEL_ARGUMENTS = ("-s", "%S", "-x", "%X", "-y", "%Y")
"""The conflict labels, after ``DRIVER_ARGUMENTS`` (the outer merge driver only)."""


def position(placeholder: str) -> int:
    """Where ``placeholder`` stands among the merge driver's arguments (0: the first)."""
    return DRIVER_ARGUMENTS.index(placeholder)


def flag(placeholder: str) -> str:
    """The option that names ``placeholder`` (``-p`` for ``%P``)."""
    return DRIVER_ARGUMENTS[position(placeholder) - 1]


_BOOT = """import gc
import sys
gc.disable()
n = int(sys.argv[1]) + 2
sys.path += sys.argv[2:n]
del sys.argv[1:n]
try:
    from git_vcontext.entry import run
except ImportError as exc:
    a = sys.argv[1:]
    if a[:1] == ["merge-driver"]:
        import os

        a = a[2:] if a[1:2] == ["--virtual-base"] else a[1:]
        name = a[a.index("@-p@") + 1] if "@-p@" in a else a[@A@]
        size = a[a.index("@-l@") + 1] if "@-l@" in a else "7"
        sys.stderr.write(
            f"git-vcontext: the merge driver could not start ({exc}; its Python "
            f"{sys.executable} imports from {sys.path[-(n - 2):] if n > 2 else []}): "
            f"{name} merged by lines; fix: git vcontext install\\n"
        )
        sys.stderr.flush()
        m = "--marker-size=" + size
        os.execvp("git", ["git", "merge-file", m, "-L", "ours", "-L", "base", "-L", "theirs",
                          a[@A@], a[@O@], a[@B@]])
    sys.stderr.write(
        f"git-vcontext: the guard could not run ({exc}; its Python {sys.executable} imports "
        f"from {sys.path[-(n - 2):] if n > 2 else []}): push refused, nothing was checked; "
        "on the server: install git-vcontext, then git vcontext install --server "
        "(git vcontext doctor there says more)\\n"
    )
    sys.exit(3)
run()
"""
BOOT = (
    _BOOT.replace("@-p@", flag("%P"))
    .replace("@-l@", flag("%L"))
    .replace("@A@", str(position("%A")))
    .replace("@O@", str(position("%O")))
    .replace("@B@", str(position("%B")))
)
"""What the guard's Python runs (``python -S -P -c BOOT N PATH... hook pre-receive``), and
the merge driver's (``... merge-driver ARGS``, ``config.DRIVER_FORM``): the N recorded
folders go on ``sys.path`` after the standard library and any ``PYTHONPATH`` (where
``site`` would have put them), then the console script's entry point, with the cyclic
garbage collector off from the start (``entry`` turns it off too, once loaded: its
collections while some 60 modules load cost ~1 ms). A package it cannot import: the
guard refuses the push in one line (exit 3, which the shim passes on); the merge driver
says so in one line and hands the file to git's own line merge (``git merge-file``, as
the driver's shell form does when the program is gone: installing never breaks git)."""


def interpreter() -> str:
    """The Python the guard runs: this one, by the path it was started with (a virtual
    environment's link: not resolved, as ``script_command``)."""
    return os.path.abspath(sys.executable)
