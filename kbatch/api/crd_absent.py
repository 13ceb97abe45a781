"""Fields kbatch's shared models have but a CRD's schema lacks, treated as the CRD treats them.

A CRD embeds other kinds' types as its controller-gen run saw them: JobSet v0.12's CRD embeds the
batch/v1 ``JobSpec`` of the Kubernetes release it was built against, without fields Kubernetes added
later (1.37's ``spec.scheduling``). kbatch reuses its own models for the embedded types, so such a
field is listed by path (``[]`` for each list item) and
* decoding reports it as an unknown field (a ValidationError of type ``extra_forbidden``, which
  :mod:`kbatch.apiserver.decoding` turns into Strict's error, Warn's warning or Ignore's silent drop,
  as the apiextensions-apiserver's pruning does: ``apiextensions-apiserver/pkg/apiserver/
  customresource_handler.go`` reports pruned fields as unknown per fieldValidation);
* the published OpenAPI schema leaves it out (:mod:`kbatch.server.crd_openapi`).

A path ending in ``metadata.*`` names an embedded ObjectMeta of which the CRD keeps only
:data:`EMBEDDED_META_KEYS` (controller-gen's ``generateEmbeddedObjectMeta``): every other key there is
absent (the ``unknown field "…template.metadata.creationTimestamp"`` warnings users of CRDs know).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic_core import InitErrorDetails, ValidationError

__all__ = ["EMBEDDED_META_KEYS", "drop_from_schema", "reject_absent"]

EMBEDDED_META_KEYS = frozenset({"name", "namespace", "labels", "annotations", "finalizers"})

Loc = tuple[int | str, ...]


def _present(node: Any, parts: list[str], loc: Loc) -> Iterator[Loc]:
    name = parts[0].removesuffix("[]")
    if name == "*":  # every key of an embedded ObjectMeta the CRD does not keep
        keys = sorted(k for k in node if k not in EMBEDDED_META_KEYS) if isinstance(node, dict) else []
        yield from ((*loc, k) for k in keys)
        return
    if not isinstance(node, dict) or name not in node:
        return
    value, here = node[name], (*loc, name)
    if len(parts) == 1:
        yield here
    elif parts[0].endswith("[]"):
        for i, item in enumerate(value if isinstance(value, list) else ()):
            yield from _present(item, parts[1:], (*here, i))
    else:
        yield from _present(value, parts[1:], here)


def reject_absent(data: Any, title: str, paths: tuple[str, ...]) -> Any:
    """``data`` unchanged when it has none of ``paths``; else a ValidationError naming each one."""
    locs = [loc for path in paths for loc in _present(data, path.split("."), ())]
    if not locs:
        return data
    raise ValidationError.from_exception_data(title, [
        InitErrorDetails(type="extra_forbidden", loc=loc, input=None) for loc in locs])


def drop_from_schema(schema: dict[str, Any], paths: tuple[str, ...]) -> None:
    """Remove ``paths`` from an inlined OpenAPI schema (in place)."""
    for path in paths:
        node: Any = schema
        parts = path.split(".")
        for part in parts[:-1]:
            node = (node.get("properties") or {}).get(part.removesuffix("[]"), {})
            if part.endswith("[]"):
                node = node.get("items", {})
        if not isinstance(node, dict):
            continue
        props = node.get("properties") or {}
        for key in sorted(props) if parts[-1] == "*" else [parts[-1]]:
            if parts[-1] != "*" or key not in EMBEDDED_META_KEYS:
                props.pop(key, None)
