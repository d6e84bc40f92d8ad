"""The one error boundary: every outcome becomes an exit code and at most one line on stderr."""

from __future__ import annotations

import sys

from .errors import ExitCode, OutputError, VContextError
from .oscalls import getenv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def boundary(call: Callable[[], Any]) -> int:
    """Expected errors: one line on stderr and their exit code; crashes: one line, exit 3."""
    try:
        result = call()
        if sys.stdout is not None:  # a write that fails now is reported, not lost at exit
            sys.stdout.flush()
        return int(result) if isinstance(result, int) else 0
    except VContextError as exc:
        say(f"git-vcontext: error: {exc.one_line()}")
        if isinstance(exc, OutputError):  # what stdout still holds is lost: say it once
            _silence_stdout()
        return int(exc.exit_code)
    except KeyboardInterrupt:
        say("git-vcontext: interrupted")
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        _silence_stdout()
        return int(ExitCode.OK)
    except Exception as exc:  # click's own exceptions, then the last line of defence
        handled = _click_exception(exc)
        if handled is not None:
            return handled
        if isinstance(exc, OSError) and exc.errno in _DENIED:  # the file system said no
            where = exc.filename or "a file it needs"
            say(f"git-vcontext: error: {where}: {exc.strerror} (for this user)")
            return int(ExitCode.OPERATIONAL)
        if getenv("GIT_VCONTEXT_DEBUG"):
            raise
        name = type(exc).__name__
        say(f"git-vcontext: internal error: {name}: {exc} (set GIT_VCONTEXT_DEBUG=1 for details)")
        return int(ExitCode.OPERATIONAL)


_DENIED = (1, 13, 30)  # EPERM, EACCES, EROFS (Linux and macOS alike; no errno import)


def _click_exception(exc: Exception) -> int | None:
    click = sys.modules.get("click")
    if click is None:
        return None
    if isinstance(exc, click.exceptions.Exit):
        return int(exc.exit_code)
    if isinstance(exc, click.exceptions.Abort):  # click's name for Ctrl-C
        say("git-vcontext: interrupted")
        return int(ExitCode.INTERRUPTED)
    if isinstance(exc, click.ClickException):
        exc.show()
        return int(ExitCode.USAGE)
    return None


def say(line: str) -> None:
    """One line on stderr (newlines inside are folded); never raises."""
    try:
        print(" ".join(line.split("\n")), file=sys.stderr)
    except (OSError, ValueError):
        pass


def _silence_stdout() -> None:
    """After a closed pipe or a failed write, stop Python from complaining (or failing
    again) while flushing at exit: what stdout still holds goes nowhere."""
    import os  # lazy: only then (the driver does without os)

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
