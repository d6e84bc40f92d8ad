"""Telling clients a document changed on disk (anyone's change: a tool, a checkout, a merge).

A watcher polls the served files (a ``stat`` each, a walk only when a folder changed)
and turns each change into ``resources/updated`` for every URI that shows that
document, plus ``resources/list_changed`` when documents came or went. Clients on
the 2026 protocol get them on their ``subscriptions/listen`` streams (the SDK's
bus); clients of the 2025 handshake protocol subscribed with ``resources/subscribe``
and get them on their connection.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any

import anyio
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated

from .catalog import SEGMENT, Changes
from .service import Service
from .uris import VIEW_KINDS

POLL_SECONDS = 0.25
log = logging.getLogger("git_vcontext.mcp")


def uris_of(changes: Changes, svc: Service) -> set[str]:
    """Every URI whose content may differ after ``changes``."""
    out: set[str] = set()
    for entry in changes.changed:
        seg = SEGMENT[entry.kind]
        out |= {entry.uri, f"vbrief://{seg}", f"vbrief://{seg}/current"}
        if entry.kind == "playbook":
            out.add("vbrief://playbook")
            out |= {f"vbrief://playbook/{name}" for name in VIEW_KINDS}
    if changes.list_changed:
        out |= {f"vbrief://{seg}" for seg in SEGMENT.values()}
        out |= {f"vbrief://{seg}/current" for seg in SEGMENT.values()}
        out.add("vbrief://playbook")
    return out


class Subscribers:
    """Handshake-era connections and the URIs each subscribed to."""

    def __init__(self) -> None:
        self._by_connection: dict[int, tuple[Any, set[str]]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _key(session: Any) -> int:
        # The SDK hands each request its own session proxy; the connection behind it is
        # what identifies a client across requests (no public accessor in mcp 2.3).
        return id(getattr(session, "_connection", session))

    def add(self, session: Any, uri: str) -> None:
        with self._lock:
            _, uris = self._by_connection.setdefault(self._key(session), (session, set()))
            uris.add(uri)

    def remove(self, session: Any, uri: str) -> None:
        with self._lock:
            found = self._by_connection.get(self._key(session))
            if found is not None:
                found[1].discard(uri)

    def targets(self, uris: set[str]) -> list[tuple[int, Any, list[str]]]:
        with self._lock:
            return [
                (key, session, sorted(mine & uris))
                for key, (session, mine) in self._by_connection.items()
            ]

    def drop(self, key: int) -> None:
        with self._lock:
            self._by_connection.pop(key, None)


class Notifier:
    """Sends change notifications on both protocol eras."""

    def __init__(self, bus: InMemorySubscriptionBus) -> None:
        self.bus = bus
        self.subscribers = Subscribers()

    async def publish(self, uris: Iterable[str], list_changed: bool) -> None:
        uris = set(uris)
        for uri in sorted(uris):
            await self.bus.publish(ResourceUpdated(uri=uri))
        if list_changed:
            await self.bus.publish(ResourcesListChanged())
        for key, session, mine in self.subscribers.targets(uris):
            try:
                for uri in mine:
                    await session.send_resource_updated(uri)
                if list_changed:
                    await session.send_resource_list_changed()
            except Exception:  # a client that went away: forget it
                self.subscribers.drop(key)


async def watch(svc: Service, notifier: Notifier, interval: float = POLL_SECONDS) -> None:
    """Poll the documents forever; the first look only learns what is there. A change made
    through this server's own tools (another client's write, a sync) is a change too."""
    await anyio.to_thread.run_sync(svc.catalog.changes)
    while True:
        await anyio.sleep(interval)
        try:
            changes = await anyio.to_thread.run_sync(svc.catalog.changes)
        except Exception as exc:  # never let the watcher die: say it once per failure
            log.warning("git-vcontext mcp: watching the documents failed: %s", exc)
            continue
        if changes:
            await notifier.publish(uris_of(changes, svc), changes.list_changed)
