"""Binding a pod to a node: what the ``pods/binding`` subresource does upstream.

Upstream ``pkg/registry/core/pod/storage/storage.go`` (``BindingREST.Create`` → ``assignPod`` →
``setPodHostAndAnnotations``): a guaranteed update of the stored pod, *not* a pod update through
the pod strategy (which forbids changing ``spec.nodeName``). It fails with Conflict when the pod is
being deleted ("pod <name> is being deleted, cannot be assigned to a host") or already bound
("pod <name> is already assigned to node \"<node>\""), sets ``spec.nodeName`` and the condition
``PodScheduled=True``, all in one write.

kbatch's API server has no ``pods/binding`` yet, so this module performs that storage update itself
through the server's store (a transaction guarded by the pod's mod revision, retried on a race).
When the API server gains the subresource, :func:`bind_pod` becomes one client call.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import Conflict
from kbatch.apiserver.codec import encode
from kbatch.apiserver.update import MAX_RETRIES, read_current
from kbatch.store.kv import Compare, PutOp

__all__ = ["bind_pod"]


def _scheduled(pod: Any, now: str) -> None:
    from kbatch.api.core_v1 import PodCondition, PodStatus

    status = pod.status if pod.status is not None else PodStatus()
    pod.status = status
    conditions = [c for c in status.conditions or () if c.type != "PodScheduled"]
    old = status.condition("PodScheduled")
    since = old.last_transition_time if old is not None and old.status == "True" else None
    conditions.append(PodCondition.model_validate(
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": since or now}))
    status.conditions = conditions


def bind_pod(server: Any, namespace: str, name: str, node: str, now: str) -> None:
    """Set ``spec.nodeName`` and ``PodScheduled=True`` in one guarded store write."""
    from kbatch.api.core_v1 import Pod

    kind = server.kind(Pod)
    for _ in range(MAX_RETRIES):
        current = read_current(server, kind, namespace, name)
        pod = current.obj
        if pod.metadata.deletion_timestamp is not None:
            raise Conflict(f"Operation cannot be fulfilled on pods/binding \"{name}\": pod {name} is being "
                           "deleted, cannot be assigned to a host")
        if pod.spec.node_name:
            raise Conflict(f"Operation cannot be fulfilled on pods/binding \"{name}\": pod {name} is already "
                           f"assigned to node \"{pod.spec.node_name}\"")
        pod.spec.node_name = node
        _scheduled(pod, now)
        pod.metadata.resource_version = None
        guard = [Compare.mod_revision(current.kv.key, "=", current.kv.mod_revision)]
        if server.store.txn(guard, [PutOp(current.kv.key, encode(pod))]).succeeded:
            return
    raise Conflict(f"Operation cannot be fulfilled on pods/binding \"{name}\": too many concurrent updates")
