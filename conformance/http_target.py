"""The HTTP :class:`~conformance.target.Target`: any Kubernetes API server, reached through a kubeconfig.

It speaks only the Kubernetes REST API (discovery, resource paths, the ``status`` subresource, the
three PATCH types, DeleteOptions), plus kbatch's clock extension
(``/apis/kbatch.dev/v1alpha1/clock``, see docs/serve.md) when the server offers one:

* **Virtual clock** (``kbatch serve --clock virtual``): the ``virtual-clock`` capability; ``now`` reads
  the clock, ``advance``/``settle`` post to it, and ``wait_for`` jumps deadline to deadline, as the
  in-process target does: it checks the predicate, then posts ``{"untilNextDeadline": true,
  "advance": <time left>}`` (the clock moves to the next pending timer and fires it, or stops at
  the bound), until the predicate holds or the time is up. Against a server whose clock reports no
  ``nextDeadline`` it advances in steps of ``step`` seconds (1 s) instead.
  The server already settles after every write, as the in-process target does.
* **No virtual clock** (a real cluster, or ``--clock real``): ``now`` is the server's clock (the
  extension's, else the ``Date`` header of a ``/version`` answer); ``wait_for`` polls in real time
  for as long as the check allows (its bound comes from the semantic, :mod:`conformance.timing`);
  checks marked ``needs_virtual_clock`` are skipped.

``apply`` is client-side apply (:mod:`conformance.client_apply`). Failures raise
:mod:`conformance.errors` (``NotFound``, ``Invalid``, …), whose ``code``/``reason``/``message``
match the kbatch errors the in-process target raises.

Capabilities: ``virtual-clock`` as above; ``faults`` on a kbatch server (the clock extension is
there, and with it ``POST /apis/kbatch.dev/v1alpha1/actions/NAME``); ``kubelet`` on a server without
the clock extension (a real cluster: its nodes run pods) and, on a kbatch server, when it has a
Ready Node; ``feature-gate:<Name>`` for each alpha gate the server's ``/metrics`` reports on
(``kubernetes_feature_enabled``; none when ``/metrics`` cannot be read) — so serve the
status-patching checks from a ``kbatch serve --controllers job,cronjob`` without nodes, and the
real-pod checks from one with its default controllers and nodes.

Namespaces are the suite's business (:mod:`conformance.isolation`): every call names one, and the
target writes nothing else.
"""

from __future__ import annotations

import contextlib
import email.utils
import os
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ruamel.yaml import YAML

from conformance import errors
from conformance.client_apply import apply_patch, with_last_applied
from conformance.http_client import PATCH_TYPES, ApiClient
from conformance.kubeconfig import ClusterConfig, load_kubeconfig
from conformance.target import FAULTS, KUBELET, KUEUE, VIRTUAL_CLOCK, Obj, feature_gate

__all__ = ["ACTIONS_PATH", "CLOCK_PATH", "HttpTarget", "from_kubeconfig", "make_target"]

CLOCK_PATH = "/apis/kbatch.dev/v1alpha1/clock"
KUEUE_API = "kueue.x-k8s.io/v1beta2"
ACTIONS_PATH = "/apis/kbatch.dev/v1alpha1/actions"
_FEATURE_SERIES = re.compile(r'^kubernetes_feature_enabled\{name="([^"]+)",stage="([^"]*)"\} (\S+)$', re.M)


