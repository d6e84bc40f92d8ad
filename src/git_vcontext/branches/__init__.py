"""Agent branches and in-process merges of their trees: what sync, ``sync --push``, the
pre-push check and conflicts stand on.

The one reading of ``vcontext.agentPrefix``, the agent branches' prefix, is here
(``agent_prefix_of``): the commands' (``branches.agents.agent_prefix``), the guard's light
path and its fast path read the setting by it; this package's own module, which the
guard loads at every push anyway (issue 28: no module more for it)."""

from __future__ import annotations

AGENT_PREFIX = "vcontext.agentPrefix"
DEFAULT_PREFIX = "agents/"


def agent_prefix_of(value: str | None) -> str | None:
    """The agent branches' prefix a ``vcontext.agentPrefix`` value gives (None: unset, so
    ``agents/``), always ending in '/'; None for one no command takes: a name starting with
    '-' (git takes it for an option). The one reading of the setting: the commands'
    (``branches.agents.agent_prefix``), the guard's light path and its fast path."""
    prefix = (value or DEFAULT_PREFIX).strip()
    if prefix.startswith("-"):
        return None
    return prefix if prefix.endswith("/") else prefix + "/"
