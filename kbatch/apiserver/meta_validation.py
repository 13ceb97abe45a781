"""Generic ObjectMeta validation the server applies to every kind, on create and on update.

Delegates to ``kbatch.api.validation`` (upstream ``ValidateObjectMeta`` / ``ValidateObjectMetaUpdate``,
``staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go``), choosing the name rule per
kind: namespaces are DNS-1123 labels, a kind whose strategy declares a ``name_validator`` that rule
(RBAC's roles and bindings: path segments, ``ValidateRBACName``), everything else DNS-1123 subdomains.
"""

from __future__ import annotations

from kbatch.api.errors import FieldError
from kbatch.api.meta import ObjectMeta
from kbatch.api.validation import (
    name_is_dns1123_label,
    name_is_dns1123_subdomain,
    validate_finalizers,
    validate_object_meta,
    validate_object_meta_update,
)
from kbatch.apiserver.kinds import Kind

__all__ = ["validate_meta", "validate_meta_update"]


def validate_meta(kind: Kind, meta: ObjectMeta) -> list[FieldError]:
    validator = name_is_dns1123_label if kind.is_namespace else \
        getattr(kind.strategy, "name_validator", None) or name_is_dns1123_subdomain
    return validate_object_meta(meta, namespaced=kind.info.namespaced, name_validator=validator)


def validate_meta_update(new: ObjectMeta, old: ObjectMeta) -> list[FieldError]:
    # upstream's update path validates finalizers as well (ValidateObjectMetaAccessorUpdate)
    return validate_object_meta_update(new, old) + validate_finalizers(new.finalizers, "metadata.finalizers")
