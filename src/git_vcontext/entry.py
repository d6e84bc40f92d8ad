"""Console entry point: the commands git runs once per file take a fast path without click."""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence

# Options of the merge driver's fixed command line, as `install` writes it.
_DRIVER_OPTIONS = {
    "-p": "path",
    "-l": "marker_size",
    "-s": "base_label",
    "-x": "ours_label",
    "-y": "theirs_label",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``git-vcontext``; returns the exit code."""
    # Each run is a short process over acyclic JSON data: the cyclic garbage collector
    # only costs time here (it nearly doubles the time to load a 40 MB playbook).
    gc.disable()
    args = list(sys.argv[1:] if argv is None else argv)
    fast = _fast_driver(args)
    if fast is not None:
        return fast
    from .cli import main as cli_main

    return cli_main(args)


def _fast_driver(args: list[str]) -> int | None:
    """Run ``merge-driver`` without importing click when the arguments are git's exact form.

    Anything unusual (help, unknown options) returns None and click handles it,
    so usage errors and --help stay in one place.
    """
    if len(args) < 4 or args[0] != "merge-driver" or any(a.startswith("-") for a in args[1:4]):
        return None
    options: dict[str, object] = {"base": args[1], "ours": args[2], "theirs": args[3]}
    rest = args[4:]
    if len(rest) % 2:
        return None
    for flag, value in zip(rest[::2], rest[1::2], strict=True):
        name = _DRIVER_OPTIONS.get(flag)
        if name is None or name in options:
            return None
        options[name] = value
    if "marker_size" in options:
        size = str(options["marker_size"])
        if not size.isdigit():
            return None
        options["marker_size"] = int(size)

    def call() -> int:
        from .commands import merge_driver

        return merge_driver.run(**options)  # type: ignore[arg-type]

    from .boundary import boundary

    return boundary(call)


def run() -> None:
    """``sys.exit(main())`` for the console script."""
    sys.exit(main())
