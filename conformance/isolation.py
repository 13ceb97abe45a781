"""Every check in a fresh namespace of its own: its name, its creation, its removal, and the view of a
target bound to it.

The name is ``kbatch-conformance-`` and eight hex digits drawn from a random generator seeded with
the run's seed and the check's id (``KBATCH_CONFORMANCE_SEED``, ``kbatch conformance --seed``;
default 0), so an in-process run names the same namespaces every time (its trace stays
reproducible) while the names look random to a shared cluster. The namespace is *created* (never
applied): if the name is taken — another run, a namespace still terminating — the suite draws the
next name from the same generator, so it never writes to a namespace it did not make. Then, as
upstream's e2e framework, the suite waits for the namespace's ``default`` ServiceAccount and
``kube-root-ca.crt`` ConfigMap, which the cluster's controllers create moments later and without
which no pod is admitted.

At the end of the check the suite deletes what the family's checks create (``Family.kinds``) in that
namespace, then the namespace: on a cluster the namespace controller would empty it anyway, but a
``kbatch serve --controllers job,cronjob`` has none, and CronJobs left behind would keep firing.
Nothing outside the namespace is written.
"""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from itertools import islice
from typing import Any

from conformance.errors import status_of
from conformance.target import Obj, Target

__all__ = ["PREFIX", "SEED_ENV", "NamespacedTarget", "await_provisioning", "claim_namespace",
           "namespace_names", "release_namespace", "run_seed"]

PREFIX = "kbatch-conformance-"
SEED_ENV = "KBATCH_CONFORMANCE_SEED"
ATTEMPTS = 8
ROOT_CA = "kube-root-ca.crt"
PROVISION_TIMEOUT = 120.0  # upstream's ServiceAccountProvisionTimeout, 2 minutes


def run_seed() -> int:
    """The run's seed: ``KBATCH_CONFORMANCE_SEED`` (an integer), default 0."""
    text = os.environ.get(SEED_ENV) or "0"
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{SEED_ENV} must be an integer, not {text!r}") from None


def namespace_names(seed: int, check_id: str) -> Iterator[str]:
    """The endless, reproducible stream of candidate namespace names for one check."""
    rng = random.Random(f"{seed}/{check_id}")
    while True:
        yield f"{PREFIX}{rng.getrandbits(32):08x}"


def _taken(err: Exception) -> bool:
    status = status_of(err) or {}
    return status.get("reason") == "AlreadyExists" or status.get("code") == 409


def _provisioned(target: Target, namespace: str) -> bool:
    return (target.get("ServiceAccount", "default", namespace) is not None
            and target.get("ConfigMap", ROOT_CA, namespace) is not None)


def await_provisioning(target: Target, namespace: str) -> None:
    """Wait, as upstream's e2e framework does after creating a test namespace
    (``test/e2e/framework/framework.go`` ``BeforeEach``: ``WaitForDefaultServiceAccountInNamespace``
    and ``WaitForKubeRootCAInNamespace``, ``ServiceAccountProvisionTimeout``), for the ``default``
    ServiceAccount the ServiceAccount admission plugin needs before it admits a pod, and the
    ``kube-root-ca.crt`` ConfigMap the pods' projected volume reads. ``RuntimeError`` when they do
    not come; a target that serves no ServiceAccount kind is not waited for."""
    try:
        target.get("ServiceAccount", "default", namespace)
    except Exception:  # no such kind on this target: nothing provisions accounts, nothing needs them
        return
    if not target.wait_for(lambda: _provisioned(target, namespace), PROVISION_TIMEOUT):
        raise RuntimeError(f"namespace {namespace}: no default ServiceAccount and {ROOT_CA} ConfigMap after "
                           f"{PROVISION_TIMEOUT:.0f}s; the cluster must run the serviceaccount and "
                           "root-ca-cert-publisher controllers")


def claim_namespace(target: Target, names: Iterable[str], attempts: int = ATTEMPTS) -> str:
    """Create the first free namespace of ``names``, wait for its provisioning
    (:func:`await_provisioning`) and return its name (``RuntimeError`` after ``attempts`` taken
    names)."""
    tried = []
    for name in islice(names, attempts):
        labels = {"app.kubernetes.io/created-by": "kbatch-conformance"}
        manifest = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}
        try:
            target.create(manifest)
        except Exception as err:
            if not _taken(err):
                raise
            tried.append(name)
            continue
        await_provisioning(target, name)
        return name
    raise RuntimeError(f"no free namespace after {attempts} tries ({', '.join(tried)}); pick another --seed")


def release_namespace(target: Target, namespace: str, kinds: Iterable[str]) -> None:
    """Delete ``kinds`` in ``namespace`` (pods at once, their finalizers dropped), then the namespace."""
    for kind in kinds:
        try:
            found = target.list(kind, namespace)
        except Exception:  # a kind the server does not serve (e.g. a feature gate off)
            continue
        for obj in found:
            name = obj["metadata"]["name"]
            with contextlib.suppress(Exception):  # gone meanwhile, or a kind the server lacks
                if obj["metadata"].get("finalizers"):
                    target.patch(kind, name, {"metadata": {"finalizers": None}}, namespace)
            target.delete(kind, name, namespace, propagation_policy="Background",
                          grace_period_seconds=0 if kind == "Pod" else None)
    target.delete("Namespace", namespace, namespace, propagation_policy="Background")


class NamespacedTarget:
    """``inner`` seen from a check: every call is made in ``namespace`` (the check's), and the check
    never names one. Anything else (``capabilities``, ``fault``, ``description``, a target's own
    extras) is the inner target's."""

    def __init__(self, inner: Target, namespace: str) -> None:
        self.inner = inner
        self.namespace = namespace

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _ns(self, namespace: str | None) -> str:
        return self.namespace if namespace in (None, "default") else namespace

    def create(self, manifest: Obj, namespace: str | None = None) -> Obj:
        return self.inner.create(manifest, self._ns(namespace))

    def apply(self, manifest: Obj | str, namespace: str | None = None) -> Obj:
        return self.inner.apply(manifest, self._ns(namespace))

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        return self.inner.get(kind, name, self._ns(namespace))

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None) -> list[Obj]:
        return self.inner.list(kind, self._ns(namespace), label_selector=label_selector)

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, **kw: Any) -> Obj:
        return self.inner.patch(kind, name, patch, self._ns(namespace), **kw)

    def patch_status(self, kind: str, name: str, patch: Any, namespace: str | None = None, **kw: Any) -> Obj:
        return self.inner.patch_status(kind, name, patch, self._ns(namespace), **kw)

    def delete(self, kind: str, name: str, namespace: str | None = None,
               propagation_policy: str | None = None, grace_period_seconds: int | None = None) -> None:
        self.inner.delete(kind, name, self._ns(namespace), propagation_policy=propagation_policy,
                          grace_period_seconds=grace_period_seconds)

    def fault(self, name: str, args: Obj) -> Obj:
        """The inner target's fault command, in this namespace unless ``args`` names one."""
        return self.inner.fault(name, {**args, "namespace": self._ns(args.get("namespace"))})

    def now(self) -> datetime:
        return self.inner.now()

    def advance(self, seconds: float) -> None:
        self.inner.advance(seconds)

    def settle(self) -> None:
        self.inner.settle()

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 600) -> bool:
        return self.inner.wait_for(predicate, timeout)
