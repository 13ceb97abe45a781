"""The ``Target`` protocol: the only way conformance checks touch an implementation.

Everything crosses the seam in wire form (``dict``, camelCase, as ``kubectl -o json`` prints), so
the same checks can run in-process against kbatch (:class:`conformance.kbatch_target.KbatchTarget`),
over HTTP against ``kbatch serve``, or against a real cluster. Kinds are named as in manifests
(``"Job"``, ``"Pod"``, ``"CronJob"``, ``"Event"``).

Time: a target with a virtual clock (``has_virtual_clock``) moves only through :meth:`advance`;
checks that need to jump time are marked ``needs_virtual_clock`` and skipped on other targets.
:meth:`wait_for` advances (virtual) or polls (real) until a predicate holds.

Failures: a call the API refuses raises an exception carrying the ``Status`` the server answered
(``NotFound``, ``Invalid``, …: kbatch's errors in-process, :mod:`conformance.errors` over HTTP);
:func:`conformance.errors.status_of` gives its wire form (``reason``, ``code``, ``details.causes``
with each invalid field's path) on every target.

Pods: a target may say whether a scheduler and a kubelet run its pods (an optional ``runs_pods``
attribute, read through :func:`runs_pods`; absent means False). Checks that let the container
command decide pod outcomes are marked ``runs_pods`` and need one; checks that play the kubelet by
patching pod status are marked ``plays_kubelet`` and need a target where nothing else does.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

__all__ = ["Obj", "Target", "TargetFactory", "condition", "has_condition", "runs_pods"]

Obj = dict[str, Any]


@runtime_checkable
class Target(Protocol):
    """An implementation under test."""

    has_virtual_clock: bool

    def apply(self, manifest: Obj | str, namespace: str = "default") -> Obj:
        """Create (or update) one object; returns it as stored."""
        ...

    def get(self, kind: str, name: str, namespace: str = "default") -> Obj | None:
        """The object, or None when it does not exist."""
        ...

    def list(self, kind: str, namespace: str = "default", label_selector: str | None = None) -> list[Obj]:
        """Objects of ``kind``, sorted by name."""
        ...

    def patch(self, kind: str, name: str, patch: Obj, namespace: str = "default") -> Obj:
        """JSON merge patch of the object (spec, metadata)."""
        ...

    def patch_status(self, kind: str, name: str, patch: Obj, namespace: str = "default") -> Obj:
        """JSON merge patch through the ``status`` subresource (how tests play the kubelet)."""
        ...

    def delete(self, kind: str, name: str, namespace: str = "default",
               propagation_policy: str | None = None) -> None:
        """Delete (graceful: finalizers keep the object with a deletionTimestamp). Missing is fine."""
        ...

    def now(self) -> datetime:
        ...

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of (virtual) time pass, processing everything due on the way."""
        ...

    def settle(self) -> None:
        """Process everything due now (virtual) / a short pause (real)."""
        ...

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 600) -> bool:
        """Advance or poll until ``predicate()`` holds; False on timeout."""
        ...


TargetFactory = Callable[[], Target]


def condition(obj: Obj | None, type_: str) -> Obj | None:
    """The status condition of ``type_`` on ``obj`` (any status), or None."""
    for cond in ((obj or {}).get("status") or {}).get("conditions") or ():
        if cond.get("type") == type_:
            return cond
    return None


def has_condition(obj: Obj | None, type_: str, status: str = "True") -> bool:
    cond = condition(obj, type_)
    return cond is not None and cond.get("status") == status


def runs_pods(target: object) -> bool:
    """Whether a scheduler and kubelet run ``target``'s pods (its optional ``runs_pods``, else False)."""
    return bool(getattr(target, "runs_pods", False))
