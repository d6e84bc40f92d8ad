"""Console entry point: the commands git runs once per file take a fast path without click."""

from __future__ import annotations

import gc
import os
import sys

from .fsio import check_stdout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

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
    return _main(argv)[0]


def _main(argv: Sequence[str] | None) -> tuple[int, bool]:
    """The exit code, and whether the command was one git runs once per file."""
    # Each run is a short process over acyclic JSON data: the cyclic garbage collector
    # only costs time here (it nearly doubles the time to load a 40 MB playbook).
    gc.disable()
    # File names that are not UTF-8 arrive decoded with surrogateescape: print them as
    # their bytes whatever the locale (a strict stdout would raise on them); and a write
    # to stdout that fails or falls short is an error, never output cut short (exit 3).
    check_stdout()
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(args)
    except KeyboardInterrupt:  # Ctrl-C while modules load, before the boundary is set up
        try:
            print("git-vcontext: interrupted", file=sys.stderr)
        except (OSError, ValueError):
            pass
        return 130, False


def _dispatch(args: list[str]) -> tuple[int, bool]:
    fast = _fast_driver(args)
    if fast is not None:
        return fast, True
    fast = _fast_hook(args)
    if fast is None:
        fast = _fast_sync(args)
    if fast is not None:
        return fast, False
    call = _fast_diff(args)
    if call is not None:
        # lazy: an empty pre-push returns without it
        from .boundary import boundary

        return boundary(call), True
    # lazy: click only for the commands without a fast path
    from .cli import main as cli_main

    return cli_main(args), False


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
        # lazy: each fast path loads its own command only
        from .commands import merge_driver

        return merge_driver.run(**options)  # type: ignore[arg-type]

    # lazy: an empty pre-push returns without it
    from .boundary import boundary

    return boundary(call)


def _fast_hook(args: list[str]) -> int | None:
    """``hook pre-push [REMOTE [URL]]`` as the shim runs it, without click; nothing to
    check (git's stdin is empty, as when every ref is up to date) returns before even
    a repository is opened."""
    if not 2 <= len(args) <= 4 or args[:2] != ["hook", "pre-push"]:
        return None
    if any(a.startswith("-") for a in args[2:]):
        return None
    # lazy: each fast path loads its own command only
    from .commands import hook

    try:
        text: str | None = hook.read_input()
    except (OSError, ValueError):
        text = None  # hook.run reads again and says why it cannot
    if text is not None and not hook.wanted(text):
        return 0
    # lazy: an empty pre-push returns without it
    from .boundary import boundary

    remote = args[2] if len(args) > 2 else None
    url = args[3] if len(args) > 3 else None
    return boundary(lambda: hook.run(remote=remote, url=url, text=text))


def _fast_sync(args: list[str]) -> int | None:
    """``sync AGENT… --push REMOTE``, which every agent runs after every round, without
    click (~30 ms of imports); any other form goes through click."""
    if len(args) < 4 or args[0] != "sync" or args[-2] != "--push":
        return None
    names, remote = args[1:-2], args[-1]
    if any(a.startswith("-") for a in [*names, remote]):
        return None
    # lazy: each fast path loads its own command only
    from .boundary import boundary
    from .commands import sync

    return boundary(lambda: sync.run(agents=tuple(names), push=remote))


def _fast_diff(args: list[str]) -> Callable[[], int] | None:
    """``textconv FILE`` and the external diff (7 or 9 arguments after ``diff``), which git
    runs once per file (twice per file and commit in ``git log -p``), without click."""
    if len(args) == 2 and args[0] == "textconv" and not args[1].startswith("-"):
        # lazy: each fast path loads its own command only
        from .commands import textconv

        return lambda: textconv.run(file=args[1])
    if len(args) in (8, 10) and args[0] == "diff":
        # lazy: git's patch into a pipe needs neither the diff engine nor click
        from . import rawpatch

        if not rawpatch.is_external(args[1:]):
            return None
        if not rawpatch.for_person():
            return lambda: rawpatch.run(args[1:])
        # lazy: each fast path loads its own command only
        from .commands import diff

        return lambda: diff.external(args[1:], fmt="text", color=diff.want_color("auto"))
    return None


def run() -> None:
    """``sys.exit(main())`` for the console script; the commands git runs once per file
    (the merge driver, textconv, the external diff) end without the interpreter's
    teardown, which frees every module and object one by one (~4 ms of a ~35 ms merge)."""
    code, per_file = _main(None)
    if per_file:
        _exit_now(code)
    sys.exit(code)


def _exit_now(code: int) -> None:
    """Flush what was written to stdout and stderr, then end the process at once. Only
    for commands whose files are written whole before they return (no atexit handler,
    temporary directory or thread is left to the teardown)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: started with that descriptor closed
                stream.flush()
        except (BrokenPipeError, ValueError):  # a closed pipe (git log -p stopped
            pass  # reading): as the boundary does for a closed pipe, nothing more to say
        except OSError:  # (the boundary flushed stdout already: unlikely to come here)
            code = code or 3
    os._exit(code)
