"""Which checks apply to a parsed value, and running them: schema first, then semantic rules."""

from __future__ import annotations

from ..document import CONTAINER_KEYS, EXTRA_CONTAINER_KEYS, INFO_KEYS
from ..playbook.log import find_playbooks, log_kind, log_of
from . import container_rules, rules
from .playbooks import check_playbooks
from .schemas import TooMany, schema_errors

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from .model import Issue, Parts

SCHEMAS = {
    ("vContextInfo", "0.4"): "vcontext-core",
    ("vBRIEFInfo", "0.4"): "vcontext-core",
    ("vBRIEFInfo", "0.5"): "vbrief-0.5",
    ("vAgendaInfo", "0.2"): "vagenda-ace",
    ("vAgendaInfo", "0.3"): "vagenda-ace",
}
"""The schema for each (root key, version); other versions are checked by the semantic rules."""

NOT_A_DOCUMENT = (
    "no vContextInfo, vBRIEFInfo or vAgendaInfo and no todoList, plan or playbook object at the top"
)
"""What a value lacks to be a vContext document (``is_document``), as reports say it."""

FAMILY_NAMES = {"vContextInfo": "vContext", "vBRIEFInfo": "vBRIEF", "vAgendaInfo": "vAgenda"}


def is_document(data: Any) -> bool:
    """Whether a parsed JSON/TRON value is meant as a vContext-family document.

    It is when it is an object holding, at the top, one of the info keys (whatever
    their value) or a container object (``todoList``, ``plan``, ``playbook``,
    ``vSpec``); an ACE patch (``operations`` array, seed 002) counts too. Anything
    else (a config, a package manifest, an array) is not a vContext document.
    """
    if not isinstance(data, dict):
        return False
    if any(k in data for k in INFO_KEYS) or isinstance(data.get("operations"), list):
        return True
    return any(isinstance(data.get(k), dict) for k in CONTAINER_KEYS + EXTRA_CONTAINER_KEYS)


def check_document(data: Any, *, text: str | None = None) -> tuple[list[Issue], list[str]]:
    """Findings (unlocated) and the checks that were skipped, for one parsed document
    (``text``: what it was parsed from, if known: see ``semantic_issues``)."""
    if not is_document(data):
        return _not_vcontext(data), []
    key = next((k for k in INFO_KEYS if k in data), None)
    if key is None and isinstance(data.get("operations"), list):
        return list(schema_issues("vagenda-ace#/$defs/AcePatch", data)), []
    info = data.get(key) if key else None
    version = info.get("version") if isinstance(info, dict) else None
    issues: list[Issue] = list(rules.check_version(key, info))
    skipped: list[str] = []
    if key in (None, "vContextInfo"):  # one version exists: every document gets its checks
        schema: str | None = "vcontext-core"
    else:
        schema = SCHEMAS.get((key, version)) if isinstance(version, str) else None
    if schema is not None:
        found = _old_playbooks(data, list(schema_issues(schema, data)))
        issues.extend(_beside_version(found) if issues else found)
    else:
        shown = f"{FAMILY_NAMES[key or 'vContextInfo']} {_shown_version(version)}"
        skipped.append(f"schema: no bundled schema for {shown}; only the semantic rules ran")
    if key == "vAgendaInfo" and schema is not None:
        skipped.append("core v0.4 item schema: vAgenda predates it (ACE playbook checked)")
    issues.extend(semantic_issues(data, with_malformed=schema is None, text=text))
    return issues, skipped


def _shown_version(version: Any) -> str:
    return version if isinstance(version, str) else "(no version)"


def _beside_version(issues: list[Issue]) -> list[Issue]:
    """Schema findings without those the ``version`` finding already says."""
    said = {("vContextInfo",), ("vContextInfo", "version")}
    return [i for i in issues if i[1] not in said]


