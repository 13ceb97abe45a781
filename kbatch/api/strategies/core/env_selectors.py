"""The downward-API selectors ``fieldRef`` and ``resourceFieldRef`` (of an env var's ``valueFrom``
and of a downwardAPI volume's files).

Upstream: kubernetes ``pkg/apis/core/validation/validation.go`` (``validateObjectFieldSelector``,
``validateContainerResourceFieldSelector``, ``validateContainerResourceDivisor``), with the field
label conversion of ``pkg/apis/core/pods/helpers.go`` (``ConvertDownwardAPIFieldLabel``) and
``pkg/fieldpath`` (``SplitMaybeSubscriptedPath``). A path is first converted as the v1 Pod's field
labels allow (an unknown label or apiVersion is Invalid, "error converting fieldPath: ..."), then
checked against the paths env vars may name (NotSupported); a ``metadata.labels['k']`` /
``metadata.annotations['k']`` subscript must be a qualified name (annotations case-insensitively).
"""

from __future__ import annotations

from kbatch.api.core_v1 import ObjectFieldSelector, ResourceFieldSelector
from kbatch.api.errors import FieldError
from kbatch.api.validation import child, is_qualified_name

__all__ = ["ENV_FIELD_PATHS", "VOLUME_FIELD_PATHS", "field_selector_errors", "resource_selector_errors"]

ENV_FIELD_PATHS = ["metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
                   "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP",
                   "status.podIPs"]
# validVolumeDownwardAPIFieldPathExpressions: what a downwardAPI volume file may name.
VOLUME_FIELD_PATHS = ["metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
                      "metadata.uid"]
# The v1 Pod's downward-API field labels (ConvertDownwardAPIFieldLabel); spec.host is the old name
# of spec.nodeName.
_FIELD_LABELS = frozenset({"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
                           "metadata.uid", "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName",
                           "spec.schedulerName", "status.phase", "status.hostIP", "status.hostIPs",
                           "status.podIP", "status.podIPs"})
_RESOURCE_PATHS = ["limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu",
                   "requests.ephemeral-storage", "requests.memory"]
_CPU_DIVISORS = frozenset({"1m", "1"})
_MEMORY_DIVISORS = frozenset({"1", "1k", "1M", "1G", "1T", "1P", "1E",
                              "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"})
_MEMORY_DIVISORS_TEXT = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"


def split_subscript(field_path: str) -> tuple[str, str] | None:
    """``SplitMaybeSubscriptedPath``: ``("metadata.labels", "k")`` for ``metadata.labels['k']``."""
    if not field_path.endswith("']"):
        return None
    head, sep, subscript = field_path[:-2].partition("['")
    if not sep or not head:
        return None
    return head, subscript


def _convert_label(api_version: str, field_path: str) -> tuple[str, str]:
    """``(internal path, "")`` or ``("", error)`` as ``ConvertDownwardAPIFieldLabel`` converts it."""
    if api_version != "v1":
        return "", f"unsupported pod version: {api_version}"
    split = split_subscript(field_path)
    if split is not None:
        if split[0] in ("metadata.annotations", "metadata.labels"):
            return field_path, ""
        return "", f"field label does not support subscript: {field_path}"
    if field_path == "spec.host":
        return "spec.nodeName", ""
    if field_path in _FIELD_LABELS:
        return field_path, ""
    return "", f"field label not supported: {field_path}"


def field_selector_errors(ref: ObjectFieldSelector, expressions: list[str], path: str) -> list[FieldError]:
    """``validateObjectFieldSelector`` for ``ref`` at ``path`` (the ``fieldRef``)."""
    if not ref.api_version:
        return [FieldError.required(child(path, "apiVersion"))]
    if not ref.field_path:
        return [FieldError.required(child(path, "fieldPath"))]
    internal, err = _convert_label(ref.api_version, ref.field_path)
    if err:
        return [FieldError.invalid(child(path, "fieldPath"), ref.field_path,
                                   f"error converting fieldPath: {err}")]
    split = split_subscript(internal)
    if split is None:
        if internal in expressions:
            return []
        return [FieldError.not_supported(child(path, "fieldPath"), internal, expressions)]
    label, subscript = split
    key = subscript.lower() if label == "metadata.annotations" else subscript
    return [FieldError.invalid(path, subscript, m) for m in is_qualified_name(key)]


def _divisor_errors(ref: ResourceFieldSelector, path: str) -> list[FieldError]:
    """``validateContainerResourceDivisor``: an unset or zero divisor is allowed."""
    if ref.divisor is None or not ref.divisor:
        return []
    text = ref.divisor.canonical()
    if ref.resource in ("limits.cpu", "requests.cpu") and text not in _CPU_DIVISORS:
        return [FieldError.invalid(child(path, "divisor"), ref.resource,
                                   "only divisor's values 1m and 1 are supported with the cpu resource")]
    kinds = {"limits.memory": "memory", "requests.memory": "memory",
             "limits.ephemeral-storage": "local ephemeral storage",
             "requests.ephemeral-storage": "local ephemeral storage"}
    kind = kinds.get(ref.resource)
    if kind is not None and text not in _MEMORY_DIVISORS:
        return [FieldError.invalid(child(path, "divisor"), ref.resource,
                                   f"only divisor's values {_MEMORY_DIVISORS_TEXT} are supported with the "
                                   f"{kind} resource")]
    return []


def resource_selector_errors(
    ref: ResourceFieldSelector, path: str, *, volume: bool = False,
) -> list[FieldError]:
    """``validateContainerResourceFieldSelector`` (hugepages included): a downward-API volume file
    (``volume``) must name its container; an env var's defaults to its own."""
    errs: list[FieldError] = []
    if volume and not ref.container_name:
        errs.append(FieldError.required(child(path, "containerName")))
    elif not ref.resource:
        errs.append(FieldError.required(child(path, "resource")))
    elif ref.resource not in _RESOURCE_PATHS and not ref.resource.startswith(
            ("limits.hugepages-", "requests.hugepages-")):
        errs.append(FieldError.not_supported(child(path, "resource"), ref.resource, _RESOURCE_PATHS))
    return errs + _divisor_errors(ref, path)