def _seconds(value: float) -> str:
    return f"{float(value):.6f}".rstrip("0").rstrip(".") + "s"


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class HttpTarget:
    """A Target over the Kubernetes REST API. ``max_wait`` (seconds) caps every real-time wait on top
    of the bound the check derives (None: no cap)."""

    def __init__(self, config: ClusterConfig, *, step: float = 1.0, max_wait: float | None = None,
                 poll_interval: float = 0.5, timeout: float = 30.0) -> None:
        self.api = ApiClient(config, timeout=timeout)
        self.step, self.max_wait, self.poll_interval = step, max_wait, poll_interval
        clock = self._clock()
        self._has_clock = clock is not None
        self._deadline_jumps = bool(clock and "nextDeadline" in clock)  # kbatch serve ≥ untilNextDeadline
        virtual = bool(clock and clock.get("virtual"))
        kubelet = not self._has_clock or self._ready_nodes() > 0
        self.capabilities = frozenset({VIRTUAL_CLOCK} if virtual else set()) | (
            {FAULTS} if self._has_clock else set()) | ({KUBELET} if kubelet else set()) | (
            {KUEUE} if self._serves(KUEUE_API) else set()) | {feature_gate(g) for g in self._alpha_gates_on()}
        self.kubernetes_version = self._server_version()
        mode = "virtual clock" if virtual else "no virtual clock"
        pods = ", pods run by nodes" if kubelet else ""
        self.description = f"HTTP {config.server} ({mode}{pods})"

    @property
    def has_virtual_clock(self) -> bool:
        return VIRTUAL_CLOCK in self.capabilities

    # -- plumbing ----------------------------------------------------------------------------------
    def _clock(self) -> Obj | None:
        try:
            return self.api.get_json(CLOCK_PATH)
        except (errors.NotFound, errors.Forbidden, errors.MethodNotAllowed):
            return None

    def _serves(self, group_version: str) -> bool:
        """Whether discovery lists ``group_version`` (Kueue installed: its API is served)."""
        try:
            self.api.get_json(f"/apis/{group_version}")
        except (errors.NotFound, errors.Forbidden):
            return False
        return True

    def _alpha_gates_on(self) -> list[str]:
        """The alpha feature gates ``GET /metrics`` reports on: its ``kubernetes_feature_enabled``
        series (k8s.io/component-base featuregate metrics) with ``stage="ALPHA"`` and value 1."""
        try:
            text = self.api.request("GET", "/metrics").text
        except errors.TargetError:
            return []
        return sorted(m.group(1) for m in _FEATURE_SERIES.finditer(text)
                      if m.group(2) == "ALPHA" and float(m.group(3)) == 1)

    def _ready_nodes(self) -> int:
        """How many Nodes report ``Ready=True`` (0 when Nodes cannot be listed)."""
        try:
            nodes = self.list("Node")
        except (errors.Forbidden, errors.NotFound):
            return 0
        return sum(1 for n in nodes for c in (n.get("status") or {}).get("conditions") or ()
                   if c.get("type") == "Ready" and c.get("status") == "True")

    def _server_version(self) -> str | None:
        """``gitVersion`` of ``GET /version`` (None when the server does not answer it)."""
        try:
            return self.api.get_json("/version").get("gitVersion")
        except (errors.TargetError, ValueError):
            return None

    def _resource(self, kind: str, api_version: str | None = None) -> Any:
        return self.api.discovery.resolve(kind, api_version)

    # -- Target: objects ---------------------------------------------------------------------------
    def create(self, manifest: Obj, namespace: str = "default") -> Obj:
        res = self._resource(manifest["kind"], manifest.get("apiVersion"))
        body = {**manifest, "metadata": dict(manifest.get("metadata") or {})}
        ns = body["metadata"].get("namespace") or namespace
        if res.namespaced:
            body["metadata"]["namespace"] = ns
        return self.api.request("POST", res.path(ns), body=body).json()

    def apply(self, manifest: Obj | str, namespace: str = "default") -> Obj:
        if isinstance(manifest, str):
            docs = [d for d in YAML(typ="safe").load_all(manifest) if d]
        else:
            docs = [manifest]
        applied = [self._apply_one(doc, namespace) for doc in docs]
        return applied[0]

    def _apply_one(self, manifest: Obj, namespace: str) -> Obj:
        res = self._resource(manifest["kind"], manifest.get("apiVersion"))
        body = with_last_applied(manifest)
        body.pop("status", None)
        ns = (body.get("metadata") or {}).get("namespace") or namespace
        if res.namespaced:
            body["metadata"]["namespace"] = ns
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
            return self.api.get_json(self._resource(kind).path(namespace, name))
        except errors.NotFound:
            return None

    def list(self, kind: str, namespace: str = "default", label_selector: str | None = None) -> list[Obj]:
        res = self._resource(kind)
        items: list[Obj] = []
        params: dict[str, Any] = {"labelSelector": label_selector, "limit": 500}
        while True:
            page = self.api.request("GET", res.path(namespace), params=params).json()
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
        path = self._resource(kind).path(namespace, name, subresource)
        return self.api.request("PATCH", path, body=patch, content_type=PATCH_TYPES[patch_type]).json()

    def delete(self, kind: str, name: str, namespace: str = "default",
               propagation_policy: str | None = None, grace_period_seconds: int | None = None) -> None:
        options: Obj = {"apiVersion": "v1", "kind": "DeleteOptions"}
        if propagation_policy:
            options["propagationPolicy"] = propagation_policy
        if grace_period_seconds is not None:
            options["gracePeriodSeconds"] = grace_period_seconds
        with contextlib.suppress(errors.NotFound):
            self.api.request("DELETE", self._resource(kind).path(namespace, name), body=options)

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
        deadline = time.monotonic() + (timeout if self.max_wait is None else min(timeout, self.max_wait))
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

    # -- faults ------------------------------------------------------------------------------------------
    def fault(self, name: str, args: Obj) -> Obj:
        """kbatch serve's fault command ``name`` (``POST …/actions/NAME``); only with ``faults``."""
        if FAULTS not in self.capabilities:
            raise errors.NotFound(f"{self.api.config.server} offers no fault commands (not a kbatch server)")
        return self.api.request("POST", f"{ACTIONS_PATH}/{name}", body=args).json()

    def close(self) -> None:
        self.api.close()


def from_kubeconfig(path: str | None = None, context: str | None = None) -> HttpTarget:
    """The factory for ``KBATCH_CONFORMANCE_TARGET=conformance.http_target:from_kubeconfig``:
    ``$KUBECONFIG`` (or ``~/.kube/config``) and its current context, or ``KBATCH_CONFORMANCE_CONTEXT``."""
    return HttpTarget(load_kubeconfig(path, context or os.environ.get("KBATCH_CONFORMANCE_CONTEXT") or None))


make_target = from_kubeconfig