def semantic_issues(
    data: dict[str, Any], *, with_malformed: bool, text: str | None = None
) -> Iterator[Issue]:
    """Every semantic rule over a vContext-family document; ``text``, the text it was
    parsed from (if known), spares the walks of rules whose words it does not hold."""
    yield from rules.check_container(data)
    for name in rules.containers(data):
        container = data[name]
        if isinstance(container, dict):
            yield from _container_issues(container, (name,))
    plan = data.get("plan")
    if isinstance(plan, dict) and _core_spec(data) and rules.containers(data) == ["plan"]:
        yield from container_rules.check_proposal(plan, ("plan",))
    yield from check_playbooks(data, with_malformed=with_malformed)
    yield from rules.check_datetimes(data)
    yield from rules.check_markers(data, text=text)
    yield from rules.check_conflicts(data, text=text)


def _core_spec(data: dict[str, Any]) -> bool:
    """Whether the document follows vContext 0.4 (a vContext document of any version is
    checked as one; vBRIEF 0.4 is the same spec renamed): its Plan requires a proposal."""
    if "vContextInfo" in data or not any(k in data for k in INFO_KEYS):
        return True
    info = data.get("vBRIEFInfo")
    return isinstance(info, dict) and info.get("version") == "0.4"


def _container_issues(container: dict[str, Any], where: Parts) -> Iterator[Issue]:
    items = list(rules.walk_items(container, where))  # walked once for the three (issue 28)
    yield from rules.check_unique_ids(container, where, items)
    yield from container_rules.check_dependencies(container, where, items)
    yield from container_rules.check_changelog(container, where)
    yield from container_rules.check_fork(container, where)
    yield from container_rules.check_narratives(container, where)
    for parts, item in items:
        nested = item.get("todoList")  # a PlanItem's own todo list is a container of its own
        if isinstance(nested, dict):
            yield from _container_issues(nested, (*parts, "todoList"))
    playbook = container.get("playbook")
    if isinstance(playbook, dict):
        yield from rules.check_unique_ids(playbook, (*where, "playbook"))


def _old_playbooks(data: dict[str, Any], issues: list[Issue]) -> list[Issue]:
    """One finding for a playbook log that is not an event log at all, not one per item."""
    for where, playbook in find_playbooks(data):
        key, log = log_of(playbook)
        form = log_kind(log) if log else "events"
        if form == "events":
            continue
        at = (*where, key)
        before = len(issues)
        issues = [i for i in issues if not _missing_event_fields(i, at)]
        if len(issues) == before:
            continue  # a form this schema accepts (ACE entries in a vAgenda document)
        issues.append(("schema", at, _FORMS[form]))
    return issues


_FORMS = {
    "items": (
        "playbook items are in the pre-0.4 form (no eventId, targetId, operation, "
        "createdAt); rewrite each as an append event of the event log"
    ),
    "ace": (
        "playbook entries are in the ACE form (seed 002, vAgenda documents); a v0.4 "
        "playbook is an event log: write each entry as an append event"
    ),
}


def _missing_event_fields(issue: Issue, log: Parts) -> bool:
    rule, parts, message = issue
    in_log = len(parts) == len(log) + 1 and parts[: len(log)] == log
    missing = message.startswith("missing required field") and "'eventId'" in message
    return rule == "schema" and in_log and missing


def schema_issues(ref: str, data: Any, prefix: Parts = ()) -> Iterator[Issue]:
    """Schema errors of ``data`` as issues (rule ``schema``)."""
    for err in schema_errors(ref, data):
        # lazy: only a document with schema errors needs their wording
        from .messages import schema_message

        said = err.message if isinstance(err, TooMany) else schema_message(err)
        yield "schema", (*prefix, *err.absolute_path), said


def _not_vcontext(data: Any) -> list[Issue]:
    msg = f"not a vContext document ({NOT_A_DOCUMENT}); nothing to validate"
    return [("not-vcontext", (), msg)]
