"""What the stdio server answers itself: a line no MCP message can be made of.

The SDK's stdio reader drops a line it cannot read and answers nothing, so a client
waiting for its reply hangs. Every line that is a request gets an answer (JSON-RPC 2.0):
not JSON → -32700 with id null; JSON but no request (no ``method``, not a response) →
-32600; a request whose strings hold a lone surrogate (JSON allows ``\\ud800``; it is no
text and cannot be written to a file) → -32602 with its id. A notification gets no answer
(JSON-RPC answers none), a blank line is skipped; the rest goes on to the SDK.
"""

from __future__ import annotations

import json
from typing import Any

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
SKIP: dict[str, Any] = {}
"""The verdict on a line to drop without an answer (blank, or a notification's)."""


def verdict(line: str) -> dict[str, Any] | None:
    """None for a line to pass to the SDK; else the JSON-RPC error object to answer with
    (``SKIP``: nothing to answer)."""
    if not line.strip():
        return SKIP
    try:
        message = json.loads(line)
    except ValueError as exc:
        return _error(None, PARSE_ERROR, f"Parse error: the line is not JSON ({exc})")
    if not isinstance(message, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request: a message is a JSON object")
    ident = message.get("id")
    ident = ident if isinstance(ident, (int, str)) and not isinstance(ident, bool) else None
    is_response = "result" in message or "error" in message
    if not isinstance(message.get("method"), str) and not is_response:
        return _error(ident, INVALID_REQUEST, "Invalid Request: no method")
    if _lone_surrogate(message):
        if ident is None:
            return SKIP  # a notification (or a response) is never answered
        return _error(
            ident,
            INVALID_PARAMS,
            "Invalid params: a string holds a lone surrogate (\\ud800-\\udfff), which is no text",
        )
    return None


def _error(ident: int | str | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def _lone_surrogate(value: Any) -> bool:
    """Whether a key or string anywhere in ``value`` is not encodable as UTF-8."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            texts = [node]
        elif isinstance(node, dict):
            texts = [k for k in node if isinstance(k, str)]
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
            continue
        else:
            continue
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return True
    return False
