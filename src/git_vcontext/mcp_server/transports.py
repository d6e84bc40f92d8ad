"""Serving over stdio (the default) or streamable HTTP at ``/mcp`` with Origin and token checks."""

from __future__ import annotations

import hmac
import json
import socket
from collections.abc import Callable
from typing import Any

from ..errors import OperationalError
from .service import Service
from .startup import Address, Sessions

LOCAL_ORIGINS = ("localhost", "127.0.0.1", "[::1]")


def stdio(svc: Service) -> None:
    """Serve one client on stdin/stdout until it hangs up."""
    # lazy: the MCP SDK only once the server starts
    import anyio

    # lazy: the MCP SDK only once the server starts
    from .app import VContextServer

    anyio.run(VContextServer(svc).serve_stdio)


def http(
    svc: Service,
    host: str,
    port: int,
    token: str | None,
    *,
    sessions: Sessions | None = None,
    announce: Callable[[str], None],
    token_env: str | None = None,
) -> None:
    """Serve streamable HTTP at ``http://HOST:PORT/mcp`` until interrupted; at most
    ``sessions.limit`` sessions at once (a new one beyond: 503), each ended after
    ``sessions.idle_timeout`` seconds without a request (its id then answers 404)."""
    sessions = sessions or Sessions()
    # lazy: the MCP SDK only once the server starts
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    # lazy: the MCP SDK only once the server starts
    from .app import VContextServer

    address = Address(host, port)
    server = VContextServer(svc)
    security = (
        None
        if address.loopback
        else TransportSecuritySettings(
            enable_dns_rebinding_protection=False  # the Host names clients use are unknown; the
        )
    )  # token (required off loopback) and the Origin check below protect it instead
    app = server.streamable_http_app(
        host=host,
        transport_security=security,
        session_idle_timeout=sessions.idle_timeout,
        max_sessions=sessions.limit,
    )
    sock = _listen(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    announce(f"serving {svc.catalog.root} at http://{shown}:{bound}/mcp")
    guarded = Guard(app, token=token, origins=_origins(host), token_env=token_env)
    config = uvicorn.Config(guarded, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise OperationalError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return sock


def _origins(host: str) -> tuple[str, ...]:
    names = {*LOCAL_ORIGINS, f"[{host}]" if ":" in host else host}
    return tuple(f"{scheme}://{name}" for name in sorted(names) for scheme in ("http", "https"))


class Guard:
    """ASGI middleware: a browser page from another origin gets 403 (the MCP spec's defence
    against DNS rebinding), a request without the bearer token 401 with RFC 6750's
    ``error="invalid_token"`` and a JSON body saying how to send it (a client that would
    start OAuth on a bare 401, as the MCP Inspector does, shows that reason instead)."""

    def __init__(
        self,
        app: Any,
        *,
        token: str | None,
        origins: tuple[str, ...],
        token_env: str | None = None,
    ) -> None:
        self.app = app
        self.token = token
        self.origins = origins
        where = f" (the server reads it from ${token_env})" if token_env else ""
        self.how = (
            "missing or wrong bearer token: send the server's token as the header "
            f"'Authorization: Bearer <token>'{where}"
        )

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        origin = headers.get("origin")
        if origin is not None and not self._origin_ok(origin):
            await _deny(send, 403, "Origin not allowed", {})
            return
        if self.token is not None and not self._token_ok(headers.get("authorization", "")):
            body = json.dumps({"error": "invalid_token", "error_description": self.how})
            challenge = (
                f'Bearer realm="git-vcontext", error="invalid_token", '
                f'error_description="{self.how.replace(chr(34), chr(39))}"'
            )
            await _deny(send, 401, body, {"www-authenticate": challenge}, "application/json")
            return
        await self.app(scope, receive, send)

    def _origin_ok(self, origin: str) -> bool:
        base = origin.rstrip("/")
        return any(base == o or base.startswith(o + ":") for o in self.origins)

    def _token_ok(self, header: str) -> bool:
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "bearer" or self.token is None:
            return False
        return hmac.compare_digest(value.strip().encode(), self.token.encode())


async def _deny(
    send: Any, status: int, text: str, extra: dict[str, str], kind: str = "text/plain"
) -> None:
    body = (text + "\n").encode()
    headers = [
        (b"content-type", f"{kind}; charset=utf-8".encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    headers += [(k.encode(), v.encode()) for k, v in extra.items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
