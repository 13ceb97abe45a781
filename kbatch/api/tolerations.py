"""Whether a toleration tolerates a taint: one rule for node taints and device taints.

k8s.io/api core/v1 ``toleration.go`` ``ToleratesTaint`` and resource ``ToleratesTaint``
(``pkg/apis/resource``, the device form) answer alike: an empty effect or key matches any, ``Exists``
matches any value, ``Equal`` (or no operator) needs the same value, any other operator nothing. Works
on any objects with those attributes (the API models of either kind).
"""

from __future__ import annotations

from typing import Any

__all__ = ["tolerates"]


def tolerates(toleration: Any, taint: Any) -> bool:
    """Does ``toleration`` tolerate ``taint``?"""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    operator = toleration.operator or "Equal"
    if operator == "Equal":
        return (toleration.value or "") == (taint.value or "")
    return operator == "Exists"
