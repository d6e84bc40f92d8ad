"""Which tracked files are vContext files, which of them git does not send to the driver, and
the ``.gitattributes`` line that would (shared by ``doctor`` and ``install``).

install writes the patterns of PRODUCT.md "Names"; a document outside them (``notes/
playbook.json``) merges by lines until a line of its own routes it: install does not guess
one (a pattern wide enough could catch files that are not documents), it prints it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..codecs import parse
from ..errors import OperationalError, ParseError
from ..fsio import open_regular, read_regular
from ..gitio import git, open_repo
from ..gitio.fileset import work_tree_files
from ..validation.checks import is_document
from ..vermas.kinds import document_kind
from .config import ATTRIBUTES

VCONTEXT_ROOTS = (
    b'"vContextInfo"',
    b'"vBRIEFInfo"',
    b'"vAgendaInfo"',
    b"vContextInfo:",
    b"vBRIEFInfo:",
    b"vAgendaInfo:",
)


def vcontext_files(top: Path) -> tuple[list[str], list[str]]:
    """Tracked vContext files (the file set, and documents outside it by their root key),
    and the files of the set that are not vContext documents."""
    in_set = work_tree_files(open_repo(top))
    out = git(["ls-files", "-z"], cwd=top)
    files: list[str] = []
    configs: list[str] = []
    for name in dict.fromkeys(filter(None, out.stdout.split("\0"))):  # once, even mid-merge
        if in_set(name) and _not_a_document(top, name):
            configs.append(name)
        elif in_set(name) or looks_vcontext(top / name):
            files.append(name)
    return files, configs


def uncovered(top: Path, files: list[str]) -> list[str]:
    """The files git does not send to the merge driver (no ``merge=vcontext``)."""
    if not files:
        return []
    out = git(["check-attr", "-z", "merge", "--stdin"], cwd=top, input="\0".join(files) + "\0")
    fields = out.stdout.split("\0")
    return [fields[i] for i in range(0, len(fields) - 2, 3) if fields[i + 2] != "vcontext"]


def uncovered_documents(top: Path) -> list[str]:
    """The tracked vContext files of the work tree at ``top`` that merge by lines."""
    return uncovered(top, vcontext_files(top)[0])


_GLOB = re.compile(r"([*?\[\\])")
_NEEDS_QUOTES = re.compile(r'[\s"\\]|[\x00-\x1f\x7f]|^[#!]')


def attribute_line(path: str) -> str:
    """The ``.gitattributes`` line (for the file at the top of the work tree) that routes
    exactly ``path`` to the driver: glob characters escaped, anchored at the top when it
    has no folder, C-quoted (as git reads a pattern starting with '"') when it holds
    spaces, quotes or control characters, or starts with '#' or '!'."""
    pattern = _GLOB.sub(r"\\\1", path)
    if "/" not in path.rstrip("/"):
        pattern = "/" + pattern
    if _NEEDS_QUOTES.search(pattern):
        pattern = _c_quote(pattern)
    return f"{pattern} {ATTRIBUTES}"


SHOWN_LINES = 20


def attribute_lines(paths: list[str]) -> list[str]:
    """The .gitattributes lines that route ``paths`` (at most SHOWN_LINES, then a count)."""
    lines = [attribute_line(p) for p in paths[:SHOWN_LINES]]
    if len(paths) > SHOWN_LINES:
        lines.append(f"… and {len(paths) - SHOWN_LINES} more, one line each")
    return lines


def _c_quote(text: str) -> str:
    escapes = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
    out = []
    for ch in text:
        if ch in escapes:
            out.append(escapes[ch])
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _not_a_document(top: Path, name: str) -> bool:
    """A JSON/TRON file that parses and is neither a vContext document nor a VerMAS one
    (a process, evidence): a config."""
    path = top / name
    if path.suffix not in (".json", ".tron") or looks_vcontext(path):
        return False

    try:
        doc = parse(read_regular(str(path)), path=str(path))  # never a FIFO: it would block
    except (OperationalError, ParseError, RecursionError):
        return False
    return not is_document(doc.data) and document_kind(name, doc.data, doc.format) is None


def looks_vcontext(path: Path) -> bool:
    """A ``.json``/``.tron``/``.jsonl`` file with a vContext root key near its top."""
    if path.suffix not in (".json", ".tron", ".jsonl"):
        return False
    try:
        with os.fdopen(open_regular(str(path)), "rb") as fh:
            head = fh.read(4096)
    except (OSError, OperationalError):
        return False
    return any(root in head for root in VCONTEXT_ROOTS)
