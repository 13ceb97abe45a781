"""Generic validators: names, labels, annotations, object metadata, label selectors, resources.

Pure functions returning messages (``is_*``, as k8s.io/apimachinery ``pkg/util/validation``) or
``list[FieldError]`` (``validate_*``, as ``pkg/api/validation/objectmeta.go``,
``pkg/apis/meta/v1/validation`` and kubernetes ``pkg/apis/core/validation``). Messages are
upstream's, word for word, so errors read the same as a real API server's. Maps are walked in sorted
key order (upstream walks Go maps in random order) so that output is deterministic.

The name and label checks are memoised (bounded, process-wide caches of pure functions of a
string), as they run for every object written. Field paths are plain strings: ``child(p, "name")``
-> ``p.name``, ``index(p, 0)`` -> ``p[0]``, ``key(p, "cpu")`` -> ``p[cpu]``, as upstream's
``field.Path`` renders them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from datetime import datetime
from typing import Any

from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.meta import LabelSelector, LabelSelectorRequirement, ObjectMeta, OwnerReference
from kbatch.api.quantity import Quantity

__all__ = [
    "FIELD_IMMUTABLE",
    "IS_NEGATIVE",
    "NameValidator",
    "chdir_prefix_errors",
    "child",
    "index",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_extended_resource_name",
    "is_hugepage_resource_name",
    "is_native_resource",
    "is_overcommit_allowed",
    "is_qualified_name",
    "is_supported_pod_level_resource",
    "is_valid_label_value",
    "key",
    "name_is_dns1123_label",
    "name_is_dns1123_subdomain",
    "resource_requirements_plain",
    "validate_annotations",
    "validate_container_resource_name",
    "validate_domain_prefixed_path",
    "validate_finalizers",
    "validate_immutable",
    "validate_label_name",
    "validate_label_selector",
    "validate_labels",
    "validate_nonnegative",
    "validate_object_meta",
    "validate_object_meta_update",
    "validate_owner_references",
    "validate_quantity_value",
    "validate_resource_name",
    "validate_resource_requirements",
]

FIELD_IMMUTABLE = "field is immutable"
IS_NEGATIVE = "must be greater than or equal to 0"
NOT_INTEGER = "must be an integer"
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
FINALIZER_ORPHAN = "orphan"
FINALIZER_FOREGROUND = "foregroundDeletion"

# A name validator takes (name, is_prefix) and returns messages (upstream ValidateNameFunc).
NameValidator = Callable[[str, bool], list[str]]


def child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def key(path: str, k: str) -> str:
    return f"{path}[{k}]"


# --- message helpers (pkg/util/validation) ------------------------------------------------------

def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len(n: int) -> str:
    return f"must be no more than {n} characters"


def _max_bytes(n: int) -> str:
    """``content.MaxLenError`` (k8s.io/apimachinery pkg/api/validate/content/errors.go): label keys
    and values are measured, and reported, in bytes since 1.35."""
    return f"must be no more than {n} bytes"


def _too_long(value: str, n: int) -> bool:
    """Go's ``len`` of a string: its UTF-8 bytes."""
    return len(value) > n or (not value.isascii() and len(value.encode()) > n)


_EMPTY = "must be non-empty"

_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QNAME_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
              "alphanumeric character")
_QNAME_RE = re.compile(_QNAME_FMT)
_LABEL_VALUE_FMT = f"({_QNAME_FMT})?"
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
                    "or '.', and must start and end with an alphanumeric character")
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                      "and must start and end with an alphanumeric character")
_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUB_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUB_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
                    "or '.', and must start and end with an alphanumeric character")
_DNS1123_SUB_RE = re.compile(_DNS1123_SUB_FMT)
_DNS1035_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                "alphabetic character, and end with an alphanumeric character")
_DNS1035_RE = re.compile(_DNS1035_FMT)


def chdir_prefix_errors(value: str) -> list[str]:
    """apimachinery ``hasChDirPrefix`` (``IsConfigMapKey``, ``IsEnvVarName``): not ``.``, ``..`` or
    ``..``-prefixed."""
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    return ["must not start with '..'"] if value.startswith("..") else []


