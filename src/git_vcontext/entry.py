"""Console entry point: commands git runs per file take a fast path without click."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``git-vcontext``; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    from .cli import main as cli_main

    return cli_main(args)


def run() -> None:
    """``sys.exit(main())`` for the console script."""
    sys.exit(main())
