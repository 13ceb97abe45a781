"""Claim constraints across requests (upstream ``matchAttributeConstraint`` in the allocator and
``distinctAttributeConstraint`` in ``constraint.go``).

``matchAttribute``: the first device added fixes the value (it must have the attribute); later
devices must have an equal value of the same type. ``distinctAttribute`` (consumable capacity): every
device must have the attribute, with a value no other device of the set has. A constraint with no
``requests`` applies to every request; one naming ``<request>`` covers its subrequests too. An
attribute name ``<driver>/<id>`` also finds the driver's bare ``<id>``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

__all__ = ["Constraint", "DistinctAttribute", "MatchAttribute", "lookup_attribute"]


def lookup_attribute(device: Any, driver: str, name: str) -> Any:
    attributes = device.attributes or {}
    found = attributes.get(name)
    if found is not None:
        return found
    domain, sep, ident = name.partition("/")
    if not sep or domain != driver:
        return None
    return attributes.get(ident)


def _typed(attribute: Any) -> tuple[str, Any]:
    return attribute.kind(), attribute.value()


class Constraint(ABC):
    """Shared part: which requests a constraint covers, and the first two rules of ``add``: a device
    of a request the constraint does not cover is accepted, one without the attribute is refused;
    the subclass judges the typed value (:meth:`admit`)."""

    def __init__(self, requests: list[str] | None, attribute: str) -> None:
        self.requests = frozenset(requests or ())
        self.attribute = attribute

    def applies(self, request: str, sub: str) -> bool:
        if not self.requests:
            return True
        return request in self.requests or (bool(sub) and f"{request}/{sub}" in self.requests)

    def add(self, request: str, sub: str, device: Any, driver: str) -> bool:
        if not self.applies(request, sub):
            return True
        attribute = lookup_attribute(device, driver, self.attribute)
        if attribute is None or not attribute.kind():
            return False
        return self.admit(_typed(attribute))

    @abstractmethod
    def admit(self, typed: tuple[str, Any]) -> bool:
        """Whether a covered device with this attribute value joins the set (recording it if so)."""


class MatchAttribute(Constraint):
    def __init__(self, requests: list[str] | None, attribute: str) -> None:
        super().__init__(requests, attribute)
        self.value: tuple[str, Any] | None = None
        self.count = 0

    def admit(self, typed: tuple[str, Any]) -> bool:
        if self.count == 0:
            self.value, self.count = typed, 1
            return True
        if typed != self.value:
            return False
        self.count += 1
        return True

    def remove(self, request: str, sub: str, device: Any, driver: str) -> None:
        if self.applies(request, sub):
            self.count -= 1


class DistinctAttribute(Constraint):
    def __init__(self, requests: list[str] | None, attribute: str) -> None:
        super().__init__(requests, attribute)
        self.values: list[tuple[str, Any]] = []

    def admit(self, typed: tuple[str, Any]) -> bool:
        if typed in self.values:
            return False
        self.values.append(typed)
        return True

    def remove(self, request: str, sub: str, device: Any, driver: str) -> None:
        if self.applies(request, sub):
            attribute = lookup_attribute(device, driver, self.attribute)
            if attribute is not None and _typed(attribute) in self.values:
                self.values.remove(_typed(attribute))
