"""Which checks apply to a parsed value, and running them: schema first, then semantic rules."""

from __future__ import annotations

from collections.abc import Iterator

from ..document import INFO_KEYS, describe
from . import container_rules, rules
from .playbooks import check_playbooks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Parts = tuple[str | int, ...]
    Issue = tuple[str, Parts, str]

SCHEMAS = {
    ("vContextInfo", "0.4"): "vcontext-core",
    ("vBRIEFInfo", "0.4"): "vcontext-core",
    ("vBRIEFInfo", "0.5"): "vbrief-0.5",
    ("vAgendaInfo", "0.2"): "vagenda-ace",
    ("vAgendaInfo", "0.3"): "vagenda-ace",
}
"""The schema for each (root key, version); other versions are checked by the semantic rules."""

FAMILY_NAMES = {"vContextInfo": "vContext", "vBRIEFInfo": "vBRIEF", "vAgendaInfo": "vAgenda"}


def check_document(data: Any) -> tuple[list[Issue], list[str]]:
    """Findings (unlocated) and the checks that were skipped, for one parsed document."""
    if not isinstance(data, dict) or not any(isinstance(data.get(k), dict) for k in INFO_KEYS):
        return _not_vcontext(data), []
    info = describe(data)
    key = info.info_key or ""
    issues: list[Issue] = []
    skipped: list[str] = []
    issues.extend(rules.check_version(key, info.version))
    schema = SCHEMAS.get((key, info.version or ""))
    if schema is not None:
        issues.extend(_old_playbooks(data, list(schema_issues(schema, data))))
    elif not any(rule == "version" for rule, _, _ in issues):
        shown = f"{FAMILY_NAMES[key]} {info.version or '(no version)'}"
        skipped.append(f"schema: no bundled schema for {shown}; only the semantic rules ran")
    if key == "vAgendaInfo" and schema is not None:
        skipped.append("core v0.4 item schema: vAgenda predates it (ACE playbook checked)")
    issues.extend(semantic_issues(data, with_malformed=schema is None))
    return issues, skipped


def semantic_issues(data: dict[str, Any], *, with_malformed: bool) -> Iterator[Issue]:
    """Every semantic rule over a vContext-family document."""
    yield from rules.check_container(data)
    for name in rules.containers(data):
        container = data[name]
        if isinstance(container, dict):
            yield from _container_issues(container, (name,))
    yield from check_playbooks(data, with_malformed=with_malformed)
    yield from rules.check_datetimes(data)
    yield from rules.check_markers(data)


def _container_issues(container: dict[str, Any], where: Parts) -> Iterator[Issue]:
    yield from rules.check_unique_ids(container, where)
    yield from container_rules.check_dependencies(container, where)
    yield from container_rules.check_changelog(container, where)
    yield from container_rules.check_fork(container, where)
    for parts, item in rules.walk_items(container, where):
        nested = item.get("todoList")  # a PlanItem's own todo list is a container of its own
        if isinstance(nested, dict):
            yield from _container_issues(nested, (*parts, "todoList"))
    playbook = container.get("playbook")
    if isinstance(playbook, dict):
        yield from rules.check_unique_ids(playbook, (*where, "playbook"))


def _old_playbooks(data: dict[str, Any], issues: list[Issue]) -> list[Issue]:
    """One finding for a playbook log that is not an event log at all, not one per item."""
    from ..playbook.log import find_playbooks, log_kind, log_of

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
    from .messages import schema_message
    from .schemas import schema_errors

    for err in schema_errors(ref, data):
        yield "schema", (*prefix, *err.absolute_path), schema_message(err)


def _not_vcontext(data: Any) -> list[Issue]:
    if isinstance(data, dict) and isinstance(data.get("operations"), list):
        return list(schema_issues("vagenda-ace#/$defs/AcePatch", data))  # an ACE patch file
    roots = ", ".join(INFO_KEYS)
    msg = f"not a vContext document (no {roots} object at the top); nothing to validate"
    return [("not-vcontext", (), msg)]
