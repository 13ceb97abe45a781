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
from typing import Annotated, Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler
from pydantic.alias_generators import to_camel
from pydantic_core import CoreSchema, core_schema

__all__ = [
    "ApiInfo",
    "KubeModel",
    "MicroTime",
    "SharedFieldsSet",
    "Time",
    "format_micro_time",
    "format_nano_time",
    "format_time",
    "parse_time",
    "private_fields_set",
    "share_fields_set",
    "time_fractions_read",
    "wire_validate",
]

_M = TypeVar("_M", bound=BaseModel)


def parse_time(value: Any) -> datetime:
    """Parse an RFC 3339 time (``2024-01-02T03:04:05Z``) to an aware UTC datetime."""
    if isinstance(value, str):
        parsed = _parse_time_text(value)
    elif isinstance(value, datetime):
        parsed = value if value.tzinfo else value.replace(tzinfo=UTC)
    else:
        raise ValueError(f"expected an RFC 3339 time string, got {type(value).__name__}")
    if parsed.microsecond:
        _FRACTIONS[0] += 1
    return parsed


# How many times with a sub-second part Python-mode validation has read (dicts: patches, request
# bodies; datetime values too). A metav1.Time keeps whole seconds on the wire, so the API server
# answers a write whose decoded request read one with its wire copy (apiserver.codec.whole_seconds);
# the counter costs a decode one test, where scanning each patch's text cost ~10 µs a patch.
_FRACTIONS = [0]


def time_fractions_read() -> int:
    """How many times with a fractional second Python-mode validation has parsed so far."""
    return _FRACTIONS[0]


