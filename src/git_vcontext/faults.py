"""Kill points for fault-injection tests: off unless ``GIT_VCONTEXT_KILL_STEP`` is set.

A test kills a command (``sync --push``) at each step it takes, in turn: each ``git``
process it starts (a ``git`` wrapper on PATH counts those) and each in-process step
that writes (``step(name)`` here: a ref move, refs set after a fetch). Both count in one
file (``GIT_VCONTEXT_STEP_FILE``); at step number ``GIT_VCONTEXT_KILL_STEP`` the process
gets SIGKILL. Only the process that first saw the setting counts (its id goes into
``GIT_VCONTEXT_STEP_PID`` for its children, e.g. a pre-push hook, which do not).

``GIT_VCONTEXT_KILL_AT=TEXT`` instead kills at the first step whose name contains TEXT
(``git read-tree -m``, ``git push``, ``move refs``, ``refs locked``, ``set fetched
refs``); ``TEXT@N`` at the N-th such step.

Unset (always, outside those tests) a step costs one comparison.
"""

from __future__ import annotations

import os

_KILL = os.environ.get("GIT_VCONTEXT_KILL_STEP")
_AT, _, _NTH = (os.environ.get("GIT_VCONTEXT_KILL_AT") or "").partition("@")
_seen = [0]  # steps named like _AT so far
if _KILL is not None or _AT:
    os.environ.setdefault("GIT_VCONTEXT_STEP_PID", str(os.getpid()))


def step(name: str) -> None:
    """One in-process step: counted, and the process killed at the chosen one."""
    if _KILL is None and not _AT:
        return
    if os.environ.get("GIT_VCONTEXT_STEP_PID") != str(os.getpid()):
        return
    if _AT:
        if _AT in name:
            _seen[0] += 1
            if _seen[0] == int(_NTH or 1):
                _kill()
        return
    counter = os.environ["GIT_VCONTEXT_STEP_FILE"]
    try:
        with open(counter, encoding="ascii") as fh:
            count = int(fh.read().strip() or 0) + 1
    except FileNotFoundError:
        count = 1
    with open(counter, "w", encoding="ascii") as fh:
        fh.write(f"{count}\n")
    with open(counter + ".log", "a", encoding="utf-8") as fh:
        fh.write(f"{count} {name}\n")
    if str(count) == _KILL:
        _kill()


def _kill() -> None:
    import signal

    os.kill(os.getpid(), signal.SIGKILL)
