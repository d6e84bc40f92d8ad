"""Settings given to one git command (``git -c KEY=VALUE vcontext …``, ``--config-env``).

git hands them to the commands it starts in the environment: ``GIT_CONFIG_PARAMETERS``
(each entry shell-single-quoted, ``'key'='value'``, or ``'key=value'`` from older git) and
``GIT_CONFIG_COUNT`` with ``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>``. Every setting is
read as git lists it (``configread``: ``git config --list`` sees them), so nothing looks
them up here: ``canonical`` compares keys as git does (``configread``, install's
``Scope``).
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