def is_qualified_name(value: str) -> list[str]:
    """Label keys, annotation keys, finalizers: ``[prefix/]name`` (``IsQualifiedName``, which is
    ``content.IsLabelKey`` since 1.35: pkg/api/validate/content/kube.go)."""
    return list(_qualified_name_errors(value))


@functools.lru_cache(maxsize=8192)
def _qualified_name_errors(value: str) -> tuple[str, ...]:
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + _EMPTY)
        else:
            errs.extend("prefix part " + m for m in _content_dns1123_subdomain(prefix))
    else:
        return (
            "a valid label key " + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        )
    if not name:
        errs.append("name part " + _EMPTY)
    elif _too_long(name, 63):
        errs.append("name part " + _max_bytes(63))
    if not _QNAME_RE.fullmatch(name):  # checked even when empty or too long, as upstream
        errs.append("name part " + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc"))
    return tuple(errs)


def is_valid_label_value(value: str) -> list[str]:
    return list(_is_valid_label_value(value))


@functools.lru_cache(maxsize=8192)
def _is_valid_label_value(value: str) -> tuple[str, ...]:
    errs: list[str] = []
    if _too_long(value, 63):
        errs.append(_max_bytes(63))  # content.IsLabelValue
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return tuple(errs)


def is_dns1123_label(value: str) -> list[str]:
    return list(_is_dns1123_label(value))


@functools.lru_cache(maxsize=8192)
def _is_dns1123_label(value: str) -> tuple[str, ...]:
    errs: list[str] = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUB_RE.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(_regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return tuple(errs)


def is_dns1123_subdomain(value: str) -> list[str]:
    return list(_is_dns1123_subdomain(value))


@functools.lru_cache(maxsize=8192)
def _is_dns1123_subdomain(value: str) -> tuple[str, ...]:
    errs: list[str] = []
    if len(value) > 253:
        errs.append(_max_len(253))
    if not _DNS1123_SUB_RE.fullmatch(value):
        errs.append(_regex_error(_DNS1123_SUB_MSG, _DNS1123_SUB_FMT, "example.com"))
    return tuple(errs)


def _content_dns1123_subdomain(value: str) -> list[str]:
    """``content.IsDNS1123Subdomain`` (a label key's prefix): as ``IsDNS1123Subdomain`` but with the
    content package's length message."""
    errs = [_max_bytes(253)] if _too_long(value, 253) else []
    if not _DNS1123_SUB_RE.fullmatch(value):
        errs.append(_regex_error(_DNS1123_SUB_MSG, _DNS1123_SUB_FMT, "example.com"))
    return errs


def is_dns1035_label(value: str) -> list[str]:
    errs: list[str] = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _DNS1035_RE.fullmatch(value):
        errs.append(_regex_error(_DNS1035_MSG, _DNS1035_FMT, "my-name", "abc-123"))
    return errs


def _mask_trailing_dash(name: str) -> str:
    """A generateName prefix may end in '-': check it as if the suffix were already appended."""
    return name[:-1] + "a" if len(name) > 1 and name.endswith("-") else name


# Object names are mostly unique (every pod's), so the memoised checks above would miss and evict for
# them: a valid name is recognised by the same regex and length limit directly; anything else takes the
# memoised message-building path (same answer: tests/api/test_validation_fast_paths.py).
_DNS1123_SUB_FULLMATCH = _DNS1123_SUB_RE.fullmatch
_DNS1123_LABEL_FULLMATCH = _DNS1123_LABEL_RE.fullmatch


def name_is_dns1123_subdomain(name: str, prefix: bool) -> list[str]:
    if not prefix and len(name) <= 253 and _DNS1123_SUB_FULLMATCH(name) is not None:
        return []
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns1123_label(name: str, prefix: bool) -> list[str]:
    if not prefix and len(name) <= 63 and _DNS1123_LABEL_FULLMATCH(name) is not None:
        return []
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


# --- generic field checks ---------------------------------------------------------------------

_HTTP_PATH_FMT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH_RE = re.compile(_HTTP_PATH_FMT)


def validate_domain_prefixed_path(value: str, path: str) -> list[FieldError]:
    """``IsDomainPrefixedPath`` (k8s.io/apimachinery pkg/util/validation): ``<RFC 1123 subdomain>/<HTTP
    path>``, as ``managedBy`` fields (Job, JobSet) must be."""
    if not value:
        return [FieldError.required(path)]
    host, slash, rest = value.partition("/")
    if not slash or not host or not rest:
        return [FieldError.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errs = [FieldError.invalid(path, host, msg) for msg in is_dns1123_subdomain(host)]
    if not _HTTP_PATH_RE.fullmatch(rest):
        errs.append(FieldError.invalid(path, rest, _regex_error("Invalid path", _HTTP_PATH_FMT)))
    return errs


def validate_nonnegative(value: int | None, path: str) -> list[FieldError]:
    if value is not None and value < 0:
        return [FieldError.invalid(path, value, IS_NEGATIVE)]
    return []


def validate_immutable(new: Any, old: Any, path: str) -> list[FieldError]:
    """``ValidateImmutableField``; the bad value shown is the new one."""
    if new != old:
        return [FieldError.invalid(path, _plain(new), FIELD_IMMUTABLE)]
    return []


def _plain(value: Any) -> Any:
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool, dict, datetime)):
        return value  # a time renders as metav1.Time marshals (kbatch.api.errors)
    return str(value)


def validate_label_name(name: str, path: str) -> list[FieldError]:
    return [FieldError.invalid(path, name, m) for m in is_qualified_name(name)]


def _labels_valid(labels: Mapping[str, str]) -> bool:
    """Every key and value valid (the memoised checks; no sorting, no error lists)."""
    return not any(_qualified_name_errors(k) or _is_valid_label_value(v) for k, v in labels.items())


def validate_labels(labels: Mapping[str, str] | None, path: str) -> list[FieldError]:
    """``ValidateLabels``: every error is reported at the map's path, not at the key."""
    errs: list[FieldError] = []
    if not labels or _labels_valid(labels):  # the usual case: nothing to report, no sorted walk
        return errs
    for k in sorted(labels):
        v = labels[k]  # type: ignore[index]
        errs += validate_label_name(k, path)
        errs += [FieldError.invalid(path, v, m) for m in is_valid_label_value(v)]
    return errs


def validate_annotations(annotations: Mapping[str, str] | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not annotations:
        return errs
    if any(_qualified_name_errors(k.lower()) for k in annotations):
        for k in sorted(annotations):
            errs += [FieldError.invalid(path, k, m) for m in is_qualified_name(k.lower())]
    total = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(FieldError.too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


def _version_of(api_version: str) -> str:
    """The version part of ``group/version`` ("" when unparsable, as ``ParseGroupVersion``)."""
    parts = api_version.split("/")
    if len(parts) == 1:
        return parts[0]
    return parts[1] if len(parts) == 2 else ""


def _validate_owner_reference(ref: OwnerReference, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    version = _version_of(ref.api_version)
    if not version:
        errs.append(FieldError.invalid(child(path, "apiVersion"), ref.api_version,
                                       "version must not be empty"))
    if not ref.kind:
        errs.append(FieldError.invalid(child(path, "kind"), ref.kind, "kind must not be empty"))
    if not ref.name:
        errs.append(FieldError.invalid(child(path, "name"), ref.name, "name must not be empty"))
    if not ref.uid:
        errs.append(FieldError.invalid(child(path, "uid"), ref.uid, "uid must not be empty"))
    if ref.api_version == "v1" and ref.kind == "Event":
        errs.append(FieldError.invalid(path, ref.to_dict(),
                                       "/v1, Kind=Event is disallowed from being an owner"))
    return errs


def validate_owner_references(refs: list[OwnerReference] | None, path: str) -> list[FieldError]:
    """``ValidateOwnerReferences``: upstream reports each reference at the list path (no index)."""
    errs: list[FieldError] = []
    first_controller = ""
    for ref in refs or ():
        errs += _validate_owner_reference(ref, path)
        if ref.controller:
            current = f"{ref.kind}/{ref.name}"
            if first_controller:
                errs.append(FieldError.invalid(
                    path, [r.to_dict() for r in refs or ()],
                    "Only one reference can have Controller set to true. Found \"true\" in references "
                    f"for {first_controller} and {current}"))
            else:
                first_controller = current
    return errs


def validate_finalizers(finalizers: list[str] | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not finalizers:
        return errs
    if any(_qualified_name_errors(name) for name in finalizers):  # else nothing to report per name
        for name in finalizers:
            errs += [FieldError.invalid(path, name, m) for m in is_qualified_name(name)]
    if FINALIZER_ORPHAN in finalizers and FINALIZER_FOREGROUND in finalizers:
        errs.append(FieldError.invalid(path, list(finalizers), f"finalizer {FINALIZER_ORPHAN} and "
                                       f"{FINALIZER_FOREGROUND} cannot be both set"))
    return errs


# --- object metadata --------------------------------------------------------------------------

def validate_object_meta(
    meta: ObjectMeta,
    *,
    namespaced: bool,
    path: str = "metadata",
    name_validator: NameValidator = name_is_dns1123_subdomain,
) -> list[FieldError]:
    """``ValidateObjectMeta``: name (or generateName), namespace by scope, labels, annotations,
    owner references, finalizers, generation."""
    errs: list[FieldError] = []
    if meta.generate_name:
        errs += [FieldError.invalid(child(path, "generateName"), meta.generate_name, m)
                 for m in name_validator(meta.generate_name, True)]
    if not meta.name:
        errs.append(FieldError.required(child(path, "name"), "name or generateName is required"))
    else:
        messages = name_validator(meta.name, False)
        if messages:
            errs += [FieldError.invalid(child(path, "name"), meta.name, m) for m in messages]
    if namespaced:
        if not meta.namespace:
            errs.append(FieldError.required(child(path, "namespace")))
        elif _is_dns1123_label(meta.namespace):
            errs += [FieldError.invalid(child(path, "namespace"), meta.namespace, m)
                     for m in is_dns1123_label(meta.namespace)]
    elif meta.namespace:
        errs.append(FieldError.forbidden(child(path, "namespace"), "not allowed on this type"))
    if meta.generation is not None and meta.generation < 0:  # the path is built only for an error
        errs += validate_nonnegative(meta.generation, child(path, "generation"))
    errs += _validate_meta_collections(meta, path)
    if meta.finalizers:
        errs += validate_finalizers(meta.finalizers, child(path, "finalizers"))
    return errs


def _go_string_slice(values: Iterable[str]) -> str:
    return "[]string{" + ", ".join(f'"{v}"' for v in values) + "}"


_META_IMMUTABLE = (("name", "name"), ("namespace", "namespace"), ("uid", "uid"),
                   ("creationTimestamp", "creation_timestamp"), ("deletionTimestamp", "deletion_timestamp"),
                   ("deletionGracePeriodSeconds", "deletion_grace_period_seconds"))


def validate_object_meta_update(new: ObjectMeta, old: ObjectMeta, path: str = "metadata") -> list[FieldError]:
    """``ValidateObjectMetaUpdate``: identity fields are immutable, no new finalizers while deleting.

    Upstream also requires ``resourceVersion`` on an update; the API server fills it in for an
    unconditional update before validating, so this check expects it to be set.
    """
    errs: list[FieldError] = []
    if old.deletion_timestamp is not None:
        added = sorted(set(new.finalizers or ()) - set(old.finalizers or ()))
        if added:
            errs.append(FieldError.forbidden(
                child(path, "finalizers"), "no new finalizers can be added if the object is being "
                f"deleted, found new finalizers {_go_string_slice(added)}"))
    if not new.resource_version:
        errs.append(FieldError.invalid(child(path, "resourceVersion"), new.resource_version or "",
                                       "must be specified for an update"))
    if (new.generation or 0) < (old.generation or 0):
        errs.append(FieldError.invalid(child(path, "generation"), new.generation or 0,
                                       "must not be decremented"))
    mine, theirs = new.__dict__, old.__dict__  # the field values, without an attribute lookup each
    for name, attr in _META_IMMUTABLE:
        new_value = mine[attr]
        if new_value != theirs[attr]:  # validate_immutable, without a call per unchanged field
            errs.append(FieldError.invalid(child(path, name), _plain(new_value), FIELD_IMMUTABLE))
    errs += _validate_meta_collections(new, path)
    return errs


def _validate_meta_collections(meta: ObjectMeta, path: str) -> list[FieldError]:
    """Labels, annotations and ownerReferences, as both create and update check them (absent maps
    and lists validate to nothing, so they are skipped: every write passes here)."""
    errs: list[FieldError] = []
    labels = meta.labels
    if labels and not _labels_valid(labels):  # valid labels: no path built, no call
        errs += validate_labels(labels, child(path, "labels"))
    if meta.annotations:
        errs += validate_annotations(meta.annotations, child(path, "annotations"))
    if meta.owner_references:
        errs += validate_owner_references(meta.owner_references, child(path, "ownerReferences"))
    return errs


# --- label selectors --------------------------------------------------------------------------

def _validate_requirement(req: LabelSelectorRequirement, path: str,
                          check_values: bool = True) -> list[FieldError]:
    errs: list[FieldError] = []
    if req.operator in ("In", "NotIn"):
        if not req.values:
            errs.append(FieldError.required(child(path, "values"),
                                            "must be specified when `operator` is 'In' or 'NotIn'"))
    elif req.operator in ("Exists", "DoesNotExist"):
        if req.values:
            errs.append(FieldError.forbidden(
                child(path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    else:
        errs.append(FieldError.invalid(child(path, "operator"), req.operator,
                                       "not a valid selector operator"))
    errs += validate_label_name(req.key, child(path, "key"))
    for i, value in enumerate(req.values or () if check_values else ()):
        errs += [FieldError.invalid(index(child(path, "values"), i), value, m)
                 for m in is_valid_label_value(value)]
    return errs


def validate_label_selector(selector: LabelSelector | None, path: str, *,
                            allow_invalid_label_values: bool = False) -> list[FieldError]:
    """metav1 ``ValidateLabelSelector``: expression values are checked as label values unless
    ``allow_invalid_label_values`` (``LabelSelectorValidationOptions.AllowInvalidLabelValueInSelector``,
    which leaves ``matchLabels`` checked)."""
    if selector is None:
        return []
    errs = validate_labels(selector.match_labels, child(path, "matchLabels"))
    for i, req in enumerate(selector.match_expressions or ()):
        errs += _validate_requirement(req, index(child(path, "matchExpressions"), i),
                                      not allow_invalid_label_values)
    return errs


# --- resources (kubernetes pkg/apis/core/helper + validation) -----------------------------------

_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "services",
    "replicationcontrollers", "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims",
    "storage", "requests.storage", "services.nodeports", "services.loadbalancers",
})
_INTEGER_RESOURCES = frozenset({
    "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
})


def is_hugepage_resource_name(name: str) -> bool:
    return name.startswith("hugepages-")


def is_supported_pod_level_resource(name: str) -> bool:
    """cpu, memory and ``hugepages-*`` (component-helpers/resource ``IsSupportedPodLevelResource``;
    KEP-2837 pod-level resources)."""
    return name in ("cpu", "memory") or is_hugepage_resource_name(name)


def is_native_resource(name: str) -> bool:
    """Unprefixed, or prefixed with ``kubernetes.io/`` (``IsNativeResource``)."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource_name(name: str) -> bool:
    """``example.com/gpu``: prefixed, not native, and valid as a quota name (``IsExtendedResourceName``)."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


@functools.lru_cache(maxsize=1024)
def is_overcommit_allowed(name: str) -> bool:
    return is_native_resource(name) and not is_hugepage_resource_name(name)


@functools.lru_cache(maxsize=1024)
def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or is_extended_resource_name(name)


def _validate_container_resource_name(name: str, path: str) -> list[FieldError]:
    return [FieldError.invalid(path, name, m) for m in _container_resource_name_messages(name)]


@functools.lru_cache(maxsize=1024)
def _container_resource_name_messages(name: str) -> tuple[str, ...]:
    """``validateContainerResourceName`` (which continues after ``validateResourceName``'s errors)."""
    errs = is_qualified_name(name)
    standard = name in _STANDARD_RESOURCES or is_hugepage_resource_name(name)
    if not errs and "/" not in name and not standard:
        errs.append("must be a standard resource type or fully qualified")
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not is_hugepage_resource_name(name):
            errs.append("must be a standard resource for containers")
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        errs.append("doesn't follow extended resource name standard")
    return tuple(errs)


def _validate_quantity_value(name: str, value: Quantity, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if value.sign() < 0:
        errs.append(FieldError.invalid(path, str(value), IS_NEGATIVE))
    if _is_integer_resource(name) and value.milli_value() % 1000 != 0:
        errs.append(FieldError.invalid(path, str(value), NOT_INTEGER))
    return errs


def validate_quantity_value(name: str, value: Quantity, path: str) -> list[FieldError]:
    """``ValidateResourceQuantityValue``: not negative; whole for integer resources (``pods``,
    ``count/...``, extended resources)."""
    return _validate_quantity_value(name, value, path)


def validate_container_resource_name(name: str, path: str) -> list[FieldError]:
    """``validateContainerResourceName``."""
    return _validate_container_resource_name(name, path)


def validate_resource_name(name: str, path: str) -> list[FieldError]:
    """``validateResourceName``: a qualified name; unprefixed, a standard resource."""
    errs = [FieldError.invalid(path, name, m) for m in is_qualified_name(name)]
    standard = name in _STANDARD_RESOURCES or is_hugepage_resource_name(name)
    if not errs and "/" not in name and not standard:
        errs.append(FieldError.invalid(path, name, "must be a standard resource type or fully qualified"))
    return errs


def _validate_claim_names(claims: list[Any] | None, pod_claim_names: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, claim in enumerate(claims or ()):
        at = index(path, i)
        if not claim.name:
            errs.append(FieldError.required(at))
            continue
        ident = f"{claim.name}/{claim.request}" if claim.request else claim.name
        if ident in seen:
            errs.append(FieldError.duplicate(at, ident))
        seen.add(ident)
        if claim.name not in pod_claim_names:
            detail = "must be one of the names in pod.spec.resourceClaims" + (
                ": " + ", ".join(sorted(pod_claim_names)) if pod_claim_names else " which is empty")
            errs.append(FieldError(FieldErrorType.NOT_FOUND, at, detail, claim.name))
        if claim.request:
            errs += [FieldError.invalid(child(at, "request"), claim.request, m)
                     for m in is_dns1123_label(claim.request)]
    return errs


def validate_resource_requirements(
    requirements: Any, path: str, *, pod_claim_names: set[str] | None = None,
) -> list[FieldError]:
    """Container ``resources`` (``validateResourceRequirements``): names, non-negative values,
    integer extended resources, requests <= limits, non-overcommittable resources need requests ==
    limits, hugepages need cpu or memory, claims name the pod's ``resourceClaims``."""
    if requirements is None or resource_requirements_plain(requirements, pod_claim_names or frozenset()):
        return []  # the usual case, decided without building paths or sorting
    errs = _entry_errors(requirements.limits or {}, requirements.requests or {}, path)
    if requirements.claims:
        errs += _validate_claim_names(requirements.claims, pod_claim_names or set(), child(path, "claims"))
    return errs


def _entry_errors(limits: dict[str, Quantity], requests: dict[str, Quantity], path: str) -> list[FieldError]:
    """:func:`validate_resource_requirements`' checks of the ``limits`` and ``requests`` entries."""
    errs: list[FieldError] = []
    lim_path, req_path = child(path, "limits"), child(path, "requests")
    for name in sorted(limits):
        errs += _resource_entry_errors(name, limits[name], lim_path)
    for name in sorted(requests):
        q = requests[name]
        errs += _resource_entry_errors(name, q, req_path)
        limit = limits.get(name)
        if limit is not None:
            if q.cmp(limit) != 0 and not is_overcommit_allowed(name):
                errs.append(FieldError.invalid(req_path, str(q), f"must be equal to {name} limit of {limit}"))
            elif q.cmp(limit) > 0:
                errs.append(FieldError.invalid(
                    req_path, str(q), f"must be less than or equal to {name} limit of {limit}"))
        elif not is_overcommit_allowed(name):
            errs.append(FieldError.required(lim_path, "Limit must be set for non overcommitable resources"))
    names = limits.keys() | requests.keys()
    if any(is_hugepage_resource_name(n) for n in names) and not names & {"cpu", "memory"}:
        errs.append(FieldError.forbidden(path, "HugePages require cpu or memory"))
    return errs


def resource_requirements_plain(requirements: Any, claim_names: AbstractSet[str] = frozenset()) -> bool:
    """Whether container ``resources`` (``None`` included) certainly validate to nothing: claims, if
    any, each naming one of ``claim_names`` (the pod's ``resourceClaims``) once, without a request;
    plain names (:func:`_plain_resource_names`) with no negative value and no request above its
    limit, or other names (extended resources such as GPUs, hugepages) whose entries were found valid
    before (:func:`_entries_known_valid`)."""
    if requirements is None:
        return True
    limits: dict[str, Quantity] = requirements.limits or {}
    requests: dict[str, Quantity] = requirements.requests or {}
    if requirements.claims and not _plain_claims(requirements.claims, claim_names):
        return False
    if _plain_resource_names(tuple(limits), tuple(requests)):
        return _plain_values_valid(limits, requests)
    return _entries_known_valid(tuple(limits.items()), tuple(requests.items()))


def _plain_claims(claims: list[Any], claim_names: AbstractSet[str]) -> bool:
    """Whether :func:`_validate_claim_names` certainly finds nothing: each claim a distinct name of
    ``claim_names``, no ``request`` (a request takes the general path)."""
    seen: set[str] = set()
    for claim in claims:
        name = claim.name
        if not name or claim.request or name in seen or name not in claim_names:
            return False
        seen.add(name)
    return True


@functools.lru_cache(maxsize=1024)
def _entries_known_valid(limits: tuple[tuple[str, Quantity], ...],
                         requests: tuple[tuple[str, Quantity], ...]) -> bool:
    """Whether these ``limits`` and ``requests`` entries pass :func:`_entry_errors` (memoised by
    value: the pods of one template ask the same, and validity depends on names and values only)."""
    return not _entry_errors(dict(limits), dict(requests), "resources")


@functools.lru_cache(maxsize=1024)
def _plain_resource_names(limits: tuple[str, ...], requests: tuple[str, ...]) -> bool:
    """Whether no name-derived check can fail: every name a valid container resource that may be
    overcommitted (so neither integer-only, nor a hugepage, nor needing requests == limits)."""
    return all(not _container_resource_name_messages(n) and not _is_integer_resource(n)
               and is_overcommit_allowed(n) for n in (*limits, *requests))


def _plain_values_valid(limits: dict[str, Quantity], requests: dict[str, Quantity]) -> bool:
    """For plain names: no value is negative and no request exceeds its limit."""
    for q in limits.values():
        if q.sign() < 0:
            return False
    for name, q in requests.items():
        if q.sign() < 0:
            return False
        limit = limits.get(name)
        if limit is not None and q.cmp(limit) > 0:
            return False
    return True


def _resource_entry_errors(name: str, value: Quantity, path: str) -> list[FieldError]:
    """One ``limits``/``requests`` entry: its name, then its value (the entry's path is built only
    when there is something to report)."""
    if (not _container_resource_name_messages(name) and value.sign() >= 0
            and not _is_integer_resource(name)):
        return []
    at = key(path, name)
    return _validate_container_resource_name(name, at) + _validate_quantity_value(name, value, at)
