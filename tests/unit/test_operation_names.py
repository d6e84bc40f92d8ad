"""The names a conflicted merge's labels come from (gitio/operation.py), read by ``str``
methods since issue 32: exactly what the regular expressions they stand for read."""

from __future__ import annotations

import random
import re

from git_vcontext.gitio import operation

# the expressions of gitio/operation.py before issue 32: the reference
MERGED = (
    re.compile(r"^Merge (?:remote-tracking )?branch '([^']+)'"),
    re.compile(r"^Merge (?:tag|commit) '([^']+)'"),
    re.compile(r"^vcontext sync: merge (\S+) into "),
)
FULL_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
PIECES = ["Merge ", "branch ", "remote-tracking ", "tag ", "commit ", "'", "''", "x", "y z",
          "\t", "\u00a0", "\x1c", " into ", "vcontext sync: merge ", "\n", "\r", "a/b"]  # fmt: skip


def reference(message: str) -> str | None:
    first = message.split("\n", 1)[0]
    for pattern in MERGED:
        found = pattern.match(first)
        if found:
            return found.group(1)
    return None


def test_merge_msg_names_are_read_as_the_expressions_read_them() -> None:
    rng = random.Random(32)
    for _ in range(20000):
        message = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8)))
        assert operation._merged_name(message) == reference(message), repr(message)
    assert operation._merged_name("Merge branch 'agent/a' into main\n") == "agent/a"
    assert operation._merged_name("vcontext sync: merge agent-b into base") == "agent-b"


def test_a_full_commit_id_is_told_as_the_expression_tells_it() -> None:
    for name in ["a" * 40, "f" * 64, "0123456789abcdef" * 4, "A" * 40, "a" * 39, "a" * 41,
                 "a" * 63, "g" * 40, "a" * 40 + "\n", "", " " + "a" * 39]:  # fmt: skip
        assert operation._is_full_id(name) == bool(FULL_ID.fullmatch(name)), name
