"""The integration push removes our own request only if its look still holds it
(PRODUCT.md: a rejected integration push is retried from the remote's new state, never
sent again unchanged).

Found by following the README (3 agents x 3 rounds on a path remote guarded by
``install --server --guard``): another holder had merged and removed the request, the
removal expecting it was refused as stale at every retry ("still rejected after 10
attempts", exit 1)."""

from __future__ import annotations

from types import SimpleNamespace

from git_vcontext.remote import refs as leases
from git_vcontext.remote.integrate import BaseRound
from git_vcontext.remote.view import Snapshot

PUBLISHED = "1" * 40


def _round() -> BaseRound:
    held = BaseRound.__new__(BaseRound)
    held.base = "main"
    held.branches = {"alice": "agents/alice"}
    held.published = {"alice": PUBLISHED}  # type: ignore[dict-item]
    held.syncer = SimpleNamespace(tip=lambda _b: None)  # type: ignore[assignment]
    return held


def _removals(requests: dict[str, str]) -> list[str]:
    snap = Snapshot("2" * 40, {}, None, None, False, requests, True)  # type: ignore[arg-type]
    results = {"alice": SimpleNamespace(ok=True)}
    updates, known = _round()._branch_updates(snap, results)  # type: ignore[arg-type]
    request = leases.request_ref("main", "agents/alice")
    assert all(u.dst != request or known[request] == PUBLISHED for u in updates)
    return [u.dst for u in updates if u.src is None]


def test_our_request_merged_and_removed_by_another_holder_is_not_removed_again() -> None:
    assert _removals({}) == []


def test_our_request_still_there_is_removed_expecting_what_we_published() -> None:
    assert _removals({"agents/alice": PUBLISHED}) == [leases.request_ref("main", "agents/alice")]
