"""core/v1 ServiceAccount strategy (upstream ``pkg/registry/core/serviceaccount/strategy.go``).

Semantics only: no spec, no status, no ``metadata.generation``; create and update keep only the
``name`` of each ``secrets`` entry (``cleanSecretReferences``); validation is the object metadata alone
(``ValidateServiceAccount``/``ValidateServiceAccountUpdate`` in ``pkg/apis/core/validation``: the name
a DNS subdomain, which the API server's generic metadata checks already do); an account annotated
``kubernetes.io/enforce-mountable-secrets`` gets the deprecation warning of 1.32+.
"""

from __future__ import annotations

from kbatch.api.core_v1 import ObjectReference, ServiceAccount
from kbatch.api.errors import FieldError
from kbatch.api.meta import Resource
from kbatch.api.strategy import DefaultStrategy

__all__ = ["ENFORCE_MOUNTABLE_SECRETS", "ServiceAccountStrategy"]

ENFORCE_MOUNTABLE_SECRETS = "kubernetes.io/enforce-mountable-secrets"
_ENFORCE_WARNING = (f"metadata.annotations[{ENFORCE_MOUNTABLE_SECRETS}]: deprecated in v1.32+; prefer "
                    "separate namespaces to isolate access to mounted secrets")


def _clean_secret_references(sa: ServiceAccount) -> None:
    if sa.secrets:
        sa.secrets = [ObjectReference(name=ref.name) for ref in sa.secrets]


def _warnings(sa: ServiceAccount) -> list[str]:
    return [_ENFORCE_WARNING] if ENFORCE_MOUNTABLE_SECRETS in (sa.metadata.annotations or {}) else []


class ServiceAccountStrategy(DefaultStrategy):
    has_generation = False  # upstream's PrepareForCreate/PrepareForUpdate set none
    has_status = False

    def prepare_for_create(self, obj: Resource) -> None:
        assert isinstance(obj, ServiceAccount)
        _clean_secret_references(obj)

    def prepare_for_update(self, new: Resource, old: Resource) -> None:
        assert isinstance(new, ServiceAccount)
        _clean_secret_references(new)

    def validate(self, obj: Resource) -> list[FieldError]:
        return []

    def warnings_on_create(self, obj: Resource) -> list[str]:
        assert isinstance(obj, ServiceAccount)
        return _warnings(obj)

    def warnings_on_update(self, new: Resource, old: Resource) -> list[str]:
        assert isinstance(new, ServiceAccount)
        return _warnings(new)


