"""What vContext documents mean: roots, containers, identities, sets, logs and special fields."""

from __future__ import annotations

from .keys import IDENTITY_KEYS as IDENTITY_KEYS
from .keys import JSONL_KEYS as JSONL_KEYS
from .keys import KeyChoice as KeyChoice
from .keys import Repeat as Repeat
from .keys import element_id as element_id
from .keys import identity_key as identity_key
from .keys import key_choice as key_choice
from .record import record
from .values import JsonValue

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any, Literal

    Family = Literal["vcontext", "vbrief", "vagenda"]

# Roots and containers ------------------------------------------------------

INFO_KEYS = ("vContextInfo", "vBRIEFInfo", "vAgendaInfo")
"""Root keys that make an object a vContext-family document (current name first)."""

FAMILY_OF_INFO: dict[str, Family] = {
    "vContextInfo": "vcontext",
    "vBRIEFInfo": "vbrief",
    "vAgendaInfo": "vagenda",
}

CONTAINER_KEYS = ("todoList", "plan", "playbook")
"""Core containers of v0.4 (exactly one per conformant document)."""

EXTRA_CONTAINER_KEYS = ("vSpec",)
"""Containers used by later vBRIEF drafts found in the corpus (read, not validated as core)."""

ITEM_ARRAY_KEYS = ("items", "entries", "subItems", "phases", "subPhases")
"""Arrays that hold the items of a container (current and older spellings)."""


@record
class DocumentInfo:
    """What kind of document a parsed value is."""

    info_key: str | None  # "vContextInfo" | "vBRIEFInfo" | "vAgendaInfo" | None
    family: Family | None
    version: str | None
    containers: tuple[str, ...]

    @property
    def is_vcontext(self) -> bool:
        """A document of the vContext family (any of the three root names)."""
        return self.info_key is not None

    @property
    def container(self) -> str | None:
        """The container key when there is exactly one, else None."""
        return self.containers[0] if len(self.containers) == 1 else None


def describe(data: JsonValue) -> DocumentInfo:
    """Root detection: info object, family, version and the containers present."""
    if not isinstance(data, dict):
        return DocumentInfo(None, None, None, ())
    info_key = next((k for k in INFO_KEYS if isinstance(data.get(k), dict)), None)
    version = None
    if info_key is not None:
        raw = data[info_key].get("version")
        version = raw if isinstance(raw, str) else None
    keys = CONTAINER_KEYS + EXTRA_CONTAINER_KEYS
    containers = tuple(k for k in keys if isinstance(data.get(k), dict))
    family = FAMILY_OF_INFO.get(info_key) if info_key else None
    return DocumentInfo(info_key, family, version, containers)


def is_vcontext(data: JsonValue) -> bool:
    """Whether a value is a vContext-family document."""
    return describe(data).is_vcontext


# Field knowledge -------------------------------------------------------------

SET_LIKE_FIELDS = frozenset(
    {
        "tags",
        "dependencies",
        "evidence",
        "supersedes",
        "reviewers",
        "relatedComments",
        "labels",
        "byDay",
    }
)
"""String arrays with set semantics (M5); ``vContextInfo.metadata.extensions`` too."""

STEP_SET_FIELDS = frozenset({"needs"})
"""Set-like fields of the elements of a ``steps`` array (VerMAS templates: M5)."""

LATER_WINS_TIMESTAMPS = frozenset(
    {"updated", "updatedAt", "lastUpdated", "updated_at", "completed_at"}
)
EARLIER_WINS_TIMESTAMPS = frozenset({"created", "createdAt", "created_at", "started_at"})
"""M9, and VerMAS process steps: ``started_at`` keeps the earlier, ``completed_at`` the later."""
COUNTER_FIELDS = frozenset({"helpfulCount", "harmfulCount"})
STATUS_FIELD = "status"
LOCK_FIELD = "lockedBy"
FORK_FIELD = "fork"
_FORK_BYTES = FORK_FIELD.encode()


def may_spell(raw: bytes, word: bytes) -> bool:
    """Whether a key or a string of a document may read ``word``: its text holds the word's
    letters, or an escape (a backslash: JSON's and TRON's ``\\u0066ork``, TOML's in a
    quoted key) that may spell it. Every format is read as UTF-8 (``codecs.text.decode``),
    where a word's bytes are its letters: without either, no key or string is ``word`` and
    nothing needs parsing. The one byte pre-test before a rule that looks for a word."""
    return word in raw or b"\\" in raw


