"""Settings given to one git command (``git -c KEY=VALUE vcontext …``, ``--config-env``).

git hands them to the commands it starts in the environment: ``GIT_CONFIG_PARAMETERS``
(each entry shell-single-quoted, ``'key'='value'``, or ``'key=value'`` from older git) and
``GIT_CONFIG_COUNT`` with ``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>``. The git commands
we start see them as git does; pygit2 (libgit2) does not, so every read of a setting
through pygit2 asks here first: they outrank every configuration file, as in git.
"""

from __future__ import annotations

import os

PARAMETERS = "GIT_CONFIG_PARAMETERS"
COUNT = "GIT_CONFIG_COUNT"

_MISSING = object()
_parsed: tuple[tuple[str, str], dict[str, str | None]] | None = None


def lookup(key: str) -> object:
    """The last value given for ``key`` (None: given without a value, which git reads as
    true), or ``MISSING`` (``is_missing``) when none was given."""
    return _entries().get(canonical(key), _MISSING)


def names() -> list[str]:
    """The keys given to this command (as ``canonical`` writes them)."""
    return list(_entries()) if PARAMETERS in os.environ or COUNT in os.environ else []


def is_missing(value: object) -> bool:
    return value is _MISSING


def canonical(key: str) -> str:
    """``section.sub.Section.name`` as git compares keys: the section and the variable
    name ignore case, a subsection does not."""
    first, _, rest = key.partition(".")
    middle, _, last = rest.rpartition(".")
    if not rest:
        return key.lower()
    return (
        f"{first.lower()}.{middle}.{last.lower()}" if middle else f"{first.lower()}.{last.lower()}"
    )


def _entries() -> dict[str, str | None]:
    global _parsed
    env = (os.environ.get(PARAMETERS, ""), os.environ.get(COUNT, ""))
    if _parsed is not None and _parsed[0] == env:
        return _parsed[1]
    found: dict[str, str | None] = {}
    for key, value in parameters(env[0]):
        found[canonical(key)] = value
    for key, value in counted(env[1]):
        found[canonical(key)] = value
    _parsed = (env, found)
    return found


def parameters(text: str) -> list[tuple[str, str | None]]:
    """The entries of ``GIT_CONFIG_PARAMETERS``, in order (a malformed tail is ignored, as
    git would refuse the command before starting us)."""
    out: list[tuple[str, str | None]] = []
    at = 0
    while True:
        while at < len(text) and text[at] in " \t\n":
            at += 1
        if at >= len(text):
            return out
        word, at = _quoted(text, at)
        if word is None:
            return out
        if at < len(text) and text[at] == "=":  # 'key'='value' (git 2.31 and later)
            value, at = _quoted(text, at + 1)  # 'key'= alone: given without a value
            out.append((word, value))
        elif "=" in word:  # 'key=value' (older git)
            key, _, value = word.partition("=")
            out.append((key, value))
        else:  # 'key': given without a value
            out.append((word, None))


def _quoted(text: str, at: int) -> tuple[str | None, int]:
    """One shell-single-quoted word at ``at`` (git's sq_quote: ``'`` inside written as
    ``'\\''``, ``!`` as ``'\\!'``); (None, at) when there is none."""
    if at >= len(text) or text[at] != "'":
        return None, at
    parts: list[str] = []
    at += 1
    while True:
        end = text.find("'", at)
        if end < 0:
            return None, at
        parts.append(text[at:end])
        at = end + 1
        if text[at : at + 3] in ("\\''", "\\!'"):
            parts.append(text[at + 1])
            at += 3
            continue
        return "".join(parts), at


def counted(count: str) -> list[tuple[str, str | None]]:
    """The entries of ``GIT_CONFIG_COUNT`` / ``GIT_CONFIG_KEY_<n>`` / ``GIT_CONFIG_VALUE_<n>``."""
    try:
        n = int(count) if count else 0
    except ValueError:
        return []
    out: list[tuple[str, str | None]] = []
    for i in range(max(0, n)):
        key = os.environ.get(f"GIT_CONFIG_KEY_{i}")
        if key:
            out.append((key, os.environ.get(f"GIT_CONFIG_VALUE_{i}", "")))
    return out
