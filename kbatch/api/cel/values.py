"""Kubernetes' CEL value types as CEL message types: ``kubernetes.Quantity``, ``kubernetes.Semver``,
``net.IP`` and ``net.CIDR``.

The CEL runtime (cel-expr-python, the CEL team's C++ runtime) passes only protobuf messages, not
opaque Python objects, through custom functions, so these types are small messages of a
private descriptor pool. Their type names are upstream's (``k8s.io/apiserver/pkg/cel``
``QuantityType``, ``SemverType``, ``IPType``, ``CIDRType``), so type-check errors read the same. A
message holds one field, the value's canonical text: equal values have equal messages, which is
upstream's equality (``Quantity.Equal`` compares values; ``Semver.Equal`` ignores build metadata; IPs
and CIDRs compare their canonical address and prefix).
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from typing import Any

__all__ = [
    "AUTHZ_TYPES",
    "SEMVER_RE",
    "make_quantity",
    "make_semver",
    "message_classes",
    "net_classes",
    "parse_semver",
    "pool",
    "quantity_of",
    "semver_of",
]

# semver.org 2.0.0 (blang/semver's strict Parse; the same grammar ResourceSlice validation uses)
# kubernetes.authorization's types (k8s.io/apiserver/pkg/cel/library/authz.go; :mod:`.authz`)
AUTHZ_TYPES = ("Authorizer", "PathCheck", "GroupCheck", "ResourceCheck", "Decision")

_NUM = r"(0|[1-9]\d*)"
_PRE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
# re.ASCII: \d is an ASCII digit, as blang/semver's; a caller fullmatches (Python's $ matches before "\n")
SEMVER_RE = re.compile(rf"^{_NUM}\.{_NUM}\.{_NUM}(-{_PRE}(\.{_PRE})*)?(\+{_BUILD}(\.{_BUILD})*)?$", re.ASCII)


def _file(package: str, names: tuple[str, ...]) -> Any:
    """A proto3 file of ``package`` with one single-string-field (``value``) message per name."""
    from google.protobuf import descriptor_pb2

    proto = descriptor_pb2.FileDescriptorProto(name=f"kbatch/{package}_cel.proto", package=package,
                                               syntax="proto3")
    for name in names:
        message = proto.message_type.add(name=name)
        message.field.add(
            name="value",
            number=1,
            type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
            label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
        )
    return proto


@functools.cache
def pool() -> Any:
    """The descriptor pool holding ``kubernetes.Quantity`` and ``kubernetes.Semver``, and the IP and
    CIDR libraries' types (k8s.io/apiserver/pkg/cel: IPType ``net.IP``, CIDRType ``net.CIDR``)."""
    from google.protobuf import descriptor_pool

    built = descriptor_pool.DescriptorPool()
    built.Add(_file("kubernetes", ("Quantity", "Semver")))
    built.Add(_file("net", ("IP", "CIDR")))
    built.Add(_file("kubernetes.authorization", AUTHZ_TYPES))  # the authorizer library (.authz)
    return built


def _classes(*full_names: str) -> tuple[Any, ...]:
    from google.protobuf import message_factory

    found = pool().FindMessageTypeByName
    return tuple(message_factory.GetMessageClass(found(name)) for name in full_names)


@functools.cache
def message_classes() -> tuple[Any, Any]:
    return _classes("kubernetes.Quantity", "kubernetes.Semver")  # type: ignore[return-value]


@functools.cache
def net_classes() -> tuple[Any, Any]:
    """The ``net.IP`` and ``net.CIDR`` message classes (value: the canonical text)."""
    return _classes("net.IP", "net.CIDR")  # type: ignore[return-value]


def make_quantity(value: Fraction) -> Any:
    """A ``kubernetes.Quantity`` message for an exact value."""
    return message_classes()[0](value=str(value))


@functools.lru_cache(maxsize=4096)
def _fraction(text: str) -> Fraction:
    return Fraction(text)


def quantity_of(message: Any) -> Fraction:
    return _fraction(message.value)


def parse_semver(text: str) -> tuple[int, int, int, tuple[Any, ...]] | None:
    """(major, minor, patch, prerelease identifiers) of a strict semver, or None."""
    match = SEMVER_RE.fullmatch(text)  # blang/semver refuses "1.0.0\n"; Python's ``$`` matches before it
    if match is None:
        return None
    core, _, _ = text.partition("+")
    _, dash, pre = core.partition("-")
    ids = tuple(int(p) if p.isdigit() else p for p in pre.split(".")) if dash else ()
    return int(match.group(1)), int(match.group(2)), int(match.group(3)), ids


def make_semver(text: str) -> Any:
    """A ``kubernetes.Semver`` message; build metadata dropped (it takes no part in comparisons)."""
    return message_classes()[1](value=text.partition("+")[0])


@functools.lru_cache(maxsize=4096)
def semver_of(text: str) -> tuple[int, int, int, tuple[Any, ...]]:
    parsed = parse_semver(text)
    assert parsed is not None, text
    return parsed