# Decoding calls parse_time for every time field of every object (a pod with status has ~7), and a
# simulation writes the same few instants over and over: memoise (bounded; datetimes are immutable).
@functools.lru_cache(maxsize=4096)
def _parse_time_text(value: str) -> datetime:
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        raise ValueError(f"time {value!r} has no time zone; RFC 3339 requires one")
    try:
        return parsed.astimezone(UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00:00+01:00: before the first representable UTC instant
        raise ValueError(f"time {value!r} is out of range") from None


def _format_time(value: datetime) -> str:
    utc = value.astimezone(UTC)
    if utc.year < 1000:  # strftime does not pad the year; keep its output for these
        return utc.strftime("%Y-%m-%dT%H:%M:%SZ")
    # isoformat is several times faster than strftime and prints the same digits
    return utc.replace(microsecond=0, tzinfo=None).isoformat() + "Z"


# metav1.Time wire format: second precision, UTC, ``Z`` suffix. Memoised (a simulation writes the
# same few instants over and over): aware datetimes hash and compare by instant, and the text
# depends only on the instant, so equal keys always print alike; a naive datetime never equals an
# aware one. The serializer calls the C-level cache wrapper directly, without a Python frame on a hit.
format_time = functools.lru_cache(maxsize=4096)(_format_time)
format_time.__doc__ = "metav1.Time wire format: second precision, UTC, ``Z`` suffix."


def format_micro_time(value: datetime) -> str:
    """metav1.MicroTime wire format: microsecond precision, UTC, ``Z`` suffix."""
    utc = value.astimezone(UTC)
    if utc.year < 1000:
        return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return utc.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def format_nano_time(value: datetime) -> str:
    """Go's ``time.RFC3339Nano`` in UTC: the fraction only when there is one, its trailing zeros cut
    (``…T00:00:00.5Z``, ``…T00:00:03Z``); Python keeps microseconds, so at most six digits."""
    text = value.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0")
    return f"{whole}.{fraction}Z" if fraction else f"{whole}Z"


def _time_schema(serialize: Any) -> CoreSchema:
    """Decoding: stored JSON holds strings, checked by pydantic-core and parsed by the memoised
    ``_parse_time_text`` (no Python frame on a cache hit); Python input (dicts, keyword arguments)
    goes through :func:`parse_time`, which also accepts ``datetime`` values."""
    return core_schema.json_or_python_schema(
        json_schema=core_schema.chain_schema([
            core_schema.str_schema(strict=True),
            core_schema.no_info_plain_validator_function(_parse_time_text),
        ]),
        python_schema=core_schema.no_info_plain_validator_function(parse_time),
        serialization=core_schema.plain_serializer_function_ser_schema(
            serialize, return_schema=core_schema.str_schema()),
    )


@dataclass(frozen=True, slots=True)
class _TimeType:
    """Annotation marker building the core schema of :data:`Time` / :data:`MicroTime`."""

    serialize: Any

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return _time_schema(self.serialize)


# metav1.Time: serialized with second precision (upstream truncates sub-second parts).
Time = Annotated[datetime, _TimeType(format_time)]
# metav1.MicroTime: microsecond precision (Events' eventTime, Leases).
MicroTime = Annotated[datetime, _TimeType(format_micro_time)]


def wire_validate(model: type[_M], data: Any) -> _M:
    """``data`` in wire shape decoded as ``model``. Only the wire (camelCase) names are fields here:
    ``validate_by_name`` lets Python code build models by their snake_case names, but on the wire
    ``active_deadline_seconds`` is no field of a JobSpec, so it is an extra (``extra_forbidden``),
    the unknown field Go's decoder would find (strict: refused, warn: dropped with a warning)."""
    return model.__pydantic_validator__.validate_python(data, by_name=False)  # type: ignore[no-any-return]


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
        # Validators and serializers are built on a model's first use, not at import: a CLI command
        # touches a few of the ~350 models, and every command is a new process (docs/cli.md).
        defer_build=True,
    )

    # Assignment: the work of pydantic's handler for a plain field (no validate_assignment, no frozen
    # fields in kbatch) in one call, and safe on a shared (frozen) fields set, see share_fields_set.
    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__pydantic_fields__:
            self.__dict__[name] = value
            fields_set = self.__pydantic_fields_set__
            if name not in fields_set:
                if type(fields_set) is not set:  # a SharedFieldsSet: take a private one
                    fields_set = set(fields_set)
                    _set_fields_set(self, fields_set)
                fields_set.add(name)
        else:
            super().__setattr__(name, value)

    def __copy__(self) -> Self:
        return _thawed(super().__copy__())

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        return _thawed(super().__deepcopy__(memo))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as (class, field values, fields set): a saved control plane holds millions of
        models (docs/cli.md). A shared fields set stays shared (it is read only; assignments copy it),
        a private one stays private."""
        extra, private = self.__pydantic_extra__, self.__pydantic_private__
        if extra is None and private is None:
            return (_unpickle, (type(self), self.__dict__, _fields_set_of(self)))
        return (_unpickle, (type(self), self.__dict__, _fields_set_of(self), extra, private))

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return self.__reduce__()

    def to_dict(self) -> dict[str, Any]:
        """The object as kubectl would print it with ``-o json`` (``None`` fields omitted)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    def to_json(self) -> bytes:
        """Compact JSON bytes (the store's encoding); the serializer's own bytes, no str round trip."""
        return self.__pydantic_serializer__.to_json(self, by_alias=True, exclude_none=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Decode a wire dict: camelCase names only (:func:`wire_validate`)."""
        return wire_validate(cls, data)

    @classmethod
    def from_json(cls, data: bytes | str) -> Self:
        return cls.__pydantic_validator__.validate_json(data, by_name=False)  # type: ignore[no-any-return]

    def clone(self) -> Self:
        """A deep copy that shares nothing mutable with ``self``."""
        return type(self).from_json(self.to_json())


# --- shared fields sets -------------------------------------------------------------------------
# pydantic gives every instance its own ``__pydantic_fields_set__`` (a set of 216 to 2,264 bytes, and
# one more object for the cyclic GC to scan); a decoded Pod has ~17 of them, more memory than all of
# its field dicts. Long-lived read-only objects (an informer's cache) can share one SharedFieldsSet per
# distinct set of names instead (kbatch.api.model_copy.share_fields_sets). Every kbatch path that
# adds a name copes with that: KubeModel.__setattr__ above, copies and unpickled objects (which get a
# private set back), and private_fields_set below for code that adds names itself.
_FIELDS_SET_SLOT = BaseModel.__dict__["__pydantic_fields_set__"]
_fields_set_of = _FIELDS_SET_SLOT.__get__
_set_fields_set = _FIELDS_SET_SLOT.__set__


class SharedFieldsSet(set[str]):
    """A fields set shared by many objects: a ``set`` to pydantic (``model_dump(exclude_unset=True)``
    needs one), hashable and refusing every change (a model adding a name first takes a private copy)."""

    __slots__ = ("_digest",)  # (not ``_hash``: a method of ``collections.abc.Set``)

    def __init__(self, names: Any = ()) -> None:
        super().__init__(names)
        self._digest = hash(frozenset(self))

    def __hash__(self) -> int:  # type: ignore[override]
        return self._digest

    def _no(self, *_: Any) -> Any:
        raise TypeError("a shared fields set is read only")

    add = discard = remove = pop = clear = update = difference_update = _no  # type: ignore[assignment]
    intersection_update = symmetric_difference_update = _no  # type: ignore[assignment]
    __ior__ = __iand__ = __isub__ = __ixor__ = _no  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (SharedFieldsSet, (sorted(self),))


_SHARED_FIELDS_SETS: dict[frozenset[str], SharedFieldsSet] = {}
_MAX_SHARED_FIELDS_SETS = 65536  # distinct sets of field names; past this, sets stay private


def share_fields_set(obj: BaseModel) -> SharedFieldsSet | None:
    """Replace ``obj``'s own fields set by the shared one holding the same names; return it (``None``
    when the set stays private: the table of shared sets is full)."""
    fields_set = _fields_set_of(obj)
    if type(fields_set) is not set:
        return fields_set if type(fields_set) is SharedFieldsSet else None
    key = frozenset(fields_set)
    shared = _SHARED_FIELDS_SETS.get(key)
    if shared is None:
        if len(_SHARED_FIELDS_SETS) >= _MAX_SHARED_FIELDS_SETS:
            return None
        shared = _SHARED_FIELDS_SETS[key] = SharedFieldsSet(key)
    _set_fields_set(obj, shared)
    return shared


def private_fields_set(obj: BaseModel) -> set[str]:
    """``obj``'s fields set as a set of its own (a shared set is replaced by a copy first)."""
    fields_set = _fields_set_of(obj)
    if type(fields_set) is not set:
        fields_set = set(fields_set)
        _set_fields_set(obj, fields_set)
    return fields_set  # type: ignore[no-any-return]


