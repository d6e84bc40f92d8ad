"""The playbook view: causal order, heads, fold, anomalies; recomputed metrics (pure core).

    >>> from git_vcontext.playbook import playbook_view
    >>> view = playbook_view({"playbook": {"items": [
    ...     {"eventId": "e1", "targetId": "t", "operation": "append", "kind": "rule",
    ...      "text": "Run migrations in staging first", "createdAt": "2025-01-01T00:00:00Z"},
    ...     {"eventId": "e2", "targetId": "t", "operation": "update", "prevEventId": "e1",
    ...      "delta": {"helpfulCount": 1}, "createdAt": "2025-01-02T00:00:00Z"}]}})
    >>> entry = view.entry("t")
    >>> entry.status, entry.helpful_count, entry.heads
    ('active', 1, ('e2',))

The modules load on first use: the merge engine only needs ``recompute_metrics`` (and a
merge of a todo list, whose ``items`` might be a log, ``log.log_of``).
"""

from __future__ import annotations

from ..errors import NoPlaybookError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .analyse import ANOMALY_KINDS
    from .log import find_playbooks
    from .metrics import recompute_metrics
    from .model import Anomaly, Entry, FieldConflict, PlaybookView
    from .view import playbook_view

_LAZY = {
    "ANOMALY_KINDS": "analyse",
    "find_playbooks": "log",
    "recompute_metrics": "metrics",
    "Anomaly": "model",
    "Entry": "model",
    "FieldConflict": "model",
    "PlaybookView": "model",
    "playbook_view": "view",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'git_vcontext.playbook' has no attribute {name!r}")
    # lazy: importlib (with warnings) only when a name is first asked for
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = [
    "ANOMALY_KINDS",
    "Anomaly",
    "Entry",
    "FieldConflict",
    "NoPlaybookError",
    "PlaybookView",
    "find_playbooks",
    "playbook_view",
    "recompute_metrics",
]
