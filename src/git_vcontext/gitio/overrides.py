"""Settings given to one git command (``git -c KEY=VALUE vcontext …``, ``--config-env``).

git hands them to the commands it starts in the environment: ``GIT_CONFIG_PARAMETERS``
(each entry shell-single-quoted, ``'key'='value'``, or ``'key=value'`` from older git) and
``GIT_CONFIG_COUNT`` with ``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>``. Every setting is
read as git lists it (``configread``: ``git config --list`` sees them), so nothing looks
them up here: ``canonical`` compares keys as git does (``configread``, install's
``Scope``); ``parameters`` reads git's quoting of the first form (tests only).
"""

from __future__ import annotations


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
