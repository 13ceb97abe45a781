"""Waiting in tests without sleeping: advance virtual time until a condition holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.api.errors import NotFound

__all__ = ["condition_true", "wait_until", "wait_until_gone"]


def wait_until(cp: Any, predicate: Callable[[], bool], timeout: float | str = "1h") -> float:
    """Advance ``cp``'s virtual clock (deadline to deadline) until ``predicate()`` holds; returns the
    virtual seconds it took, raises ``TimeoutError`` after ``timeout``."""
    return cp.wait_for(predicate, timeout)


def condition_true(cp: Any, kind: type, name: str, type_: str, namespace: str | None = "default") -> bool:
    """Whether the object exists and has condition ``type_`` with status ``"True"``."""
    try:
        obj = cp.client.get(kind, name, namespace)
    except NotFound:
        return False
    conditions = getattr(getattr(obj, "status", None), "conditions", None) or ()
    return any(c.type == type_ and c.status == "True" for c in conditions)


def wait_until_gone(cp: Any, kind: type, name: str, namespace: str | None = "default",
                    timeout: float | str = "1h") -> float:
    def gone() -> bool:
        try:
            cp.client.get(kind, name, namespace)
        except NotFound:
            return True
        return False

    return cp.wait_for(gone, timeout)
