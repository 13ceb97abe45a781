"""The HTTP :class:`~conformance.target.Target`: any Kubernetes API server, reached through a kubeconfig.

It speaks only the Kubernetes REST API (discovery, resource paths, the ``status`` subresource, the
three PATCH types, DeleteOptions), plus kbatch's clock extension
(``/apis/kbatch.dev/v1alpha1/clock``, see docs/serve.md) when the server offers one:

* **Virtual clock** (``kbatch serve --clock virtual``): ``has_virtual_clock`` is True; ``now`` reads
  the clock, ``advance``/``settle`` post to it, and ``wait_for`` jumps deadline to deadline, as the
  in-process target does: it checks the predicate, then posts ``{"untilNextDeadline": true,
  "advance": <time left>}`` (the clock moves to the next pending timer and fires it, or stops at
  the bound), until the predicate holds or the time is up. Against a server whose clock reports no
  ``nextDeadline`` it advances in steps of ``step`` seconds (1 s) instead.
  The server already settles after every write, as the in-process target does.
* **No virtual clock** (a real cluster, or ``--clock real``): ``now`` is the server's clock (the
  extension's, else the ``Date`` header of a ``/version`` answer); ``wait_for`` polls in real time,
  bounded by ``max_wait`` seconds; checks marked ``needs_virtual_clock`` are skipped.

``apply`` is client-side apply (:mod:`conformance.client_apply`). Failures raise
:mod:`conformance.errors` (``NotFound``, ``Invalid``, …), whose ``code``/``reason``/``message``
match the kbatch errors the in-process target raises.

Isolation: each target starts from a clean namespace. On a kbatch server (the clock extension is
present) the target works in ``default``, as in-process, and first deletes the CronJobs, Jobs and
Pods left there. On any other server it creates a namespace ``kbatch-conformance-<random>`` on first
use (the checks' ``"default"`` means that namespace) and deletes it in :meth:`close`.
``KBATCH_CONFORMANCE_NAMESPACE`` forces a namespace (then swept like ``default``).

Pods: ``runs_pods`` (a scheduler and kubelet run the pods, so checks marked ``runs_pods`` run) is
True on a server without the clock extension (a real cluster) and, on a kbatch server, when it has a
Ready Node — so serve the status-patching checks from a ``kbatch serve --controllers job,cronjob``
without nodes, and the real-pod checks from one with its default controllers and nodes.
"""

from __future__ import annotations

import contextlib
import email.utils
import os
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import yaml

from conformance import errors
from conformance.client_apply import apply_patch, with_last_applied
from conformance.http_client import PATCH_TYPES, ApiClient
from conformance.kubeconfig import ClusterConfig, load_kubeconfig
from conformance.target import Obj

__all__ = ["CLOCK_PATH", "HttpTarget", "from_kubeconfig", "make_target"]

CLOCK_PATH = "/apis/kbatch.dev/v1alpha1/clock"
SWEPT_KINDS = ("CronJob", "Job", "Pod")


