"""The ``Target`` protocol: the only way conformance checks touch an implementation.

Everything crosses the seam in wire form (``dict``, camelCase, as ``kubectl -o json`` prints), so
the same checks can run in-process against kbatch (:class:`conformance.kbatch_target.KbatchTarget`),
over HTTP against ``kbatch serve``, or against a real cluster. Kinds are named as in manifests
(``"Job"``, ``"Pod"``, ``"CronJob"``, ``"Event"``); kubectl's ``Kind.group`` form
(``"PodGroup.scheduling.x-k8s.io"``) names one of two kinds that share a name (a bare ``"PodGroup"``
is the first group's: Kubernetes' own ``scheduling.k8s.io``).

Capabilities: a target declares what it offers beyond the Kubernetes API in ``capabilities``, a
set of the names below; checks declare what they need by marker (:mod:`conformance.requirements`)
and are skipped, with the reason, on a target that lacks it:

* ``virtual-clock`` (:data:`VIRTUAL_CLOCK`): time moves only through :meth:`advance`; without it
  time is real, ``advance`` really waits and :meth:`wait_for` polls.
* ``kubelet`` (:data:`KUBELET`): a scheduler and a kubelet run the pods (their container command
  decides the outcome), as on a real cluster; without it pods stay Pending unless a check plays
  the kubelet by patching their status.
* ``faults`` (:data:`FAULTS`): kbatch's fault commands (``node-down``, ``fail-pod``, …), through
  the optional :class:`FaultInjector` protocol.
* ``feature-gate:<Name>`` (:func:`feature_gate`): the implementation runs with the **alpha** feature
  gate ``<Name>`` turned on (alpha gates are off by default upstream, so a check of an alpha
  semantic needs a target that says it turned the gate on). kbatch's targets declare every alpha
  gate they run with on: the in-process one from its control plane, the HTTP one from the
  ``kubernetes_feature_enabled{name=…,stage="ALPHA"} 1`` series of the server's ``/metrics``
  (kube-apiserver publishes one per gate; a server whose ``/metrics`` cannot be read declares none).

Namespaces: the suite gives every check its own fresh namespace (:mod:`conformance.isolation`) and
always passes it explicitly; a target never has to pick one.

Failures: a call the API refuses raises an exception carrying the ``Status`` the server answered
(``NotFound``, ``Invalid``, …: kbatch's errors in-process, :mod:`conformance.errors` over HTTP);
:func:`conformance.errors.status_of` gives its wire form (``reason``, ``code``, ``details.causes``
with each invalid field's path) on every target.

Optional attributes the report shows when present: ``description`` (one line: URL, clock, …) and
``kubernetes_version`` (the ``gitVersion`` the implementation reports, e.g. ``v1.37.0``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "CAPABILITIES",
    "FAULTS",
    "FEATURE_GATE",
    "KUBELET",
    "KUEUE",
    "VIRTUAL_CLOCK",
    "FaultInjector",
    "Obj",
    "Target",
    "TargetFactory",
    "capabilities",
    "condition",
    "feature_gate",
    "gates_of",
    "has_condition",
    "runs_pods",
]

Obj = dict[str, Any]

VIRTUAL_CLOCK = "virtual-clock"
KUBELET = "kubelet"
FAULTS = "faults"
KUEUE = "kueue"  # Kueue's manager admits workloads (the kueue.x-k8s.io API is served and acted on)
CAPABILITIES = (VIRTUAL_CLOCK, KUBELET, FAULTS, KUEUE)
"""Every capability name a target may declare (a family may add its own to this tuple), besides
the ``feature-gate:<Name>`` ones (:func:`feature_gate`)."""
FEATURE_GATE = "feature-gate:"


def feature_gate(name: str) -> str:
    """The capability of a target that runs with alpha feature gate ``name`` turned on."""
    return FEATURE_GATE + name


def gates_of(capabilities: frozenset[str] | set[str]) -> list[str]:
    """The feature gates named by ``feature-gate:<Name>`` capabilities, sorted."""
    return sorted(c[len(FEATURE_GATE):] for c in capabilities if c.startswith(FEATURE_GATE))


@runtime_checkable
class Target(Protocol):
    """An implementation under test."""

    capabilities: frozenset[str]
    """What the target offers beyond the Kubernetes API (names from :data:`CAPABILITIES`)."""

    def create(self, manifest: Obj, namespace: str = "default") -> Obj:
        """Create one object (never update: an existing one raises ``AlreadyExists``)."""
        ...

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
               propagation_policy: str | None = None, grace_period_seconds: int | None = None) -> None:
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


@runtime_checkable
class FaultInjector(Protocol):
    """The optional ``faults`` capability: kbatch's fault commands (docs/serve.md, "actions")."""

    def fault(self, name: str, args: Obj) -> Obj:
        """Run fault command ``name`` (``fail-pod``, ``node-down``, ``evict-pod``, …) with its
        arguments (``{"name": pod, "namespace": ns, "exitCode": 3}``); returns its answer."""
        ...


TargetFactory = Callable[[], Target]


def capabilities(target: object) -> frozenset[str]:
    """``target.capabilities`` (an empty set for a target that declares none)."""
    return frozenset(getattr(target, "capabilities", ()) or ())


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
    """Whether a scheduler and kubelet run ``target``'s pods (the ``kubelet`` capability)."""
    return KUBELET in capabilities(target)
