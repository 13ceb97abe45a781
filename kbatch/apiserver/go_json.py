"""Go's words for a JSON value of the wrong type, as kube-apiserver and kubectl print them.

kube-apiserver decodes a body with sigs.k8s.io/json (Go's ``encoding/json`` decoder); a value of the
wrong JSON type is an ``UnmarshalTypeError`` (``encoding/json/decode.go``) whose text is::

    json: cannot unmarshal <value> into Go struct field <Struct>.<path> of type <type>

* ``<value>``: the JSON kind found (``object``, ``array``, ``string``, ``number``, ``bool``), or
  ``number 1.5`` for a number an integer field cannot hold (a fraction, out of range);
* ``<Struct>``: the Go struct that declares the field (``PodSpec``), ``<path>`` the JSON names from
  the top of the document, dots between, with neither list indexes nor map keys
  (``spec.containers.env.value``);
* ``<type>``: the Go type expected where the value was: the field's (``v1.JobSpec``,
  ``[]v1.Container``, ``map[string]string``, ``int32``), or the item's when an item of a list or a
  value of a map was wrong. A ``metav1.Time`` and an ``IntOrString`` decode through their own
  ``UnmarshalJSON``, whose inner decode is of a ``string`` and an ``int32``.

The API server wraps it (``transformDecodeError``, ``k8s.io/apiserver/pkg/endpoints/handlers/rest.go``):
``Job in version "v1" cannot be handled as a Job: json: cannot unmarshal string into Go struct field
Job.spec of type v1.JobSpec``; kubectl, which decodes ``metadata`` itself, prints
``unable to decode "FILE": json: …``. A body whose ``apiVersion``/``kind`` are not strings fails
earlier, in the type-meta sniffing (``runtime/serializer/json/meta.go``): ``couldn't get version/kind;
json parse error: json: cannot unmarshal array into Go struct field .kind of type string``.

:func:`type_error` maps one pydantic error of a kbatch model to that text (``None`` for errors that
are not about a JSON type: a bad quantity, an unknown field, a failed check). Locating an error and
spelling the text are :mod:`kbatch.api.go_unmarshal`'s, shared with Kueue's Configuration decoder;
naming k8s.io/api's Go types (``NAMED_STRINGS``, ``INT64_FIELDS``) is this module's.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from kbatch.api.go_unmarshal import (
    RANGE_ERRORS,
    TYPE_ERRORS,
    Spot,
    cannot_unmarshal,
    is_int_limit,
    is_model,
    is_union,
    json_kind,
    locate,
    unwrap,
    wire_fields,
)
from kbatch.apiserver.keys import BUILTIN_GROUPS

__all__ = ["NullRead", "cannot_unmarshal", "ignored_null", "json_kind", "type_error", "type_meta_error"]

# Go int64 fields of k8s.io/api (every other integer of the built-in kinds is an int32); kbatch's
# plain ``int`` annotations do not say which.
INT64_FIELDS = frozenset({
    "generation", "observedGeneration", "deletionGracePeriodSeconds", "activeDeadlineSeconds",
    "terminationGracePeriodSeconds", "tolerationSeconds", "runAsUser", "runAsGroup", "fsGroup",
    "supplementalGroups", "expirationSeconds", "startingDeadlineSeconds", "seconds", "uid", "gid",
    "resourceVersion", "gracePeriodSeconds",
})
_INT32_MAX = 2**31 - 1

# Named string types of k8s.io/api (``type PodPhase string``): Go names the type, not ``string``.
# (struct, field) → type; the same name for an item of a list field. Every other string is a string.
NAMED_STRINGS: dict[tuple[str, str], str] = {
    **{(s, "imagePullPolicy"): "PullPolicy" for s in ("Container", "EphemeralContainer")},
    **{(s, "restartPolicy"): "ContainerRestartPolicy" for s in ("Container", "EphemeralContainer")},
    **{(s, "terminationMessagePolicy"): "TerminationMessagePolicy"
       for s in ("Container", "EphemeralContainer")},
    **{(s, "protocol"): "Protocol" for s in ("ContainerPort", "ServicePort", "PortStatus")},
    ("ContainerResizePolicy", "resourceName"): "ResourceName",
    ("ContainerResizePolicy", "restartPolicy"): "ResourceResizeRestartPolicy",
    ("ContainerRestartRule", "action"): "ContainerRestartRuleAction",
    ("ContainerRestartRuleOnExitCodes", "operator"): "ContainerRestartRuleOnExitCodesOperator",
    ("PodSpec", "restartPolicy"): "RestartPolicy",
    ("PodSpec", "dnsPolicy"): "DNSPolicy",
    ("PodSpec", "preemptionPolicy"): "PreemptionPolicy",
    ("PriorityClass", "preemptionPolicy"): "PreemptionPolicy",
    ("PodStatus", "phase"): "PodPhase",
    ("NodeStatus", "phase"): "NodePhase",
    ("NamespaceStatus", "phase"): "NamespacePhase",
    ("NamespaceSpec", "finalizers"): "FinalizerName",
    ("PodCondition", "type"): "PodConditionType",
    ("PodReadinessGate", "conditionType"): "PodConditionType",
    ("PodFailurePolicyOnPodConditionsPattern", "type"): "PodConditionType",
    ("NodeCondition", "type"): "NodeConditionType",
    ("NamespaceCondition", "type"): "NamespaceConditionType",
    ("JobCondition", "type"): "JobConditionType",
    **{(s, "status"): "ConditionStatus" for s in ("PodCondition", "NodeCondition", "NamespaceCondition",
                                                  "JobCondition", "Condition",
                                                  "PodFailurePolicyOnPodConditionsPattern")},
    ("NodeAddress", "type"): "NodeAddressType",
    ("NodeSelectorRequirement", "operator"): "NodeSelectorOperator",
    ("LabelSelectorRequirement", "operator"): "LabelSelectorOperator",
    ("Taint", "effect"): "TaintEffect",
    ("Toleration", "effect"): "TaintEffect",
    ("Toleration", "operator"): "TolerationOperator",
    ("TopologySpreadConstraint", "whenUnsatisfiable"): "UnsatisfiableConstraintAction",
    ("TopologySpreadConstraint", "nodeAffinityPolicy"): "NodeInclusionPolicy",
    ("TopologySpreadConstraint", "nodeTaintsPolicy"): "NodeInclusionPolicy",
    ("PodSecurityContext", "fsGroupChangePolicy"): "PodFSGroupChangePolicy",
    ("HTTPGetAction", "scheme"): "URIScheme",
    ("HostPathVolumeSource", "type"): "HostPathType",
    ("SeccompProfile", "type"): "SeccompProfileType",
    ("AppArmorProfile", "type"): "AppArmorProfileType",
    ("VolumeMount", "mountPropagation"): "MountPropagationMode",
    ("ServiceSpec", "type"): "ServiceType",
    ("ServiceSpec", "sessionAffinity"): "ServiceAffinity",
    ("ServiceSpec", "externalTrafficPolicy"): "ServiceExternalTrafficPolicy",
    ("ServiceSpec", "internalTrafficPolicy"): "ServiceInternalTrafficPolicy",
    ("ServiceSpec", "ipFamilyPolicy"): "IPFamilyPolicy",
    ("LoadBalancerIngress", "ipMode"): "LoadBalancerIPMode",
    ("JobSpec", "completionMode"): "CompletionMode",
    ("JobSpec", "podReplacementPolicy"): "PodReplacementPolicy",
    ("PodFailurePolicyRule", "action"): "PodFailurePolicyAction",
    ("PodFailurePolicyOnExitCodesRequirement", "operator"): "PodFailurePolicyOnExitCodesOperator",
    ("CronJobSpec", "concurrencyPolicy"): "ConcurrencyPolicy",
    ("PodDisruptionBudgetSpec", "unhealthyPodEvictionPolicy"): "UnhealthyPodEvictionPolicyType",
}

_ANY_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string ' \
              '"json:\\"kind,omitempty\\"" }'


def type_meta_error(body: Any) -> str | None:
    """The type-meta sniffing error for a body that is not an object or whose ``apiVersion`` /
    ``kind`` is not a string (``None`` when the body passes it)."""
    if not isinstance(body, dict):
        return f"couldn't get version/kind; json parse error: json: cannot unmarshal {json_kind(body)} " \
               f"into Go value of type {_ANY_STRUCT}"
    for name in ("apiVersion", "kind"):
        value = body.get(name)
        if value is not None and not isinstance(value, str):
            error = cannot_unmarshal(value, "", name, "string")
            return f"couldn't get version/kind; json parse error: {error}"
    return None


def type_error(model: type[BaseModel], error: ErrorDetails, *, struct: str | None = None,
               prefix: tuple[str, ...] = ()) -> str | None:
    """Go's text for a pydantic ``error`` raised validating ``model``, or ``None`` when the error is
    not a JSON type mismatch. ``struct``/``prefix``: the Go struct and JSON path of ``model`` itself
    when it is decoded as a field of something else (kubectl decodes ``metadata`` alone)."""
    spot = locate(model, tuple(error.get("loc") or ()), struct, prefix)
    if spot is None or not spot.path or ignored_null(model, error):
        return None
    value = error.get("input")
    kind = error.get("type", "")
    expected = spot.expected
    integer = expected is int
    if kind in RANGE_ERRORS:
        if not (integer and is_int_limit(error.get("ctx") or {})):
            return None
    elif kind == "value_error":
        if expected is not datetime or isinstance(value, str):
            return None
    elif kind not in TYPE_ERRORS:
        return None
    go_type = _spot_type(spot)
    return cannot_unmarshal(value, spot.struct, ".".join(spot.path), go_type, integer=integer)


@dataclass(frozen=True, slots=True)
class NullRead:
    """What Go's decoder makes of a JSON ``null`` it does not refuse: the key dropped (a field of a
    struct reads as absent), or ``zero`` stored in its place (a map value or list item)."""

    drop: bool
    zero: Any = None


def ignored_null(model: type[BaseModel], error: ErrorDetails) -> NullRead | None:
    """What Go's decoder makes of ``error`` when it is a JSON ``null`` it does not refuse (``None``
    for anything else): a field of a struct reads as absent; a value of a map or an item of a list
    is the element type's zero value (``""``, ``0``, ``false``, a zero struct, a zero quantity ``0``).

    ``encoding/json`` (``decode.go`` ``literalStore``, and sigs.k8s.io/json, its fork that
    kube-apiserver decodes with) sets a pointer, map, slice or interface to nil on ``null`` and leaves
    any other value as it was: ``spec: null`` or ``name: null`` decodes as if the field were absent,
    never as a type error (the zero value then meets validation: ``Required value``). A map's value
    and a list's item are decoded into a fresh zero element (``decode.go`` ``object`` and ``array``),
    so ``labels: {a: null}`` stores ``a: ""`` and ``args: [a, null]`` stores ``[a, ""]``; a
    ``resource.Quantity`` decodes ``null`` through its own ``UnmarshalJSON`` (apimachinery
    ``pkg/api/resource/quantity.go``) as the zero quantity, so ``requests: {cpu: null}`` stores
    ``cpu: "0"``. A custom resource is pruned by apiextensions-apiserver instead
    (``pkg/apiserver/schema/defaulting/prunenulls.go``): a ``null`` property is removed, but an item of
    a list is not pruned and fails the schema, so kbatch still refuses a ``null`` item there.
    """
    loc = tuple(error.get("loc") or ())
    if error.get("input", ...) is not None or not loc:
        return None
    kind = error.get("type")
    if kind not in TYPE_ERRORS and kind != "value_error":
        return None
    parent = locate(model, loc[:-1], None, ())
    if parent is None:
        return None
    if is_model(parent.expected):
        known = isinstance(loc[-1], str) and loc[-1] in wire_fields(parent.expected)
        return NullRead(drop=True) if known and kind != "value_error" else None
    origin = typing.get_origin(parent.expected)
    is_item = origin is list and isinstance(loc[-1], int)
    if not (is_item or (origin is dict and isinstance(loc[-1], str))):
        return None
    info = getattr(model, "api_info", None)
    if is_item and info is not None and info.group not in BUILTIN_GROUPS:
        return None
    zero = _zero(typing.get_args(parent.expected)[-1])
    return None if zero is None else NullRead(drop=False, zero=zero)


def _zero(tp: Any) -> Any:
    """The wire form of Go's zero value of a list item or map value type (``None``: not modelled)."""
    tp = unwrap(tp, ())[0]
    if is_model(tp):
        return {}
    if getattr(tp, "__name__", "") == "Quantity":
        return "0"
    simple: dict[Any, Any] = {str: "", int: 0, float: 0.0, bool: False}
    return simple.get(tp)


