"""The stdio server's own answers to lines the SDK would drop (issue 37, finding 5)."""

from __future__ import annotations

import json

import pytest

from git_vcontext.mcp_server.lines import SKIP, verdict

REQUEST = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}


def test_a_well_formed_request_notification_and_response_go_on_to_the_sdk() -> None:
    assert verdict(json.dumps(REQUEST)) is None
    assert verdict('{"jsonrpc": "2.0", "method": "notifications/initialized"}') is None
    assert verdict('{"jsonrpc": "2.0", "id": 1, "result": {}}') is None


@pytest.mark.parametrize(
    ("line", "code", "ident"),
    [
        ("this is not json", -32700, None),
        ('{"jsonrpc": "2.0", "id": 4', -32700, None),
        ("[1, 2]", -32600, None),
        ('{"jsonrpc": "2.0", "id": 8}', -32600, 8),
        ('{"jsonrpc": "2.0", "id": "x", "method": 5}', -32600, "x"),
        ('{"jsonrpc": "2.0", "id": 7, "method": "m", "params": {"t": "a \\ud800"}}', -32602, 7),
        ('{"jsonrpc": "2.0", "id": 9, "method": "m", "params": {"\\udfff": 1}}', -32602, 9),
    ],
)
def test_a_line_no_message_can_be_made_of_is_answered(line: str, code: int, ident: object) -> None:
    answer = verdict(line)
    assert answer is not None
    assert answer is not SKIP
    assert answer["error"]["code"] == code
    assert answer["id"] == ident
    json.dumps(answer)  # writable as it is


def test_blank_lines_and_notifications_with_lone_surrogates_get_no_answer() -> None:
    assert verdict("   ") is SKIP
    assert verdict('{"jsonrpc": "2.0", "method": "n", "params": {"t": "\\ud800"}}') is SKIP
