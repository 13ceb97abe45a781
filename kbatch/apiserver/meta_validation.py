"""Generic ObjectMeta validation the server applies to every kind on create and update.

Upstream: ``staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go`` (ValidateObjectMeta,
ValidateObjectMetaUpdate) and ``generic.go`` (owner references). Kind-specific rules live in the
kind's strategy; this module covers what is the same for all kinds.
"""

from __future__ import annotations

import re

from kbatch.api.errors import FieldError
from kbatch.api.meta import ObjectMeta
from kbatch.api.selectors import label_key_errors, label_value_errors

__all__ = ["validate_meta", "validate_meta_update"]

_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
_MAX_ANNOTATIONS_BYTES = 256 * 1024


def _name_errors(name: str, path: str, dns_label: bool) -> list[FieldError]:
    if dns_label:
        if len(name) > 63 or not _DNS1123_LABEL.match(name):
            return [FieldError.invalid(path, name, _LABEL_MSG if len(name) <= 63 else
                                       "must be no more than 63 characters")]
        return []
    if len(name) > 253:
        return [FieldError.invalid(path, name, "must be no more than 253 characters")]
    if not _DNS1123_SUBDOMAIN.match(name):
        return [FieldError.invalid(path, name, _SUBDOMAIN_MSG)]
    return []


def validate_meta(meta: ObjectMeta, *, namespaced: bool, dns_label_names: bool = False) -> list[FieldError]:
    """Every error at once, with ``metadata.*`` paths."""
    errs: list[FieldError] = []
    if not meta.name:
        if not meta.generate_name:
            errs.append(FieldError.required("metadata.name", "name or generateName is required"))
    else:
        errs += _name_errors(meta.name, "metadata.name", dns_label_names)
    if namespaced:
        if not meta.namespace:
            errs.append(FieldError.required("metadata.namespace", ""))
        else:
            errs += _name_errors(meta.namespace, "metadata.namespace", True)
    elif meta.namespace:
        errs.append(FieldError.forbidden("metadata.namespace", "not allowed on this type"))
    for key, value in (meta.labels or {}).items():
        errs += [FieldError.invalid("metadata.labels", key, m) for m in label_key_errors(key)]
        errs += [FieldError.invalid("metadata.labels", value, m) for m in label_value_errors(value)]
    size = 0
    for key, value in (meta.annotations or {}).items():
        errs += [FieldError.invalid("metadata.annotations", key, m) for m in label_key_errors(key.lower())]
        size += len(key) + len(value)
    if size > _MAX_ANNOTATIONS_BYTES:
        errs.append(FieldError.too_long("metadata.annotations", _MAX_ANNOTATIONS_BYTES))
    errs += _owner_reference_errors(meta)
    errs += _finalizer_errors(meta)
    if meta.generation is not None and meta.generation < 0:
        errs.append(FieldError.invalid("metadata.generation", meta.generation, "must be greater than or "
                                                                               "equal to 0"))
    return errs


def _owner_reference_errors(meta: ObjectMeta) -> list[FieldError]:
    errs: list[FieldError] = []
    controllers: list[str] = []
    for i, ref in enumerate(meta.owner_references or ()):
        path = f"metadata.ownerReferences[{i}]"
        if not ref.api_version:
            errs.append(FieldError.invalid(f"{path}.apiVersion", ref.api_version,
                                           "version must not be empty"))
        if not ref.kind:
            errs.append(FieldError.invalid(f"{path}.kind", ref.kind, "kind must not be empty"))
        if not ref.name:
            errs.append(FieldError.invalid(f"{path}.name", ref.name, "name must not be empty"))
        if not ref.uid:
            errs.append(FieldError.invalid(f"{path}.uid", ref.uid, "uid must not be empty"))
        if ref.controller:
            controllers.append(f"{ref.kind}/{ref.name}")
    if len(controllers) > 1:
        errs.append(FieldError.invalid(
            "metadata.ownerReferences", [r.model_dump(by_alias=True, exclude_none=True)
                                         for r in meta.owner_references or ()],
            "Only one reference can have Controller set to true. Found \"true\" in references for "
            + " and ".join(controllers)))
    return errs


def _finalizer_errors(meta: ObjectMeta) -> list[FieldError]:
    errs: list[FieldError] = []
    finalizers = meta.finalizers or []
    for i, fin in enumerate(finalizers):
        if fin not in ("kubernetes", "orphan", "foregroundDeletion"):
            errs += [FieldError.invalid(f"metadata.finalizers[{i}]", fin, m) for m in label_key_errors(fin)]
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        errs.append(FieldError.invalid("metadata.finalizers", finalizers,
                                       "finalizer orphan and foregroundDeletion cannot be both set"))
    return errs


def validate_meta_update(new: ObjectMeta, old: ObjectMeta) -> list[FieldError]:
    """Identity is immutable (name, namespace, uid; creationTimestamp is carried over silently)."""
    errs: list[FieldError] = []
    for field in ("name", "namespace", "uid"):
        if getattr(new, field) != getattr(old, field):
            errs.append(FieldError.invalid(f"metadata.{field}", getattr(new, field), "field is immutable"))
    return errs