def _spot_type(spot: Spot) -> str:
    """The type Go names at the spot: a Time and an IntOrString decode through their own
    ``UnmarshalJSON``, whose inner decode targets a string and an int32."""
    tp = spot.expected
    if tp is datetime:
        return "string"
    if is_union(tp):
        return "int32"
    if tp is int:
        return _int_type(spot.path[-1], spot.metadata)
    return _go_name(tp, spot.path[-1], spot.struct)


def _int_type(field: str, metadata: tuple[Any, ...]) -> str:
    for item in metadata:
        bound = getattr(item, "le", None)
        if isinstance(bound, int):
            return "int32" if bound == _INT32_MAX else "int64"
    return "int64" if field in INT64_FIELDS else "int32"


def _go_name(tp: Any, field: str, struct: str) -> str:
    tp, meta = unwrap(tp, ())
    if is_model(tp):
        return f"v1.{tp.__name__}"
    if is_union(tp):
        return "intstr.IntOrString"
    origin = typing.get_origin(tp)
    if origin is list:
        return "[]" + _go_name(typing.get_args(tp)[0], field, struct)
    if origin is dict:
        return "map[string]" + _go_name(typing.get_args(tp)[1], field, struct)
    if tp is int:
        return _int_type(field, meta)
    if tp is str and (struct, field) in NAMED_STRINGS:
        return f"v1.{NAMED_STRINGS[struct, field]}"
    simple = {str: "string", bool: "bool", float: "float64", datetime: "v1.Time"}
    if tp in simple:
        return simple[tp]
    if getattr(tp, "__name__", "") == "Quantity":
        return "resource.Quantity"
    return "interface {}"