def may_hold_fork(raw: bytes) -> bool:
    """Whether a document may hold a fork block (``FORK_FIELD``: ``may_spell``), the
    pre-test before every fork rule (guard, check, validate, sync, status)."""
    return may_spell(raw, _FORK_BYTES)


SEQUENCE_FIELD = "sequence"
CHANGELOG_FIELD = "changeLog"
METRICS_FIELD = "metrics"
PLAYBOOK_KEY = "playbook"
PLAYBOOK_LOG_KEYS = ("items", "entries")
EVENT_ID = "eventId"
JSONL_EVENT_ID = "event_id"

DATETIME_FIELDS = frozenset(
    {
        "created",
        "updated",
        "completed",
        "dueDate",
        "startDate",
        "endDate",
        "createdAt",
        "updatedAt",
        "lastUpdated",
        "forkedAt",
        "mergedAt",
        "acquiredAt",
        "expiresAt",
        "resolvedAt",
        "timestamp",
    }
)
"""Fields the spec types as RFC 3339 datetimes with an explicit offset."""

ACE_STATUS_PRECEDENCE = {"active": 0, "deprecated": 1, "quarantined": 1}
"""ACE entry status: a deprecation or quarantine wins over ``active`` (M13)."""

STATUS_BOUND_PREFIXES = (
    "completed",
    "cancelled",
    "canceled",
    "blocked",
    "deprecated",
    "quarantined",
    "archived",
    "approved",
    "rejected",
    "resolved",
    "failed",
    "finished",
    "started",
    "closed",
)
"""Field names tied to a status value (``completed``, ``completedAt``, ``cancelledAt``,
``blockedReason``, ``deprecatedReason`` …): set or removed with a status change (M13)."""

STATUS_BOUND_FIELDS = frozenset({"percentComplete", "completed_at", "started_at"})


def is_status_bound(name: str) -> bool:
    """Whether a field belongs to a status value (M13: chosen with the status)."""
    if name == STATUS_FIELD or not name:
        return False
    return name in STATUS_BOUND_FIELDS or name.lower().startswith(STATUS_BOUND_PREFIXES)


Path = tuple[str | int, ...]


def is_set_like(path: Path, arrays: Iterable[Sequence[Any] | None]) -> bool:
    """Whether the arrays at ``path`` are string sets (M5)."""
    if not path or not isinstance(path[-1], str):
        return False
    named = path[-1] in SET_LIKE_FIELDS or _is_extensions(path) or _is_step_set(path)
    if not named:
        return False
    lists = [a for a in arrays if a is not None]
    return all(isinstance(a, list) and all(isinstance(x, str) for x in a) for a in lists)


def _is_extensions(path: Path) -> bool:
    return len(path) >= 3 and path[-3] in INFO_KEYS and path[-2:] == ("metadata", "extensions")


def _is_step_set(path: Path) -> bool:
    """``steps[…].needs``: a step's prerequisites (VerMAS templates)."""
    return len(path) >= 3 and path[-1] in STEP_SET_FIELDS and path[-3] == "steps"


def is_playbook_log(path: Path) -> bool:
    """``playbook.items`` / ``playbook.entries`` at any depth (root or embedded)."""
    return len(path) >= 2 and path[-1] in PLAYBOOK_LOG_KEYS and path[-2] == PLAYBOOK_KEY


def is_event_array(arrays: Iterable[Sequence[Any] | None]) -> bool:
    """Arrays whose elements are playbook events (objects carrying ``eventId``)."""
    lists = [a for a in arrays if a]
    if not lists:
        return False
    return all(isinstance(e, dict) and EVENT_ID in e for a in lists for e in a)


def is_changelog(path: Path) -> bool:
    """A container's ``changeLog`` (Extension 10), append-only (M6)."""
    return bool(path) and path[-1] == CHANGELOG_FIELD


def is_sequence_field(path: Path) -> bool:
    """``sequence`` anywhere, or ``playbook.version`` (both follow M8)."""
    if not path:
        return False
    last = path[-1]
    if last == SEQUENCE_FIELD:
        return True
    return last == "version" and len(path) >= 2 and path[-2] == PLAYBOOK_KEY


BOOKKEEPING_FIELDS = frozenset({"lastModifiedBy", "metrics"})


def is_bookkeeping(path: Path) -> bool:
    """Fields a write stamps on the side (``updated``, ``lastModifiedBy``, ``sequence``, the
    ``changeLog``, playbook ``metrics``): both sides changing them is no concurrent edit of
    a value (what a replay's M8 ``merge`` entry is for)."""
    if not path:
        return False
    last = path[-1]
    return (
        last in BOOKKEEPING_FIELDS
        or last in LATER_WINS_TIMESTAMPS
        or last in EARLIER_WINS_TIMESTAMPS
        or last == CHANGELOG_FIELD
        or is_sequence_field(path)
    )


