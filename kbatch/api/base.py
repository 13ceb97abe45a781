"""The one pydantic base every kbatch model inherits, the wire-format time types, and ApiInfo.

Wire shape (https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md):
camelCase names, ``apiVersion``/``kind`` on top-level objects, RFC 3339 times, unknown fields
rejected. pydantic's configuration stops at model boundaries, so *every* nested model must inherit
:class:`KubeModel` itself (pydantic docs, "Configuration", nested models).

Field names that ``to_camel`` spells differently from Kubernetes (``podIP``, ``hostIPs``,
``clusterIP``, ``continue``) carry an explicit ``Field(alias=...)``.

Absent vs. empty: optional fields default to ``None`` and :meth:`KubeModel.to_dict` drops ``None``,
so an absent field stays absent and an explicit ``[]`` or ``{}`` survives a round trip.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer
from pydantic.alias_generators import to_camel

__all__ = [
    "ApiInfo",
    "KubeModel",
    "MicroTime",
    "Time",
    "format_micro_time",
    "format_time",
    "parse_time",
]


def parse_time(value: Any) -> datetime:
    """Parse an RFC 3339 time (``2024-01-02T03:04:05Z``) to an aware UTC datetime."""
    if isinstance(value, str):
        return _parse_time_text(value)
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    raise ValueError(f"expected an RFC 3339 time string, got {type(value).__name__}")


# Decoding calls parse_time for every time field of every object (a pod with status has ~7), and a
# simulation writes the same few instants over and over: memoise (bounded; datetimes are immutable).
@functools.lru_cache(maxsize=4096)
def _parse_time_text(value: str) -> datetime:
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        raise ValueError(f"time {value!r} has no time zone; RFC 3339 requires one")
    return parsed.astimezone(UTC)


def format_time(value: datetime) -> str:
    """metav1.Time wire format: second precision, UTC, ``Z`` suffix."""
    if value.tzinfo is UTC:
        return _format_utc_time(value)
    return _format_time(value)


@functools.lru_cache(maxsize=4096)
def _format_utc_time(value: datetime) -> str:  # memoised like parsing (keyed by UTC instants only)
    return _format_time(value)


def _format_time(value: datetime) -> str:
    utc = value.astimezone(UTC)
    if utc.year < 1000:  # strftime does not pad the year; keep its output for these
        return utc.strftime("%Y-%m-%dT%H:%M:%SZ")
    # isoformat is several times faster than strftime and prints the same digits
    return utc.replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def format_micro_time(value: datetime) -> str:
    """metav1.MicroTime wire format: microsecond precision, UTC, ``Z`` suffix."""
    utc = value.astimezone(UTC)
    if utc.year < 1000:
        return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return utc.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


# metav1.Time: serialized with second precision (upstream truncates sub-second parts).
Time = Annotated[datetime, BeforeValidator(parse_time), PlainSerializer(format_time, return_type=str)]
# metav1.MicroTime: microsecond precision (Events' eventTime, Leases).
MicroTime = Annotated[
    datetime, BeforeValidator(parse_time), PlainSerializer(format_micro_time, return_type=str)
]


class KubeModel(BaseModel):
    """Base of every kbatch model: camelCase on the wire, snake_case in Python, strict about extras."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="forbid",
        arbitrary_types_allowed=False,
        use_enum_values=True,
    )

    def to_dict(self) -> dict[str, Any]:
        """The object as kubectl would print it with ``-o json`` (``None`` fields omitted)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    def to_json(self) -> bytes:
        """Compact JSON bytes (the store's encoding)."""
        return self.model_dump_json(by_alias=True, exclude_none=True).encode()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        return cls.model_validate(data)

    @classmethod
    def from_json(cls, data: bytes | str) -> Self:
        return cls.model_validate_json(data)

    def clone(self) -> Self:
        """A deep copy that shares nothing mutable with ``self``."""
        return type(self).model_validate_json(self.model_dump_json(by_alias=True, exclude_none=True))


@dataclass(frozen=True, slots=True)
class ApiInfo:
    """What the API knows of a kind apart from its data: identity, REST name, scope."""

    group: str  # "" for the core group
    version: str
    kind: str
    plural: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    singular: str = ""
    categories: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ("status",)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """``jobs.batch`` / ``pods``: how upstream error messages name a resource."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def group_kind(self) -> str:
        """``Job.batch`` / ``Pod``: how upstream ``Invalid`` messages name a kind."""
        return f"{self.kind}.{self.group}" if self.group else self.kind
