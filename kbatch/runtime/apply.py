"""``apply``: create or update objects from YAML, dicts or models, like ``kubectl apply``.

Accepted inputs: YAML text (several documents separated by ``---``; a ``kind: List`` is expanded),
a dict, a model, or a list of any of these. Each object is created; if it already exists its
manifest is merged into the live object (a JSON merge patch of the manifest without ``status``).
Namespaced objects without a namespace go to ``default``.

Deliberate difference: kubectl's three-way merge (removing fields that were dropped from the
manifest since the last apply) needs the ``last-applied-configuration`` annotation; kbatch merges the
manifest into the live object instead, so removing a field takes an explicit ``null``.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from ruamel.yaml import YAML

from kbatch.api.errors import AlreadyExists, BadRequest
from kbatch.api.meta import Resource

__all__ = ["apply_objects", "load_manifests", "to_models"]

Manifest = str | dict[str, Any] | Resource
Manifests = Manifest | Iterable[Manifest]


def load_manifests(source: Manifests) -> list[dict[str, Any] | Resource]:
    """Flatten the input into dicts and models, in document order."""
    if isinstance(source, str):
        yaml = YAML(typ="safe", pure=True)
        docs = [d for d in yaml.load_all(io.StringIO(source)) if d is not None]
        return [item for doc in docs for item in _expand(doc)]
    if isinstance(source, (dict, Resource)):
        return list(_expand(source))
    return [item for part in source for item in load_manifests(part)]


def _expand(doc: Any) -> Iterable[dict[str, Any] | Resource]:
    if isinstance(doc, Resource):
        return [doc]
    if not isinstance(doc, dict):
        raise BadRequest(f"expected a Kubernetes object, got {type(doc).__name__}")
    if doc.get("kind") == "List" or (str(doc.get("kind", "")).endswith("List") and "items" in doc):
        return [item for entry in doc.get("items") or () for item in _expand(entry)]
    return [doc]


def to_models(source: Manifests, registry: Any) -> list[Resource]:
    """Decode every manifest into its registered model (unknown kinds → ``BadRequest``)."""
    out: list[Resource] = []
    for doc in load_manifests(source):
        if isinstance(doc, Resource):
            out.append(doc)
            continue
        api_version, kind = doc.get("apiVersion"), doc.get("kind")
        if not api_version or not kind:
            raise BadRequest("every object needs apiVersion and kind")
        spec = registry.for_gvk(api_version, kind)
        out.append(spec.model.model_validate(doc))
    return out


def apply_objects(client: Any, registry: Any, source: Manifests,
                  default_namespace: str = "default") -> list[Resource]:
    """Create or update each object; returns what the API server answered, in input order."""
    applied = []
    for obj in to_models(source, registry):
        info = type(obj).api_info
        if info.namespaced and not obj.metadata.namespace:
            obj = obj.model_copy(update={"metadata": obj.metadata.model_copy(
                update={"namespace": default_namespace})})
        applied.append(_apply_one(client, obj))
    return applied


def _apply_one(client: Any, obj: Resource) -> Resource:
    try:
        return client.create(obj)
    except AlreadyExists:
        if not obj.metadata.name:
            raise
    manifest = obj.to_dict()
    manifest.pop("status", None)
    manifest.get("metadata", {}).pop("resourceVersion", None)
    return client.patch(type(obj), obj.metadata.name, manifest, obj.metadata.namespace, patch_type="merge")
