"""Zero ``metav1.Time`` values as Go writes them: ``null``, on the wire only.

A ``metav1.Time`` held by value (not ``*metav1.Time``) under ``json:",omitempty"`` is a struct, which
encoding/json never omits; an unset one marshals as ``null`` (``Time.MarshalJSON``,
k8s.io/apimachinery ``pkg/apis/meta/v1/time.go``). That is why a 1.37 API server answers every pod
condition with ``"lastProbeTime":null`` (``PodCondition.LastProbeTime``, k8s.io/api
``core/v1/types.go``) and ``kubectl get pod -o yaml`` prints ``lastProbeTime: null``. Fields that
carry ``omitzero`` too (``ObjectMeta.CreationTimestamp`` since Go 1.24's encoding/json learnt it, so
no more ``creationTimestamp: null`` in pod templates) and pointers (``*metav1.Time``: a Job's
``startTime``) are left out when unset, as kbatch's models already do.

kbatch stores ``None`` as absent (``KubeModel.to_dict``), which keeps the stored bytes and the
decoded objects small; the nulls are put back only where an object leaves as JSON or YAML (the HTTP
responses and watch events of ``kbatch serve``, the CLI's ``-o json|yaml``), by
:func:`with_zero_times`. Keys are inserted where the model declares them, so the JSON keeps Go's
field order.

The fields, from k8s.io/api 1.37 (``core/v1``, ``batch/v1``; every by-value ``metav1.Time`` and
``metav1.MicroTime`` with ``omitempty`` and no ``omitzero`` in a kind kbatch serves): PodCondition,
JobCondition and PersistentVolumeClaimCondition ``lastProbeTime``/``lastTransitionTime``;
NodeCondition ``lastHeartbeatTime``/``lastTransitionTime``; NamespaceCondition
``lastTransitionTime``; ContainerStateRunning ``startedAt``; ContainerStateTerminated
``startedAt``/``finishedAt``; Event ``firstTimestamp``/``lastTimestamp``/``eventTime`` and
EventSeries ``lastObservedTime``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["with_zero_times"]

Obj = dict[str, Any]

# A path is a tuple of steps into the object ("[]": each element of a list), ending at a struct;
# the struct's Go field order (its JSON keys, as declared) and the keys to write as null.
_Struct = tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]

_CONDITION = ("type", "observedGeneration", "status", "lastProbeTime", "lastTransitionTime", "reason",
              "message")
_PROBED = frozenset({"lastProbeTime", "lastTransitionTime"})
_RUNNING = ("startedAt",)
_TERMINATED = ("exitCode", "signal", "reason", "message", "startedAt", "finishedAt", "containerID")
_EVENT = ("kind", "apiVersion", "metadata", "involvedObject", "reason", "message", "source",
          "firstTimestamp", "lastTimestamp", "count", "type", "eventTime", "series", "action", "related",
          "reportingComponent", "reportingInstance")


def _container_states() -> tuple[_Struct, ...]:
    out: list[_Struct] = []
    for statuses in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"):
        for state in ("state", "lastState"):
            base = ("status", statuses, "[]", state)
            out.append(((*base, "running"), _RUNNING, frozenset(_RUNNING)))
            out.append(((*base, "terminated"), _TERMINATED, frozenset({"startedAt", "finishedAt"})))
    return tuple(out)


_TABLE: Mapping[tuple[str, str], tuple[_Struct, ...]] = {
    ("v1", "Pod"): ((("status", "conditions", "[]"), _CONDITION, _PROBED), *_container_states()),
    ("batch/v1", "Job"): ((("status", "conditions", "[]"), _CONDITION, _PROBED),),
    ("v1", "PersistentVolumeClaim"): ((("status", "conditions", "[]"), _CONDITION, _PROBED),),
    ("v1", "Node"): ((("status", "conditions", "[]"),
                      ("type", "status", "lastHeartbeatTime", "lastTransitionTime", "reason", "message"),
                      frozenset({"lastHeartbeatTime", "lastTransitionTime"})),),
    ("v1", "Namespace"): ((("status", "conditions", "[]"), ("type", "status", "lastTransitionTime",
                                                            "reason", "message"),
                           frozenset({"lastTransitionTime"})),),
    ("v1", "Event"): (((), _EVENT, frozenset({"firstTimestamp", "lastTimestamp", "eventTime"})),
                      (("series",), ("count", "lastObservedTime"), frozenset({"lastObservedTime"}))),
}


class _Leaf:
    """A struct to fill: its Go field order and the keys written as null when absent."""

    __slots__ = ("later", "null_order", "nulls")

    def __init__(self, order: tuple[str, ...], nulls: frozenset[str]) -> None:
        self.nulls = nulls
        self.null_order = tuple(key for key in order if key in nulls)
        # each null key goes before the first present key Go declares after it
        self.later = {key: frozenset(order[order.index(key) + 1:]) for key in self.null_order}


# A tree per kind: a dict step -> subtree, "[]" for each element of a list, a _Leaf where a struct is
# filled (a subtree may hold its own "" leaf and deeper steps: the Event's series).
_Tree = dict[str, Any]


def _tree(structs: tuple[_Struct, ...]) -> _Tree:
    root: _Tree = {}
    for path, order, nulls in structs:
        node = root
        for step in path:
            node = node.setdefault(step, {})
        node[""] = _Leaf(order, nulls)
    return root


_TREES: Mapping[tuple[str, str], _Tree] = {key: _tree(structs) for key, structs in _TABLE.items()}


def with_zero_times(obj: Obj) -> Obj:
    """``obj`` (an object or a list of them, as served) with its unset by-value times as ``None``.
    Returns ``obj`` itself when there is nothing to add; never changes ``obj`` or what it holds."""
    kind = obj.get("kind")
    if not isinstance(kind, str):
        return obj
    version = obj.get("apiVersion")
    items = obj.get("items")
    if kind.endswith("List") and isinstance(items, list):
        item_kind = kind[:-4]
        new_items = [_one(item, version, item_kind) for item in items]
        if any(new is not old for new, old in zip(new_items, items, strict=True)):
            return {**obj, "items": new_items}
        return obj
    return _one(obj, version, kind)


def _one(obj: Any, version: Any, kind: str) -> Any:
    if not isinstance(obj, dict):
        return obj
    tree = _TREES.get((obj.get("apiVersion", version), obj.get("kind", kind)))
    return obj if tree is None else _walk(obj, tree)


def _walk(value: Any, tree: _Tree) -> Any:
    """``value`` with every struct ``tree`` reaches filled; shares whatever it does not change."""
    if isinstance(value, list):
        each = tree.get("[]")
        if each is None:
            return value
        new = [_walk(v, each) for v in value]
        return new if any(n is not v for n, v in zip(new, value, strict=True)) else value
    if not isinstance(value, dict):
        return value
    out = value
    for step, sub in tree.items():
        if step == "":
            out = _filled(out, sub)
        elif step in out:
            inner = _walk(out[step], sub)
            if inner is not out[step]:
                out = {**out, step: inner}
    return out


def _filled(struct: Obj, leaf: _Leaf) -> Obj:
    """The struct with its missing ``nulls`` as ``None``, each placed before the first present key
    that Go declares after it; the present keys keep their order."""
    if leaf.nulls <= struct.keys():
        return struct
    items = list(struct.items())
    for key in leaf.null_order:
        if key in struct:
            continue
        later = leaf.later[key]
        at = next((i for i, (k, _) in enumerate(items) if k in later), len(items))
        items.insert(at, (key, None))
    return dict(items)
