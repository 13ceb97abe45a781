"""The ``pods/binding`` subresource: assign a pending pod to a node in one write.

Upstream ``pkg/registry/core/pod/storage/storage.go`` (``BindingREST.Create`` → ``assignPod`` →
``setPodNodeAndMetadata``) is a guaranteed update of the stored pod that bypasses the pod strategy
(which forbids changing ``spec.nodeName``):

* the pod is the one the Binding's ``metadata.name`` names (upstream also checks it against the name
  in the URL, which has no counterpart in this in-process call); ``target.kind`` must be empty or
  ``Node`` and ``target.name`` is required (``ValidatePodBinding``);
* ``metadata.uid`` / ``metadata.resourceVersion`` of the Binding are storage preconditions on the pod
  (``Conflict``: ``Operation cannot be fulfilled on pods "p": Precondition failed: UID in
  precondition: a, UID in object meta: b``);
* a pod being deleted, already bound or carrying scheduling gates is a ``Conflict`` on ``pods/binding``
  (``pod p is being deleted, cannot be assigned to a host``, ``pod p is already assigned to node
  "n"``, ``pod p has non-empty .spec.schedulingGates``);
* otherwise ``spec.nodeName`` is set, the Binding's annotations are copied onto the pod and the
  ``PodScheduled`` condition becomes ``True`` (replaced in place; ``lastTransitionTime`` = now unless
  it was already True — podutil ``UpdatePodCondition``), all in one transaction guarded by the pod's
  mod revision and retried if the pod changed in between.

kbatch difference: a bad target is ``Invalid`` (422) on the Binding; upstream returns the aggregate
validation error unwrapped, which its handler reports as a 500.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo
from kbatch.api.core_v1 import Pod, PodCondition, PodStatus
from kbatch.api.core_v1.common import ObjectReference
from kbatch.api.errors import BadRequest, Conflict, FieldError, Invalid
from kbatch.api.meta import Resource
from kbatch.api.model_copy import copy_model, shallow_copy
from kbatch.apiserver.codec import encode
from kbatch.apiserver.update import MAX_RETRIES, object_namespace, read_for_update
from kbatch.store.records import make_compare, make_put

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["Binding", "bind_pod"]


class Binding(Resource):
    """core/v1 Binding: ``metadata`` names the pod (and may pin its uid), ``target`` the node."""

    api_info: ClassVar[ApiInfo] = ApiInfo(group="", version="v1", kind="Binding", plural="bindings",
                                          namespaced=True, subresources=())

    target: ObjectReference = Field(default_factory=ObjectReference)


def _validate(binding: Binding) -> None:
    errors: list[FieldError] = []
    kind = binding.target.kind
    if kind and kind != "Node":
        errors.append(FieldError.not_supported("target.kind", kind, ["Node", "<empty>"]))
    if not binding.target.name:
        errors.append(FieldError.required("target.name"))
    if errors:
        raise Invalid.of("Binding", binding.name, errors)


def _conflict(name: str, reason: str) -> Conflict:
    return Conflict.of("pods/binding", name, reason)


def _check_preconditions(binding: Binding, pod: Pod, mod_revision: int) -> None:
    meta, name = binding.metadata, binding.name
    if meta.uid and meta.uid != pod.metadata.uid:
        raise Conflict.of("pods", name, f"Precondition failed: UID in precondition: {meta.uid}, UID in "
                          f"object meta: {pod.metadata.uid}")
    if meta.resource_version and meta.resource_version != str(mod_revision):
        raise Conflict.of("pods", name, f"Precondition failed: ResourceVersion in precondition: "
                          f"{meta.resource_version}, ResourceVersion in object meta: {mod_revision}")


def _assign(server: APIServer, pod: Pod, binding: Binding) -> None:
    name = pod.name
    if pod.metadata.deletion_timestamp is not None:
        raise _conflict(name, f"pod {name} is being deleted, cannot be assigned to a host")
    if pod.spec.node_name:
        raise _conflict(name, f'pod {name} is already assigned to node "{pod.spec.node_name}"')
    if pod.spec.scheduling_gates:
        raise _conflict(name, f"pod {name} has non-empty .spec.schedulingGates")
    pod.spec.node_name = binding.target.name
    if binding.metadata.annotations:
        pod.metadata.annotations = {**(pod.metadata.annotations or {}), **binding.metadata.annotations}
    _set_scheduled(server, pod)


def _set_scheduled(server: APIServer, pod: Pod) -> None:
    status = pod.status if pod.status is not None else PodStatus()
    pod.status = status
    conditions = list(status.conditions or ())
    for i, old in enumerate(conditions):
        if old.type == "PodScheduled":
            since = old.last_transition_time if old.status == "True" else server.timestamp()
            conditions[i] = PodCondition(type="PodScheduled", status="True", last_transition_time=since)
            break
    else:
        conditions.append(PodCondition(type="PodScheduled", status="True",
                                       last_transition_time=server.timestamp()))
    status.conditions = conditions


def _to_bind(pod: Pod, owned: bool) -> Pod:
    """The pod the binding changes: ``pod`` itself when it is this write's own decode, else new
    metadata, spec and status objects over the stored pod's read-only parts (the binding assigns
    ``nodeName``, the annotations and the conditions list, and changes nothing in place below them), so
    the written pod shares those parts with the stored one, as a status write shares its spec
    (``update.prepare_update``), instead of deep-copying the whole pod."""
    if owned:
        return pod
    out = shallow_copy(pod)
    out.metadata = shallow_copy(pod.metadata)
    out.spec = shallow_copy(pod.spec)
    if pod.status is not None:
        out.status = shallow_copy(pod.status)
    return out


def bind_pod(server: APIServer, binding: Binding, namespace: str | None = None, *,
             dry_run: bool = False) -> Pod:
    """Bind the pod ``binding.metadata.name`` to ``binding.target.name``; returns the bound pod."""
    kind = server.kind(Pod)
    if binding.metadata.namespace and namespace and binding.metadata.namespace != namespace:
        raise BadRequest("the namespace of the provided object does not match the namespace sent on the "
                         "request")
    namespace = object_namespace(kind, binding.metadata.namespace or namespace)
    _validate(binding)
    for _ in range(MAX_RETRIES):
        current = read_for_update(server, kind, namespace, binding.name)
        pod = _to_bind(current.obj, current.owned)  # type: ignore[arg-type]
        _check_preconditions(binding, pod, current.kv.mod_revision)
        _assign(server, pod, binding)
        if dry_run:
            return pod if current.owned else copy_model(pod)  # handed out unfrozen: shares nothing
        pod.metadata.resource_version = None
        guard = [make_compare(current.kv.key, "mod", "=", current.kv.mod_revision)]
        data = encode(pod)
        result = server.store.txn(guard, [make_put(current.kv.key, data)])
        if result.succeeded:
            return server.decoded.written(kind.model, current.kv.key, result.revision, data, pod)  # type: ignore[return-value]
    raise Conflict.stale("pods", binding.name)
