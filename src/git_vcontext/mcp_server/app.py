"""The MCP server itself (``mcp`` SDK, v2 ``MCPServer``): tools, resources, prompts, transports.

The only module of git-vcontext that imports ``mcp``; ``git vcontext mcp`` imports it
when it runs, so no other command pays for the SDK.
"""

from __future__ import annotations

import io
import logging
import os
import sys
import traceback
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Annotated, Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.tools import Tool
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import Field

from ..errors import Refused
from ..spelling import BigInt, escape_lone_surrogates
from ..version import __version__
from . import lines, prompts, resources
from .notify import Notifier, watch
from .service import Answer, Service
from .tools.dispatch import call, offered, refusal
from .tools.specs import ToolSpec

INSTRUCTIONS = (
    "git-vcontext serves this repository's vContext documents (todo lists, plans, "
    "playbooks) as seed 003's vbrief:// resources and tools. Every write is checked and "
    "recorded (sequence, changeLog, playbook event chains); pass expectedSequence to "
    "write only if nobody changed the document since you read it."
)
NOT_FOUND = {"unknown-uri", "unknown-id", "no-document", "gone"}
RESOURCE_NOT_FOUND = -32002
INVALID_PARAMS = -32602
"""MCP's "resource not found" (the specification's code; the SDK's default is -32602)."""
log = logging.getLogger("git_vcontext.mcp")


class VContextServer(MCPServer[Any]):
    """``MCPServer`` with resources computed from the documents on disk at each request."""

    def __init__(self, svc: Service) -> None:
        self.svc = svc
        self.notifier = Notifier(InMemorySubscriptionBus())
        super().__init__(
            name="git-vcontext",
            version=__version__,
            instructions=INSTRUCTIONS,
            tools=[_tool(svc, spec) for spec in offered(svc)],
            subscriptions=self.notifier.bus,
            lifespan=_watching,
            log_level="WARNING",
        )
        for prompt in _prompts(svc):
            self.add_prompt(prompt)
        self._legacy_subscriptions()
        self._announce_changes()

    async def list_resources(self) -> list[types.Resource]:
        listed = await anyio.to_thread.run_sync(resources.listed, self.svc)
        return [
            types.Resource(
                uri=clean(r.uri),
                name=clean(r.name),
                description=clean(r.description),
                mime_type=r.mime,
            )
            for r in listed
        ]

    async def list_resource_templates(self) -> list[types.ResourceTemplate]:
        return [
            types.ResourceTemplate(
                uri_template=t.template, name=t.name, description=t.description, mime_type=t.mime
            )
            for t in resources.TEMPLATES
        ]

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> Any:
        """Seed 003's prompts; an unknown prompt, a missing or an unknown argument is
        invalid params (-32602) in one line, never a traceback."""
        prompt = self._prompt_manager.get_prompt(name)
        if prompt is None:
            known = ", ".join(p.name for p in self._prompt_manager.list_prompts())
            raise MCPError(INVALID_PARAMS, f"no prompt {clean(name)!r}; prompts: {known}")
        takes = {a.name: a for a in prompt.arguments or []}
        given = dict(arguments or {})
        extra = sorted(set(given) - set(takes))
        if extra:
            said = ", ".join(takes) or "no arguments"
            raise MCPError(
                INVALID_PARAMS, f"unknown argument {clean(extra[0])!r} for {name}; it takes: {said}"
            )
        missing = [a for a, spec in takes.items() if spec.required and a not in given]
        if missing:
            raise MCPError(INVALID_PARAMS, f"missing argument {missing[0]!r} for {name}")
        return await super().get_prompt(name, given, context)

    async def read_resource(self, uri: Any, context: Any = None) -> Iterable[ReadResourceContents]:
        try:
            found = await anyio.to_thread.run_sync(resources.contents, self.svc, str(uri))
        except Refused as exc:
            if exc.kind in NOT_FOUND:  # PRODUCT.md: resource not found is MCP's -32002
                message = clean(exc.one_line())
                raise MCPError(RESOURCE_NOT_FOUND, message, {"uri": str(uri)}) from None
            raise ResourceError(clean(exc.one_line())) from None
        except Exception as exc:
            _internal(f"reading {uri}", exc)
            raise ResourceError(f"internal error reading {uri}: {type(exc).__name__}") from None
        return [ReadResourceContents(content=clean(text), mime_type=mime) for text, mime in found]

    def _legacy_subscriptions(self) -> None:
        """``resources/subscribe`` for clients of the 2025 handshake protocol (the 2026 ones
        use ``subscriptions/listen``, which ``MCPServer`` serves from the bus)."""
        subscribers = self.notifier.subscribers

        async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
            subscribers.add(ctx.session, str(params.uri))
            return types.EmptyResult()

        async def unsubscribe(
            ctx: Any, params: types.UnsubscribeRequestParams
        ) -> types.EmptyResult:
            subscribers.remove(ctx.session, str(params.uri))
            return types.EmptyResult()

        # MCPServer has no public hook for these two methods; its docs point to the
        # low-level Server's add_request_handler for methods it does not serve.
        low = self._lowlevel_server
        low.add_request_handler("resources/subscribe", types.SubscribeRequestParams, subscribe)
        low.add_request_handler(
            "resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe
        )

    def _announce_changes(self) -> None:
        """Every transport's handshake says the resource list changes (the watcher sends
        list_changed): the HTTP session manager asks the low-level server for its
        defaults, with no way to pass NotificationOptions, so the defaults carry them."""
        low = self._lowlevel_server
        plain = low.create_initialization_options

        def with_changes(options: Any = None, *args: Any, **kwargs: Any) -> Any:
            return plain(options or NotificationOptions(resources_changed=True), *args, **kwargs)

        setattr(low, "create_initialization_options", with_changes)  # noqa: B010

    def initialization_options(self) -> Any:
        """The handshake's capabilities: resources can be subscribed and their list changes."""
        return self._lowlevel_server.create_initialization_options()

    async def serve_stdio(self) -> None:
        """Serve on stdin/stdout; a line the SDK would drop unanswered is answered here
        (``lines``). Like the SDK, fd 0 reads the null device while serving, so no child
        process reads the client's messages."""
        outbox: list[MemoryObjectSendStream[SessionMessage]] = []
        opened = anyio.Event()

        async def checked(stdin: Any) -> AsyncIterator[str]:
            async for line in stdin:
                answer = lines.verdict(line)
                if answer is None:
                    yield line
                elif answer is not lines.SKIP:
                    await opened.wait()
                    error = types.jsonrpc_message_adapter.validate_python(answer)
                    await outbox[0].send(SessionMessage(error))

        fd = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        try:
            with os.fdopen(fd, "rb", closefd=False) as raw:
                text = io.TextIOWrapper(raw, encoding="utf-8", errors="replace")
                stdin: Any = checked(anyio.wrap_file(text))
                async with stdio_server(stdin=stdin) as (read, write):
                    outbox.append(write)
                    opened.set()
                    await self._lowlevel_server.run(read, write, self.initialization_options())
        finally:
            os.dup2(fd, 0)
            os.close(fd)


