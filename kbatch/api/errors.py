"""API errors: field errors for validation and the typed ``Status`` errors every layer raises.

Hierarchy (each carries a ``Status`` with the upstream reason and HTTP code; upstream:
k8s.io/apimachinery ``pkg/api/errors/errors.go`` and ``pkg/util/validation/field/errors.go``)::

    StatusError
    ├── BadRequest            400  BadRequest
    ├── Unauthorized          401  Unauthorized
    ├── Forbidden             403  Forbidden
    ├── NotFound              404  NotFound
    ├── MethodNotAllowed      405  MethodNotAllowed
    ├── NotAcceptable         406  NotAcceptable
    ├── AlreadyExists         409  AlreadyExists
    ├── Conflict              409  Conflict
    ├── Expired               410  Expired     (too old resourceVersion / continue token)
    ├── UnsupportedMediaType  415  UnsupportedMediaType
    ├── Invalid               422  Invalid     (details.causes = one per FieldError)
    ├── TooManyRequests       429  TooManyRequests
    ├── InternalError         500  InternalError
    └── Timeout               504  Timeout

A ``FieldError`` renders exactly as upstream's ``field.Error.Error()``:
``spec.parallelism: Invalid value: -1: must be greater than or equal to 0``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import Field

from kbatch.api.base import KubeModel, format_time
from kbatch.api.go_marshal import go_marshal
from kbatch.api.go_quote import go_quote
from kbatch.api.meta import ListMeta

__all__ = [
    "NAMESPACE_TERMINATING_CAUSE",
    "AlreadyExists",
    "BadRequest",
    "Conflict",
    "Expired",
    "FieldError",
    "FieldErrorType",
    "Forbidden",
    "InternalError",
    "Invalid",
    "Marshalled",
    "MethodNotAllowed",
    "NotAcceptable",
    "NotFound",
    "ServiceUnavailable",
    "Status",
    "StatusCause",
    "StatusDetails",
    "StatusError",
    "Timeout",
    "TooManyRequests",
    "Unauthorized",
    "UnsupportedMediaType",
    "has_status_cause",
]


class FieldErrorType(Enum):
    """field.ErrorType: (cause reason, message prefix)."""

    NOT_FOUND = ("FieldValueNotFound", "Not found")
    REQUIRED = ("FieldValueRequired", "Required value")
    DUPLICATE = ("FieldValueDuplicate", "Duplicate value")
    INVALID = ("FieldValueInvalid", "Invalid value")
    NOT_SUPPORTED = ("FieldValueNotSupported", "Unsupported value")
    FORBIDDEN = ("FieldValueForbidden", "Forbidden")
    TOO_LONG = ("FieldValueTooLong", "Too long")
    TOO_MANY = ("FieldValueTooMany", "Too many")
    INTERNAL = ("InternalError", "Internal error")

    @property
    def reason(self) -> str:
        return self.value[0]

    @property
    def label(self) -> str:
        return self.value[1]


_NO_VALUE = object()


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):  # metav1.Time.MarshalJSON: RFC 3339, whole seconds, UTC
        return format_time(value)
    to_dict = getattr(value, "to_dict", None)  # an API model: its wire form
    return to_dict() if callable(to_dict) else str(value)


class Marshalled(str):
    """A bad value given as the text ``json.Marshal`` writes for it: a Go struct, whose fields keep
    their declaration order (a dict's keys would be sorted)."""


def _render_value(value: Any) -> str:
    """A bad value as ``field.Error.ErrorBody`` renders it (k8s.io/apimachinery
    ``pkg/util/validation/field/errors.go``, 0.37): numbers and booleans bare, a string as Go's
    ``%q``, anything else as its ``json.Marshal`` (compact, keys sorted: ``["cpu","memory"]``,
    ``{"matchLabels":{"a":"b"}}``; a nil map or slice is ``null``; a time as ``metav1.Time``
    marshals, ``"2026-01-02T03:04:05Z"``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Marshalled):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, datetime):  # a metav1.Time has no case of its own: json.Marshal writes it
        return json.dumps(_plain(value))
    return go_marshal(value, default=_plain)


@dataclass(frozen=True, slots=True)
class FieldError:
    """One validation failure at a field path (``spec.template.spec.containers[0].name``)."""

    type: FieldErrorType
    field: str
    detail: str = ""
    bad_value: Any = _NO_VALUE

    def __str__(self) -> str:
        t = self.type
        bodyless = (FieldErrorType.REQUIRED, FieldErrorType.FORBIDDEN, FieldErrorType.TOO_LONG,
                    FieldErrorType.INTERNAL)
        if t in bodyless or self.bad_value is _NO_VALUE:
            body = t.label  # upstream omits the value for these types and for an omitted value
        else:
            body = f"{t.label}: {_render_value(self.bad_value)}"
        text = f"{self.field}: {body}" if self.field else body
        return f"{text}: {self.detail}" if self.detail else text

    # Constructors named as upstream's field.Required(), field.Invalid(), ...
    @classmethod
    def required(cls, path: str, detail: str = "") -> FieldError:
        return cls(FieldErrorType.REQUIRED, path, detail)

    @classmethod
    def invalid(cls, path: str, value: Any, detail: str = "") -> FieldError:
        return cls(FieldErrorType.INVALID, path, detail, value)

    @classmethod
    def forbidden(cls, path: str, detail: str = "") -> FieldError:
        return cls(FieldErrorType.FORBIDDEN, path, detail)

    @classmethod
    def not_supported(cls, path: str, value: Any, supported: list[str]) -> FieldError:
        # field.NotSupported quotes each with strconv.Quote, as ErrorBody quotes a string value
        detail = "supported values: " + ", ".join(go_quote(str(s)) for s in supported)
        return cls(FieldErrorType.NOT_SUPPORTED, path, detail, value)

    @classmethod
    def duplicate(cls, path: str, value: Any) -> FieldError:
        return cls(FieldErrorType.DUPLICATE, path, "", value)

    @classmethod
    def not_found(cls, path: str, value: Any) -> FieldError:
        return cls(FieldErrorType.NOT_FOUND, path, "", value)

    @classmethod
    def too_long(cls, path: str, max_length: int) -> FieldError:
        return cls(FieldErrorType.TOO_LONG, path, f"may not be more than {max_length} bytes")

    @classmethod
    def too_many(cls, path: str, actual: int, limit: int) -> FieldError:
        # apimachinery field.TooMany: "item" for a limit of one
        items = "item" if limit == 1 else "items"
        return cls(FieldErrorType.TOO_MANY, path, f"must have at most {limit} {items}", actual)


class StatusCause(KubeModel):
    reason: str | None = None
    message: str | None = None
    field: str | None = None


class StatusDetails(KubeModel):
    name: str | None = None
    group: str | None = None
    kind: str | None = None
    uid: str | None = None
    causes: list[StatusCause] | None = None
    retry_after_seconds: int | None = None


class Status(KubeModel):
    """The ``Status`` object (``kind: Status, apiVersion: v1``) returned for every failure."""

    api_version: str = "v1"
    kind: str = "Status"
    metadata: ListMeta = Field(default_factory=ListMeta)
    status: str | None = None  # "Success" | "Failure"
    message: str | None = None
    reason: str | None = None
    details: StatusDetails | None = None
    code: int | None = None


class StatusError(Exception):
    """An API failure carrying its Kubernetes ``Status``."""

    code: int = 500
    reason: str = "InternalError"

    def __init__(self, message: str, *, details: StatusDetails | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    @property
    def status(self) -> Status:
        return Status(status="Failure", message=self.message, reason=self.reason or None,  # "": omitted
                      details=self.details, code=self.code)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


def _details(group_resource: str, name: str, *, kind: str | None = None) -> StatusDetails:
    resource, _, group = group_resource.partition(".")
    return StatusDetails(name=name or None, group=group or None, kind=kind or resource)


NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating"  # core/v1 NamespaceTerminatingCause


def has_status_cause(err: StatusError, reason: str) -> bool:
    """Whether ``err``'s details carry a cause of type ``reason`` (apimachinery ``HasStatusCause``)."""
    causes = err.details.causes if err.details is not None else None
    return any(cause.reason == reason for cause in causes or ())


class BadRequest(StatusError):
    code, reason = 400, "BadRequest"


class Unauthorized(StatusError):
    code, reason = 401, "Unauthorized"


class Forbidden(StatusError):
    code, reason = 403, "Forbidden"


class NotFound(StatusError):
    code, reason = 404, "NotFound"

    @classmethod
    def of(cls, group_resource: str, name: str) -> NotFound:
        """``jobs.batch "pi" not found``"""
        return cls(f'{group_resource} "{name}" not found', details=_details(group_resource, name))


class MethodNotAllowed(StatusError):
    code, reason = 405, "MethodNotAllowed"


class NotAcceptable(StatusError):
    code, reason = 406, "NotAcceptable"


class AlreadyExists(StatusError):
    code, reason = 409, "AlreadyExists"

    @classmethod
    def of(cls, group_resource: str, name: str) -> AlreadyExists:
        """``jobs.batch "pi" already exists``"""
        return cls(f'{group_resource} "{name}" already exists',
                   details=_details(group_resource, name))


class Conflict(StatusError):
    code, reason = 409, "Conflict"

    @classmethod
    def of(cls, group_resource: str, name: str, why: str) -> Conflict:
        """``Operation cannot be fulfilled on jobs.batch "pi": <why>``"""
        return cls(f'Operation cannot be fulfilled on {group_resource} "{name}": {why}',
                   details=_details(group_resource, name))

    @classmethod
    def stale(cls, group_resource: str, name: str) -> Conflict:
        return cls.of(group_resource, name, "the object has been modified; please apply your "
                      "changes to the latest version and try again")


class Expired(StatusError):
    """410. ``continue_``: the Status's ``metadata.continue``, a token a client may list on with (the
    etcd3 store's answer to a compacted continue token, ``storage/etcd3/errors.go``)."""

    code, reason = 410, "Expired"

    def __init__(self, message: str, *, details: StatusDetails | None = None,
                 continue_: str | None = None) -> None:
        super().__init__(message, details=details)
        self.continue_ = continue_

    @property
    def status(self) -> Status:
        status = super().status
        if self.continue_:
            status.metadata = ListMeta(continue_=self.continue_)
        return status


class UnsupportedMediaType(StatusError):
    code, reason = 415, "UnsupportedMediaType"


class Invalid(StatusError):
    code, reason = 422, "Invalid"

    def __init__(self, message: str, *, details: StatusDetails | None = None,
                 errors: tuple[FieldError, ...] = ()) -> None:
        super().__init__(message, details=details)
        self.errors = errors

    @classmethod
    def of(cls, group_kind: str, name: str, errors: list[FieldError]) -> Invalid:
        """``Job.batch "pi" is invalid: [a: ..., b: ...]`` (no brackets for a single error)."""
        rendered = [str(e) for e in errors]
        body = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
        kind, _, group = group_kind.partition(".")
        causes = [StatusCause(reason=e.type.reason, message=str(e).partition(": ")[2] or str(e),
                              field=e.field or None) for e in errors]
        details = StatusDetails(name=name or None, group=group or None, kind=kind, causes=causes)
        return cls(f'{group_kind} "{name}" is invalid: {body}', details=details,
                   errors=tuple(errors))


class TooManyRequests(StatusError):
    code, reason = 429, "TooManyRequests"


class InternalError(StatusError):
    code, reason = 500, "InternalError"


class Timeout(StatusError):
    code, reason = 504, "Timeout"


class ServiceUnavailable(StatusError):
    """apimachinery ``NewServiceUnavailable``: the server cannot serve now (its storage is down)."""

    code, reason = 503, "ServiceUnavailable"
