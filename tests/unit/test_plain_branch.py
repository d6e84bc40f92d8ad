"""``gitio.refs.plain_branch``: the names ``valid_branch_name`` (and so a sync's checks and
its early login, one judge) accepts without asking libgit2 are names libgit2 accepts.
PRODUCT.md: "Nothing from outside reaches a command line unchecked"."""

from __future__ import annotations

import random

import pygit2

from git_vcontext.gitio.refs import plain_branch, valid_branch_name

PIECES = ["a", "Z", "0", "_", ".", "-", "/", "@", "{", "~", "^", ":", "?", "*", "[", "\\",
          " ", "\x01", "\x7f", "lock", ".lock", "..", "é", "HEAD"]  # fmt: skip


def test_a_plain_branch_name_is_one_libgit2_accepts() -> None:
    rng = random.Random(30)
    plain = 0
    for _ in range(20000):
        name = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6)))
        if plain_branch(name):
            plain += 1
            assert pygit2.reference_is_valid_name(f"refs/heads/{name}"), name
        assert valid_branch_name(name) == pygit2.reference_is_valid_name(f"refs/heads/{name}")
    assert plain > 500  # (the draw reaches plain names)


def test_names_plain_branch_leaves_to_libgit2() -> None:
    for name in ["", "a..b", "a.", "a.lock", "a/.b", "-a", ".a", "a//b", "a/", "a b", "a~1",
                 "a:b", "é", "a@{b"]:  # fmt: skip
        assert not plain_branch(name), name
    for name in ["agents/agent-0", "a_b.c/d-e", "HEAD", "0"]:
        assert plain_branch(name), name