@asynccontextmanager
async def _watching(server: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
    """While the server runs, a task polls the documents and notifies subscribers."""
    assert isinstance(server, VContextServer)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(watch, server.svc, server.notifier)
        yield {}
        tasks.cancel_scope.cancel()


def _tool(svc: Service, spec: ToolSpec) -> Tool:
    async def run(ctx: Context) -> types.CallToolResult:
        params = ctx.request_context.params or {}
        answer = await anyio.to_thread.run_sync(_answer, svc, spec.name, params.get("arguments"))
        return _result(answer)

    annotations = types.ToolAnnotations(
        read_only_hint=not spec.writes,
        destructive_hint=spec.destructive if spec.writes else None,
        idempotent_hint=False if spec.writes else None,
        open_world_hint=False,
    )
    tool = Tool.from_function(
        run,
        name=spec.name,
        description=spec.description,
        annotations=annotations,
        structured_output=False,
    )
    return tool.model_copy(update={"parameters": spec.schema()})


def _answer(svc: Service, name: str, args: Any) -> Answer:
    try:
        return call(svc, name, args)
    except Exception as exc:  # a bug: one line for the client, the details on stderr
        _internal(name, exc)
        return refusal("internal", f"internal error in {name}: {type(exc).__name__}: {exc}")


def _result(answer: Answer) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=clean(answer.text))],
        structured_content=clean(answer.data),
        is_error=answer.error,
    )


def clean(value: Any) -> Any:
    """``value`` with every lone surrogate (a document's ``\\ud800`` escape) written as that
    escape: the wire is UTF-8, which cannot carry one (the SDK would fail the whole reply);
    an integer of more digits than JSON readers take (4,300: Python's and pydantic's
    limit; the SDK's client would drop the reply and wait forever) as its digits in a
    string."""
    if isinstance(value, str):
        return escape_lone_surrogates(value)
    if type(value) is BigInt:
        return value.spelling
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value


def _internal(what: str, exc: BaseException) -> None:
    print(
        f"git-vcontext mcp: internal error in {what}: {type(exc).__name__}: {exc}", file=sys.stderr
    )
    if os.environ.get("GIT_VCONTEXT_DEBUG"):
        traceback.print_exception(exc, file=sys.stderr)


def _prompts(svc: Service) -> list[Prompt]:
    def vbrief_session_start() -> str:
        return str(clean(prompts.session_start(svc)))

    def vbrief_session_end(
        summary: Annotated[str, Field(description="Brief summary of work completed")],
    ) -> str:
        return str(clean(prompts.session_end(svc, summary)))

    def vbrief_plan_review() -> str:
        return str(clean(prompts.plan_review(svc)))

    def vbrief_add_learning(
        category: Annotated[
            str, Field(description="Learning category: strategies, decisions, patterns, gotchas")
        ],
    ) -> str:
        return str(clean(prompts.add_learning(svc, category)))

    described = (
        (vbrief_session_start, "Load vBRIEF context at the start of a coding session"),
        (vbrief_session_end, "Save current work state to vBRIEF at session end"),
        (vbrief_plan_review, "Review the current plan and suggest next steps"),
        (vbrief_add_learning, "Extract a learning from recent work and add it to the playbook"),
    )
    return [Prompt.from_function(fn, description=text) for fn, text in described]
