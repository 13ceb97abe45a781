"""``ControlPlane.apply``: client-side apply of YAML, dicts or models through the in-process client.

The manifests are read by the one loader (:func:`kbatch.apiserver.manifests.load_manifests`: several
YAML documents, ``List`` kinds expanded, kubectl's checks) and each object goes through the one
client-side apply (:func:`kbatch.apiserver.client_apply.client_side_apply`), exactly as
``kbatch apply -f`` does: created with the ``last-applied-configuration`` annotation, or patched three
ways, so that removing a field from a manifest removes it from the object. Namespaced objects without a
namespace go to ``default`` (or the ``namespace`` given). This module only adapts the typed client to
the three calls client-side apply makes, and answers models. A manifest in a further served version
of a kind (Kueue's v1beta1, scheduling.k8s.io/v1alpha3) is applied in that version, as kubectl applies
it against that version's endpoint of ``kbatch serve``: its ``last-applied-configuration`` and the
three-way diff stay in the version written, and only what reaches the typed client is converted to
the storage version (:class:`_ServedVerbs`).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.meta import Resource
from kbatch.api.versions import ServedVersion
from kbatch.apiserver.client_apply import ApplyVerbs, client_side_apply, place
from kbatch.apiserver.decoding import decode_dict
from kbatch.apiserver.manifests import Manifests, load_manifests

__all__ = ["Manifests", "apply_objects"]


class _TypedVerbs:
    """:class:`~kbatch.apiserver.client_apply.ApplyVerbs` over the typed client, answering models."""

    def __init__(self, client: Any, model: type[Resource]) -> None:
        self.client = client
        self.model = model

    @staticmethod
    def _where(obj: dict[str, Any]) -> tuple[str, str | None]:
        meta = obj.get("metadata") or {}
        return meta.get("name") or "", meta.get("namespace")

    def get(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        name, namespace = self._where(obj)
        if not name:
            return None
        try:
            return self.client.get(self.model, name, namespace).to_dict()
        except NotFound:
            return None

    def create(self, obj: dict[str, Any]) -> Resource:
        decoded, _ = decode_dict(self.model, obj)
        return self.client.create(decoded)

    def patch(self, obj: dict[str, Any], current: dict[str, Any], patch: dict[str, Any]) -> Resource:
        name, namespace = self._where(obj)
        return self.client.patch(self.model, name, patch, namespace, patch_type="merge")

    def unchanged(self, current: dict[str, Any]) -> Resource:
        decoded, _ = decode_dict(self.model, current, "Ignore")
        return decoded


class _ServedVerbs:
    """:class:`_TypedVerbs` seen in a further served version: objects converted at the edges."""

    def __init__(self, inner: _TypedVerbs, version: ServedVersion) -> None:
        self.inner = inner
        self.version = version

    def get(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        current = self.inner.get(obj)
        return None if current is None else self.version.from_storage(current)

    def create(self, obj: dict[str, Any]) -> Resource:
        return self.inner.create(self.version.to_storage(obj))

    def patch(self, obj: dict[str, Any], current: dict[str, Any], patch: dict[str, Any]) -> Resource:
        return self.inner.patch(obj, current, self.version.to_storage(patch))

    def unchanged(self, current: dict[str, Any]) -> Resource:
        return self.inner.unchanged(self.version.to_storage(current))


def apply_objects(client: Any, registry: Any, source: Manifests,
                  default_namespace: str = "default") -> list[Resource]:
    """Apply each object; returns what the API server answered (the live object when unchanged),
    in input order."""
    applied = []
    for manifest in load_manifests(source, "manifest"):
        spec = registry.for_gvk(manifest["apiVersion"], manifest["kind"])
        obj = place(manifest, spec.info, None, default_namespace)
        if spec.storage is not None and spec.served is not None:  # a further served version
            verbs: ApplyVerbs[Resource] = _ServedVerbs(_TypedVerbs(client, spec.storage.model), spec.served)
        else:
            verbs = _TypedVerbs(client, spec.model)
        _, result = client_side_apply(verbs, obj)
        applied.append(result)
    return applied
