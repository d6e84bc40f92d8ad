"""Error types with structured fields and the exit codes of the command-line contract.

Every expected error is a ``VContextError`` and is defined here, once per meaning; the error
boundary (``boundary``) turns it into one line on stderr and its exit code. Signals that
never leave the module that raises them (a parser giving up on its fast path, a push to
try again) stay in that module."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal

    Code = Literal[0, 1, 2, 3, 130]
else:  # typing costs import time on the paths git starts once per file
    Code = int


URL_SCHEME = r"^([A-Za-z][A-Za-z0-9+.-]*)://"  # a URL's scheme (operands compiles it too)
_IN_TEXT = r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"/]*@"  # a URL's scheme://user[:password]@


def shown_url(value: str) -> str:
    """``value`` as it may be printed: a URL's credentials (``https://user:token@host``,
    ``https://token@host``) masked as ``***``, as git masks them in its own messages; an
    ssh user name (``ssh://git@host``) and anything that is no URL kept as it is."""
    if "://" not in value or "@" not in value:
        return value
    import re  # lazy: the paths git starts once per file never print a URL

    scheme = re.match(URL_SCHEME, value)
    if scheme is None:
        return value
    rest = value[scheme.end() :]
    where, slash, path = rest.partition("/")
    user, at, host = where.rpartition("@")
    if not at:
        return value
    if ":" in user:
        user = f"{user.split(':', 1)[0]}:***"
    elif scheme.group(1).lower() not in ("ssh", "git+ssh", "ssh+git"):
        user = "***"  # a token given as the user name (https://TOKEN@host)
    return f"{value[: scheme.end()]}{user}@{host}{slash}{path}"


def shown_text(text: str) -> str:
    """``text`` (a message, git's stderr relayed) with every URL's credentials masked as
    ``shown_url`` masks them, wherever in the text the URL is (``fatal: unable to access
    'https://user:TOKEN@host/x.git/'``: git masks some of its lines, not all)."""
    if "://" not in text or "@" not in text:
        return text
    import re

    return re.sub(_IN_TEXT, lambda m: shown_url(m.group(0)), text)


class ExitCode:
    """Exit statuses every command uses (PRODUCT.md, command-line contract): plain ints,
    not an ``enum`` (which, with what it imports, costs each process git starts once per
    file about 2 ms)."""

    OK: Final = 0
    FOUND: Final = 1  # conflicts, invalid documents, differences with --exit-code
    USAGE: Final = 2
    OPERATIONAL: Final = 3  # expected operational error: not a repo, missing file, ...
    INTERRUPTED: Final = 130


class VContextError(Exception):
    """Base of every expected error: carries a one-line message and an exit code."""

    exit_code: Code = ExitCode.OPERATIONAL
    lock_files: tuple[str, ...] = ()
    """Lock files in the way that the tool could not prove stale (``gitio.locks``): only a
    person may remove them (the message says how); the MCP server says so as such."""

    def __init__(
        self, message: str, *, exit_code: Code | None = None, lock_files: tuple[str, ...] = ()
    ) -> None:
        message = shown_text(message)  # never a URL's credentials, wherever it is shown
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code
        if lock_files:
            self.lock_files = lock_files

    def one_line(self) -> str:
        """The message as printed on stderr: never more than one line."""
        return " ".join(self.message.split("\n"))


class UsageError(VContextError):
    """Bad use of a command (exit 2)."""

    exit_code = ExitCode.USAGE


class OperationalError(VContextError):
    """Expected failure of the environment: missing file, not a git repository (exit 3)."""

    exit_code = ExitCode.OPERATIONAL


class OutputError(OperationalError):
    """Standard output took less than it was given: a full disk, ``ulimit -f``, an I/O
    error. Never exit 0 with output cut short."""


class RefMoved(OperationalError):
    """A branch changed under us (another process moved it): nothing was updated."""


class RefLocked(OperationalError):
    """A ref's lock file stays (left by a killed process): nothing was updated; the
    message names the file and what to do."""


class Unfinished(OperationalError):
    """A work-tree update that cannot be finished without the user (the message says how)."""


class PushRefused(OperationalError):
    """A push the remote or the pre-push hook refused, or too many rejections: give up."""


class NotData(OperationalError):
    """A file whose versions cannot be merged as data (one does not parse): resolve by hand."""


class Refused(VContextError):
    """A change to a document the tool will not make (it would break the document, or what
    was asked is malformed): one line saying what, why and what to do (exit 1).

    ``kind`` names the reason for programs (``unknown-id``, ``bad-status``,
    ``stale-sequence``, ``invalid-result``, ``bad-argument``, ...; ``refused`` for a
    playbook edit or an ACE patch).
    """

    exit_code = ExitCode.FOUND

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class NoPlaybookError(VContextError):
    """The document holds no playbook (``view`` exits 1: nothing found)."""

    exit_code = ExitCode.FOUND


class ParseError(VContextError):
    """A document that cannot be read, with the position of the problem.

    ``line`` and ``column`` are 1-based; ``snippet`` shows the line with a caret.
    Parse errors are "found something" (exit 1): the input is bad, not the tool.
    """

    exit_code = ExitCode.FOUND

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        snippet: str = "",
        rule: str = "parse",
    ) -> None:
        super().__init__(message)
        self.reason = message
        self.path = path
        self.line = line
        self.column = column
        self.snippet = snippet
        self.rule = rule

    def with_path(self, path: str | None) -> ParseError:
        """The same error, naming the file it came from."""
        return ParseError(
            self.reason,
            path=path,
            line=self.line,
            column=self.column,
            snippet=self.snippet,
            rule=self.rule,
        )

    def location(self) -> str:
        """``file:line:col`` (parts that are unknown are left out)."""
        parts = [self.path or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def one_line(self) -> str:
        return f"{self.location()}: {' '.join(self.reason.split())}"

    def __str__(self) -> str:
        return self.one_line()


def caret_snippet(text: str, line: int, column: int) -> str:
    """The offending line of ``text`` followed by a caret under ``column``."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    src = lines[line - 1]
    if len(src) > 200:  # keep the snippet readable for minified files
        start = max(0, column - 100)
        src = src[start : start + 200]
        column -= start
    pad = "".join("\t" if ch == "\t" else " " for ch in src[: max(0, column - 1)])
    return f"{src}\n{pad}^"


def position_of(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset in ``text``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def parse_error_at(text: str, offset: int, message: str, *, rule: str = "parse") -> ParseError:
    """A ParseError located at a character offset of ``text``."""
    line, column = position_of(text, offset)
    return ParseError(
        message, line=line, column=column, snippet=caret_snippet(text, line, column), rule=rule
    )
