"""Which statuses a document allows, by container and version (seed 000; vBRIEF 0.5 adds one)."""

from __future__ import annotations

from typing import Any

from ..document import describe
from ..errors import Refused

ITEM_STATUSES = ("pending", "inProgress", "completed", "blocked", "cancelled")
PLAN_STATUSES = ("draft", "proposed", "approved", "inProgress", "completed", "cancelled")
_V05_EXTRA = ("running",)


def allowed(data: Any, what: str) -> tuple[str, ...]:
    """The statuses ``what`` (``item`` or ``plan``) may have in this document."""
    base = PLAN_STATUSES if what == "plan" else ITEM_STATUSES
    info = describe(data)
    if info.family == "vbrief" and info.version == "0.5":
        return (*base, *_V05_EXTRA)
    return base


def checked(data: Any, what: str, status: Any) -> str:
    """``status`` when the document allows it for ``what``, else a refusal naming the allowed."""
    options = allowed(data, what)
    if status not in options:
        raise Refused(
            "bad-status",
            f"status {status!r} is not allowed for a {_noun(what)}; allowed: {', '.join(options)}",
        )
    return str(status)


def _noun(what: str) -> str:
    return {"item": "todo item", "plan": "plan", "planItem": "plan item"}.get(what, what)
