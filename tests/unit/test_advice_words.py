"""Advice lines name paths as words of a command to copy, each on one line (a path holding a
newline in ``$'…'`` form), that a shell reads back as the path itself."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from git_vcontext.validation.model import command_path, command_word

NAMES = [
    "plain name.vcontext.json",
    "a\nb.vcontext.json",
    'it\'s\t"x"\\y\x7f\x01é.json',
    "-dash\nnew.json",
    "mémoire/pläybook.vcontext.json",
]


@pytest.mark.parametrize("name", NAMES)
def test_command_path_stays_on_one_line(name: str) -> None:
    word = command_path(name)
    assert "\n" not in word
    assert "\r" not in word
    assert "\t" not in word


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize("name", NAMES)
def test_command_path_reads_back_as_the_path_in_bash(name: str) -> None:
    word = command_path(name)
    out = subprocess.run(
        ["bash", "-c", f"printf %s {word}"], capture_output=True, check=True
    ).stdout.decode("utf-8")
    assert out == (f"./{name}" if name.startswith("-") else name)


def test_command_word_keeps_plain_shell_quoting_without_control_characters() -> None:
    assert command_word("a b") == "'a b'"
    assert command_word("/srv/git/agents.git") == "/srv/git/agents.git"
