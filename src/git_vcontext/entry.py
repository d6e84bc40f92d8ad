"""Console entry point: commands git runs per file take a fast path without click."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``git-vcontext``; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    fast = _fast_path(args)
    if fast is not None:
        return _guarded(fast)
    from .cli import main as cli_main

    return cli_main(args)


def _fast_path(args: list[str]) -> Callable[[], int] | None:
    """git calls ``textconv FILE`` and the external diff once per file (twice per file and
    commit in ``git log -p``): skip importing click for exactly those argument shapes."""
    if len(args) == 2 and args[0] == "textconv" and not args[1].startswith("-"):
        from .commands import textconv

        return lambda: textconv.run(file=args[1])
    if len(args) in (8, 10) and args[0] == "diff":
        from .commands import diff

        if diff.is_external(args[1:]):
            return lambda: diff.external(args[1:], fmt="text", color=diff.want_color("auto"))
    return None


def _guarded(call: Callable[[], int]) -> int:
    """The error boundary of the fast path (the same outcomes as ``cli.boundary``)."""
    from .errors import ExitCode, VContextError

    try:
        return call()
    except VContextError as exc:
        _say(f"git-vcontext: error: {exc.one_line()}")
        return int(exc.exit_code)
    except KeyboardInterrupt:
        _say("git-vcontext: interrupted")
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return int(ExitCode.OK)
    except Exception as exc:  # last line of defence: one line, no traceback
        if os.environ.get("GIT_VCONTEXT_DEBUG"):
            raise
        _say(f"git-vcontext: internal error: {type(exc).__name__}: {exc}")
        return int(ExitCode.OPERATIONAL)


def _say(line: str) -> None:
    try:
        print(" ".join(line.split("\n")), file=sys.stderr)
    except (OSError, ValueError):
        pass


def run() -> None:
    """``sys.exit(main())`` for the console script."""
    sys.exit(main())
