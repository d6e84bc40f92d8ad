"""The time the tool writes into documents: SOURCE_DATE_EPOCH when set, for reproducible output."""

from __future__ import annotations

import time

from .oscalls import getenv


def now_rfc3339() -> str:
    """Current UTC time (or SOURCE_DATE_EPOCH) as ``YYYY-MM-DDTHH:MM:SSZ``."""
    epoch = (getenv("SOURCE_DATE_EPOCH") or "").strip()
    try:
        seconds = int(epoch) if epoch else int(time.time())
    except ValueError:
        seconds = int(time.time())
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