def set_fields(obj: BaseModel, values: dict[str, Any]) -> None:
    """Assign several fields at once: the state assigning each (``KubeModel.__setattr__``) leaves,
    values and fields set, in one dict update and one set update (defaulting sets several per object)."""
    obj.__dict__.update(values)
    private_fields_set(obj).update(values)


def _unpickle(cls: type[BaseModel], values: dict[str, Any], fields_set: set[str], extra: Any = None,
              private: Any = None) -> BaseModel:
    obj = object.__new__(cls)
    _DICT_SET(obj, values)
    _set_fields_set(obj, fields_set)
    _EXTRA_SET(obj, extra)
    _PRIVATE_SET(obj, private)
    return obj


_DICT_SET = BaseModel.__dict__["__dict__"].__set__
_EXTRA_SET = BaseModel.__dict__["__pydantic_extra__"].__set__
_PRIVATE_SET = BaseModel.__dict__["__pydantic_private__"].__set__


def _thawed(obj: Any) -> Any:
    private_fields_set(obj)
    return obj


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
    # ``APILifecycleDeprecated`` (major, minor) and ``APILifecycleReplacement`` ("group/version Kind"):
    # every request on a deprecated kind answers a warning (k8s.io/apiserver
    # ``pkg/endpoints/deprecation/deprecation.go``; core/v1 Endpoints since 1.33, KEP-4974)
    deprecated: tuple[int, int] | None = None
    replacement: str = ""

    @property
    def deprecation_warning(self) -> str:
        """``deprecation.WarningMessage``: "v1 Endpoints is deprecated in v1.33+; use ..." (or "")."""
        if self.deprecated is None:
            return ""
        major, minor = self.deprecated
        text = f"{self.api_version} {self.kind} is deprecated in v{major}.{minor}+"
        return f"{text}; use {self.replacement}" if self.replacement else text

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