def is_metrics(path: Path) -> bool:
    """``playbook.metrics``: derived data, recomputed after a merge (M10)."""
    return len(path) >= 2 and path[-1] == METRICS_FIELD and path[-2] == PLAYBOOK_KEY


def anchored_path(
    data: JsonValue, parts: Sequence[str | int], keys: dict[int, str | None] | None = None
) -> str:
    """A readable path that names array elements by identity: ``todoList.items[t2].status``.

    ``keys`` caches each array's identity key (by ``id()`` of the array) when many
    paths into the same data are named, e.g. every finding in a large log.
    """
    out: list[str] = []
    node: Any = data
    for part in parts:
        if isinstance(node, list) and isinstance(part, int):
            label = _element_label(node, part, keys)
            out.append(f"[{label}]")
            node = node[part] if 0 <= part < len(node) else None
        else:
            key = str(part)
            out.append(("." if out else "") + (key if _plain_key(key) else repr(key)))
            node = node.get(part) if isinstance(node, dict) else None
    return "".join(out) or "(root)"


def _element_label(array: list[Any], index: int, keys: dict[int, str | None] | None) -> str:
    if 0 <= index < len(array):
        if keys is None:
            key = identity_key([array])
        elif id(array) in keys:
            key = keys[id(array)]
        else:
            key = keys[id(array)] = identity_key([array])
        ident = element_id(array[index], key) if key else None
        if ident is not None:
            return str(ident)
    return str(index)


def _plain_key(key: str) -> bool:
    return key.replace("_", "a").replace("-", "a").isalnum()


# Which files are vContext files ---------------------------------------------

FILE_PATTERNS = (
    "*.vcontext.json",
    "*.vcontext.tron",
    ".vcontext/*.json",
    ".vcontext/*.tron",
    "*.vbrief.json",
    "*.vbrief.tron",
    ".work/*.jsonl",
    ".work/templates/*.toml",
    ".work/processes/*.json",
    ".work/evidence/*.json",
)
"""Names of vContext files, as ``install`` writes them into ``.gitattributes`` (PRODUCT.md);
``.vcontext/*.tron`` too: the MCP server makes its documents there in TRON under
``VCONTEXT_FORMAT=tron`` (or ``vcontext.format``), and the driver merges both encodings."""

INFO_MARKERS = tuple(key.encode() for key in INFO_KEYS)


CHECKED_PATTERNS = (".work/.assignment-*",)
"""Files validation checks beside install's patterns (``validate``, the pre-push hook, the
guard; PRODUCT.md "The remote guards itself"): VerMAS assignment files, plain text that
git's own line merge handles, so install routes them to no driver."""


def matches_file_patterns(path: str) -> bool:
    """Whether a repo path ('/'-separated) matches FILE_PATTERNS the way git attributes do.

    A pattern without '/' matches the file name at any depth; one with '/' matches
    the whole path from the top, and '*' does not cross '/'.
    """
    return _matches(path, FILE_PATTERNS)


def checked_file(path: str) -> bool:
    """Whether validation checks a repo path even when no attribute routes it: install's
    patterns and ``CHECKED_PATTERNS``."""
    return _matches(path, FILE_PATTERNS) or _matches(path, CHECKED_PATTERNS)


def _matches(path: str, patterns: tuple[str, ...]) -> bool:
    name = path.rsplit("/", 1)[-1]
    for pattern in patterns:
        if "/" not in pattern:
            if _glob(name, pattern):
                return True
        elif path.count("/") == pattern.count("/") and _glob(path, pattern):
            return True
    return False


def _glob(text: str, pattern: str) -> bool:
    """``fnmatchcase(text, pattern)``; a pattern with one ``*`` and no other wildcard (all of
    ours) without fnmatch, whose ``re`` costs every guard run a few milliseconds."""
    before, star, after = pattern.partition("*")
    if star and not any(c in after for c in "*?[") and not any(c in before for c in "?["):
        return (
            len(text) >= len(before) + len(after)
            and text.startswith(before)
            and text.endswith(after)
        )
    # lazy: fnmatch only for a pattern of another shape
    from fnmatch import fnmatchcase

    return fnmatchcase(text, pattern)


def looks_like_vcontext(raw: bytes) -> bool:
    """Cheap content sniffing: an info key near the start of a JSON/TRON/JSONL text."""
    head = raw[:65536]
    return any(marker in head for marker in INFO_MARKERS)