def _seconds(value: float) -> str:
    return f"{float(value):.6f}".rstrip("0").rstrip(".") + "s"


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class HttpTarget:
    """A Target over the Kubernetes REST API. ``namespace`` None picks as the module doc says."""

    def __init__(self, config: ClusterConfig, *, namespace: str | None = None, step: float = 1.0,
                 max_wait: float = 120.0, poll_interval: float = 0.5, timeout: float = 30.0) -> None:
        self.api = ApiClient(config, timeout=timeout)
        self.step, self.max_wait, self.poll_interval = step, max_wait, poll_interval
        clock = self._clock()
        self._has_clock = clock is not None
        self.has_virtual_clock = bool(clock and clock.get("virtual"))
        self._deadline_jumps = bool(clock and "nextDeadline" in clock)  # kbatch serve ≥ untilNextDeadline
        self._own_namespace = namespace is None and not self._has_clock
        if namespace is None:
            namespace = f"kbatch-conformance-{secrets.token_hex(4)}" if self._own_namespace else "default"
        self.namespace = namespace
        self._namespace_ready = not self._own_namespace
        self.runs_pods = not self._has_clock or self._ready_nodes() > 0
        mode = "virtual clock" if self.has_virtual_clock else "no virtual clock"
        pods = ", pods run by nodes" if self.runs_pods else ""
        self.description = f"HTTP {config.server} ({mode}, namespace {namespace}{pods})"
        if not self._own_namespace:
            self.sweep()

    # -- plumbing ----------------------------------------------------------------------------------
    def _clock(self) -> Obj | None:
        try:
            return self.api.get_json(CLOCK_PATH)
        except (errors.NotFound, errors.Forbidden, errors.MethodNotAllowed):
            return None

    def _ready_nodes(self) -> int:
        """How many Nodes report ``Ready=True`` (0 when Nodes cannot be listed)."""
        try:
            nodes = self.list("Node")
        except (errors.Forbidden, errors.NotFound):
            return 0
        return sum(1 for n in nodes for c in (n.get("status") or {}).get("conditions") or ()
                   if c.get("type") == "Ready" and c.get("status") == "True")

    def _ns(self, namespace: str) -> str:
        """The checks' ``"default"`` is this target's namespace."""
        return self.namespace if namespace == "default" else namespace

    def _ensure_namespace(self) -> None:
        if self._namespace_ready:
            return
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.namespace}}
        with contextlib.suppress(errors.AlreadyExists):
            self.api.request("POST", "/api/v1/namespaces", body=body)
        self._namespace_ready = True

    def _resource(self, kind: str, api_version: str | None = None) -> Any:
        return self.api.discovery.resolve(kind, api_version)

    # -- Target: objects ---------------------------------------------------------------------------
    def apply(self, manifest: Obj | str, namespace: str = "default") -> Obj:
        docs = [d for d in yaml.safe_load_all(manifest) if d] if isinstance(manifest, str) else [manifest]
        applied = [self._apply_one(doc, self._ns(namespace)) for doc in docs]
        return applied[0]

    def _apply_one(self, manifest: Obj, namespace: str) -> Obj:
        res = self._resource(manifest["kind"], manifest.get("apiVersion"))
        body = with_last_applied(manifest)
        body.pop("status", None)
        ns = (body.get("metadata") or {}).get("namespace") or namespace
        if res.namespaced:
            body["metadata"]["namespace"] = ns
            self._ensure_namespace()
        try:
            return self.api.request("POST", res.path(ns), body=body).json()
        except errors.AlreadyExists:
            name = body["metadata"].get("name")
            if not name:
                raise
        live = self.api.get_json(res.path(ns, name))
        return self.api.request("PATCH", res.path(ns, name), body=apply_patch(live, body),
                                content_type=PATCH_TYPES["merge"]).json()

    def get(self, kind: str, name: str, namespace: str = "default") -> Obj | None:
        try:
            return self.api.get_json(self._resource(kind).path(self._ns(namespace), name))
        except errors.NotFound:
            return None

    def list(self, kind: str, namespace: str = "default", label_selector: str | None = None) -> list[Obj]:
        res = self._resource(kind)
        items: list[Obj] = []
        params: dict[str, Any] = {"labelSelector": label_selector, "limit": 500}
        while True:
            page = self.api.request("GET", res.path(self._ns(namespace)), params=params).json()
            for item in page.get("items") or ():  # list items omit apiVersion/kind on the wire
                items.append({"apiVersion": res.api_version, "kind": kind, **item})
            params["continue"] = (page.get("metadata") or {}).get("continue")
            if not params["continue"]:
                return sorted(items, key=lambda o: o["metadata"]["name"])

    def patch(self, kind: str, name: str, patch: Obj | list[Any], namespace: str = "default",
              patch_type: str = "merge") -> Obj:
        """``patch_type``: ``merge`` (the protocol's default), ``strategic`` or ``json``."""
        return self._patch(kind, name, patch, namespace, patch_type, None)

    def patch_status(self, kind: str, name: str, patch: Obj | list[Any], namespace: str = "default",
                     patch_type: str = "merge") -> Obj:
        return self._patch(kind, name, patch, namespace, patch_type, "status")

    def _patch(self, kind: str, name: str, patch: Obj | list[Any], namespace: str, patch_type: str,
               subresource: str | None) -> Obj:
        path = self._resource(kind).path(self._ns(namespace), name, subresource)
        return self.api.request("PATCH", path, body=patch, content_type=PATCH_TYPES[patch_type]).json()

    def delete(self, kind: str, name: str, namespace: str = "default",
               propagation_policy: str | None = None, grace_period_seconds: int | None = None) -> None:
        options: Obj = {"apiVersion": "v1", "kind": "DeleteOptions"}
        if propagation_policy:
            options["propagationPolicy"] = propagation_policy
        if grace_period_seconds is not None:
            options["gracePeriodSeconds"] = grace_period_seconds
        with contextlib.suppress(errors.NotFound):
            self.api.request("DELETE", self._resource(kind).path(self._ns(namespace), name), body=options)

    # -- Target: time ------------------------------------------------------------------------------
    def now(self) -> datetime:
        if self._has_clock:
            clock = self.api.get_json(CLOCK_PATH)
            return _parse_time(clock.get("nowMicro") or clock["now"])
        date = self.api.request("GET", "/version").headers.get("date")
        if date:
            return email.utils.parsedate_to_datetime(date).astimezone(UTC)
        return datetime.now(UTC)

    def advance(self, seconds: float) -> None:
        if self.has_virtual_clock:
            self.api.request("POST", CLOCK_PATH, body={"advance": _seconds(seconds)})
        else:
            time.sleep(seconds)  # real time has to pass on its own

    def settle(self) -> None:
        if self.has_virtual_clock:
            self.api.request("POST", CLOCK_PATH, body={"advance": "0s"})
        else:
            time.sleep(self.poll_interval)

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 600) -> bool:
        if self.has_virtual_clock:
            if self._deadline_jumps:
                return self._jump_until(predicate, timeout)
            waited = 0.0
            while not predicate():
                if waited >= timeout:
                    return False
                step = min(self.step, timeout - waited)
                self.advance(step)
                waited += step
            return True
        deadline = time.monotonic() + min(timeout, self.max_wait)
        while not predicate():
            if time.monotonic() >= deadline:
                return bool(predicate())
            time.sleep(self.poll_interval)
        return True

    def _jump_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """The in-process target's autojump over HTTP: check, then jump to the next pending timer
        (``untilNextDeadline``, bounded by what is left of ``timeout``), until the predicate holds."""
        waited = 0.0
        while not predicate():
            left = timeout - waited
            if left <= 0:
                return False
            out = self.api.request("POST", CLOCK_PATH,
                                   body={"untilNextDeadline": True, "advance": _seconds(left)}).json()
            moved = float(out.get("advancedSeconds") or 0.0)
            if not out.get("met"):  # no timer before the bound: the clock stopped there
                return bool(predicate())
            if moved <= 0:  # a deadline at this very instant: make progress the old way
                moved = min(self.step, left)
                self.advance(moved)
            waited += moved
        return True

    # -- isolation ---------------------------------------------------------------------------------
    def sweep(self) -> None:
        """Delete the CronJobs, Jobs and Pods in this target's namespace (pods at once, finalizers
        dropped), and wait until they are gone."""
        for kind in SWEPT_KINDS:
            for obj in self.list(kind):
                name = obj["metadata"]["name"]
                if obj["metadata"].get("finalizers"):
                    try:
                        self.patch(kind, name, {"metadata": {"finalizers": None}})
                    except errors.NotFound:
                        continue
                self.delete(kind, name, propagation_policy="Background",
                            grace_period_seconds=0 if kind == "Pod" else None)
        gone = self.wait_for(lambda: not any(self.list(k) for k in SWEPT_KINDS), 30)
        if not gone:
            left = {k: [o["metadata"]["name"] for o in self.list(k)] for k in SWEPT_KINDS}
            raise RuntimeError(f"could not clean namespace {self.namespace}: {left}")

    def close(self) -> None:
        if self._own_namespace and self._namespace_ready:
            self.delete("Namespace", self.namespace, propagation_policy="Background")
        self.api.close()


def from_kubeconfig(path: str | None = None, context: str | None = None) -> HttpTarget:
    """The factory for ``KBATCH_CONFORMANCE_TARGET=conformance.http_target:from_kubeconfig``:
    ``$KUBECONFIG`` (or ``~/.kube/config``), its current context, ``KBATCH_CONFORMANCE_NAMESPACE``."""
    config = load_kubeconfig(path, context or os.environ.get("KBATCH_CONFORMANCE_CONTEXT") or None)
    return HttpTarget(config, namespace=os.environ.get("KBATCH_CONFORMANCE_NAMESPACE") or None)


make_target = from_kubeconfig


