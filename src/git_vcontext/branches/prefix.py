"""The one reading of ``vcontext.agentPrefix``, the agent branches' prefix: the commands'
(``branches.agents.agent_prefix``), the guard's light path and its fast path. Imports
nothing: the guard loads it at every push (issue 28)."""

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
