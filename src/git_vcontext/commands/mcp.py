"""``git vcontext mcp``: serve the repository's documents to agents over MCP (seed 003)."""

from __future__ import annotations

import gc
import sys

from ..branches.agents import agent_named_in_env, check_agent_name
from ..errors import ExitCode
from ..mcp_server import startup as setup
from ..mcp_server import transports
from ..mcp_server.service import Options


def run(
    *,
    root: str | None = None,
    agent: str | None = None,
    http: str | None = None,
    token_env: str | None = None,
    session_timeout: float | None = None,
    max_sessions: int | None = None,
    read_only: bool = False,
    allow: str | None = None,
    commit: bool = False,
    todo: str | None = None,
    plan: str | None = None,
    playbook: str | None = None,
) -> int:
    """Run the server until the client hangs up (stdio) or it is interrupted (HTTP)."""
    gc.enable()  # the entry point turns the collector off for short runs; a server is long
    if agent is not None:
        check_agent_name(agent)  # it names commits' author, trailers and a config key
    else:  # as the CLI's agents.running_agent
        agent = agent_named_in_env()

    address = setup.http_address(http) if http is not None else None
    sessions = setup.sessions(address, session_timeout, max_sessions)
    bearer = setup.token(address, token_env)
    where, repo, alone = setup.served_root(root)
    if not read_only and (blocked := setup.unwritable(where, repo)) is not None:
        read_only = True
        _announce(
            f"{blocked} is not writable by this user: serving read-only (reads, views, "
            "validation; no tool writes); run the server as the checkout's owner to write"
        )
    options = Options(
        root=where,
        alone=alone,
        agent=agent,
        read_only=read_only,
        allow=setup.allowed(allow),
        commit=commit,
        pinned=setup.pins(where, repo, {"todoList": todo, "plan": plan, "playbook": playbook}),
    )
    svc = setup.service(options, repo)
    if root is None and (note := setup.root_note(where, repo, alone)) is not None:
        _announce(note)

    if address is None:
        transports.stdio(svc)
    else:
        transports.http(
            svc,
            address.host,
            address.port,
            bearer,
            sessions=sessions,
            announce=_announce,
            token_env=token_env,
        )
    return int(ExitCode.OK)


def _announce(line: str) -> None:
    print(f"git-vcontext mcp: {line}", file=sys.stderr, flush=True)
