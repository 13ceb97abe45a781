"""Event validation by request group version (upstream ``pkg/apis/core/validation/events.go``).

Every Event write passes the legacy rules (``legacyValidateEvent``): without an ``eventTime`` the
involved object's namespace must be the Event's (or, for a cluster-scoped object, the Event must be in
``default`` or no namespace); with one, the events.k8s.io-style fields are required
(``reportingController``, ``reportingInstance``, ``action``, ``reason``, with their length limits).
A write through events.k8s.io/v1 also passes the strict rules of ``ValidateEventCreate`` /
``ValidateEventUpdate``: ``eventTime`` required, ``type`` Normal or Warning, the deprecated core
fields unset, a ``series`` of at least 2 with its ``lastObservedTime``, and on update every field but
the series and metadata immutable. Field paths are the internal type's (``involvedObject``,
``message``, ``reportingController``) whichever group the request came through, as upstream's are.

The legacy rules read the typed core/v1 Event (:func:`legacy_errors`); the strict ones the stored
core/v1 wire form, which is what the events.k8s.io/v1 version's hook is given
(:class:`kbatch.api.versions.ServedVersion`).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Event
from kbatch.api.errors import FieldError
from kbatch.api.validation import is_dns1123_subdomain, is_qualified_name, validate_immutable

__all__ = ["events_v1_errors", "legacy_errors"]

REPORTING_INSTANCE_LIMIT = 128
ACTION_LIMIT = 128
REASON_LIMIT = 128
NOTE_LIMIT = 1024
_NS_MISMATCH = "does not match event.namespace"
_TYPES = ("Normal", "Warning")
# core/v1 wire names of the fields ValidateEventUpdate keeps immutable, in its order
_IMMUTABLE = ("involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count",
              "reason", "type", "eventTime", "action", "related", "reportingComponent", "reportingInstance")
# the internal field names upstream's paths use, where the core/v1 wire name differs
_PATHS = {"reportingComponent": "reportingController"}

Obj = dict[str, Any]


def legacy_errors(event: Event) -> list[FieldError]:
    """``legacyValidateEvent`` (every request version)."""
    namespace = event.metadata.namespace or ""
    involved = event.involved_object.namespace or ""
    errs: list[FieldError] = []
    if event.event_time is None:
        if (involved and namespace != involved) or (not involved and namespace not in ("", "default")):
            errs.append(FieldError.invalid("involvedObject.namespace", involved, _NS_MISMATCH))
    else:
        if not involved and namespace not in ("default", "kube-system"):
            errs.append(FieldError.invalid("involvedObject.namespace", involved, _NS_MISMATCH))
        errs += _reporting_errors(event)
    errs += [FieldError.invalid("namespace", namespace, msg) for msg in is_dns1123_subdomain(namespace)]
    return errs


def _reporting_errors(event: Event) -> list[FieldError]:
    controller, instance = event.reporting_component or "", event.reporting_instance or ""
    action, reason, message = event.action or "", event.reason or "", event.message or ""
    errs: list[FieldError] = []
    if not controller:
        errs.append(FieldError.required("reportingController"))
    errs += [FieldError.invalid("reportingController", controller, msg)
             for msg in is_qualified_name(controller)]
    if not instance:
        errs.append(FieldError.required("reportingInstance"))
    if len(instance) > REPORTING_INSTANCE_LIMIT:
        errs.append(FieldError.invalid("reportingInstance", "",
                                       f"can have at most {REPORTING_INSTANCE_LIMIT} characters"))
    if not action:
        errs.append(FieldError.required("action"))
    if len(action) > ACTION_LIMIT:
        errs.append(FieldError.invalid("action", "", f"can have at most {ACTION_LIMIT} characters"))
    if not reason:
        errs.append(FieldError.required("reason"))
    if len(reason) > REASON_LIMIT:
        errs.append(FieldError.invalid("reason", "", f"can have at most {REASON_LIMIT} characters"))
    if len(message) > NOTE_LIMIT:
        errs.append(FieldError.invalid("message", "", f"can have at most {NOTE_LIMIT} characters"))
    return errs


def _series_errors(new: Obj) -> list[FieldError]:
    series = new.get("series")
    if series is None:
        return []
    errs: list[FieldError] = []
    if (series.get("count") or 0) < 2:
        errs.append(FieldError.invalid("series.count", "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        errs.append(FieldError.required("series.lastObservedTime"))
    return errs


def _create_errors(new: Obj) -> list[FieldError]:
    errs = _series_errors(new)
    if not new.get("eventTime"):
        errs.append(FieldError.required("eventTime"))
    if new.get("type") not in _TYPES:
        errs.append(FieldError.invalid("type", "", f"has invalid value: {new.get('type') or ''}"))
    for field in ("firstTimestamp", "lastTimestamp"):
        if new.get(field):
            errs.append(FieldError.invalid(field, "", "needs to be unset"))
    if new.get("count"):
        errs.append(FieldError.invalid("count", "", "needs to be unset"))
    source = new.get("source") or {}
    if source.get("component") or source.get("host"):
        errs.append(FieldError.invalid("source", "", "needs to be unset"))
    return errs


def _update_errors(new: Obj, old: Obj) -> list[FieldError]:
    errs = _series_errors(new) if new.get("series") != old.get("series") else []
    for field in _IMMUTABLE:
        errs += validate_immutable(new.get(field) or None, old.get(field) or None, _PATHS.get(field, field))
    return errs


def events_v1_errors(new: Obj, old: Obj | None) -> list[FieldError]:
    """``ValidateEventCreate``/``ValidateEventUpdate`` for an events.k8s.io/v1 request, on the stored
    (core/v1) form: the legacy rules, then the strict ones."""
    errs = legacy_errors(Event.model_validate(new))
    return errs + (_create_errors(new) if old is None else _update_errors(new, old))
