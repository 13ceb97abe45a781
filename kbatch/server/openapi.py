"""OpenAPI documents, enough for ``kubectl apply`` (validation), ``kubectl explain`` and clients.

``kubectl apply`` (default ``--validate=strict``) asks ``/openapi/v3`` for the group version of each
object and looks for a PATCH operation tagged ``x-kubernetes-group-version-kind`` with a
``fieldValidation`` parameter; when found it leaves validation to the server
(k8s.io/cli-runtime ``pkg/resource/query_param_verifier_v3.go``). The schemas under
``components.schemas`` come from the pydantic models (so ``kubectl explain`` has something to read;
a custom resource's are inlined as a CRD's are, see ``crd_openapi``);
a built-in kind's PATCH accepts strategic-merge-patch, as kube-apiserver's does, and its schemas carry
the ``x-kubernetes-*`` list, map and patch extensions (:mod:`kbatch.server.openapi_extensions`), so
``kubectl apply`` computes its patch from this document (k8s.io/kubectl ``pkg/cmd/apply/patcher.go``);
a custom resource's PATCH accepts no strategic merge, as a CRD's, so kubectl sends a JSON merge patch.
``/openapi/v2`` is a small JSON document
with the same operations (kubectl asks v2 for protobuf and falls back when it cannot parse it).
A family's virtual resources (:mod:`kbatch.api.virtual`) get the operations their verbs give them,
with an open object schema (kube-apiserver's documents have the reviews' ``post``s and, through
the aggregator, metrics-server's ``get``s).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from kbatch.api.base import ApiInfo
from kbatch.api.kube_version import KUBERNETES_VERSION
from kbatch.api.registry import KindSpec, Registry
from kbatch.api.virtual import VirtualResource
from kbatch.server.crd_openapi import inline_custom_resource, is_custom_resource_group
from kbatch.server.discovery import group_versions, subresource_verbs
from kbatch.server.openapi_extensions import annotate, kind_key
from kbatch.server.protobuf.wire import encode_field

__all__ = ["OpenAPI", "etag"]

_QUERY = [("dryRun", "string"), ("fieldManager", "string"), ("fieldValidation", "string"),
          ("pretty", "string")]
# the PATCH content types kube-apiserver's documents list: a CRD's lack strategic merge
# (apiextensions-apiserver ``pkg/controller/openapi/builder/builder.go``)
_PATCH_TYPES = ["application/apply-patch+yaml", "application/json-patch+json",
                "application/merge-patch+json"]
_BUILTIN_PATCH_TYPES = [*_PATCH_TYPES, "application/strategic-merge-patch+json"]


def etag(document: bytes) -> str:
    """kube-openapi's ``computeETag`` (``pkg/handler3/handler.go``): the bytes' SHA-512, upper-case hex."""
    return hashlib.sha512(document).hexdigest().upper() if document else ""


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def _gvk(info: ApiInfo) -> dict[str, str]:
    return {"group": info.group, "version": info.version, "kind": info.kind}


def _params(extra: list[tuple[str, str]] = ()) -> list[dict[str, Any]]:  # type: ignore[assignment]
    return [{"name": n, "in": "query", "schema": {"type": t}, "uniqueItems": True} for n, t in
            [*_QUERY, *extra]]


def _op(gvk: dict[str, str], ref: str, action: str, **extra: Any) -> dict[str, Any]:
    ok = {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": ref}}}}}
    return {"x-kubernetes-action": action, "x-kubernetes-group-version-kind": gvk,
            "parameters": _params(), "responses": ok, **extra}


def _body(ref: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"$ref": ref}}}}


def _operations(info: ApiInfo, ref: str) -> dict[str, dict[str, Any]]:
    """path → operations for one kind (collection, item, status)."""
    base = "/" + _gv_path(info.group, info.version)
    scope = base + ("/namespaces/{namespace}" if info.namespaced else "")
    item = f"{scope}/{info.plural}/{{name}}"
    body = _body(ref)

    def op(action: str, **extra: Any) -> dict[str, Any]:
        return _op(_gvk(info), ref, action, **extra)

    types = _PATCH_TYPES if is_custom_resource_group(info.group) else _BUILTIN_PATCH_TYPES
    patch_body = {"content": {t: {"schema": {"type": "object"}} for t in types}}
    paths = {
        f"{scope}/{info.plural}": {"get": op("list"), "post": op("post", requestBody=body)},
        item: {"get": op("get"), "put": op("put", requestBody=body), "delete": op("delete"),
               "patch": op("patch", requestBody=patch_body)},
    }
    methods = {"get": lambda: op("get"), "update": lambda: op("put", requestBody=body),
               "patch": lambda: op("patch", requestBody=patch_body)}
    for sub in info.subresources:
        paths[f"{item}/{sub}"] = {"put" if verb == "update" else verb: methods[verb]()
                                  for verb in methods if verb in subresource_verbs(sub)}
    return paths


def _virtual_operations(resource: VirtualResource, ref: str) -> dict[str, dict[str, Any]]:
    """path → operations of a virtual resource: the routes its verbs give it (``installer.go``: a
    ``post`` for ``create``, a ``get`` of the collection for ``list``, across namespaces too for a
    namespaced one, a ``get`` of a name for ``get``)."""
    base = "/" + _gv_path(resource.group, resource.version)
    collection = base + ("/namespaces/{namespace}" if resource.namespaced else "") + f"/{resource.plural}"
    gvk = {"group": resource.group, "version": resource.version, "kind": resource.kind}
    paths: dict[str, dict[str, Any]] = {}
    if "create" in resource.verbs:
        paths.setdefault(collection, {})["post"] = _op(gvk, ref, "post", requestBody=_body(ref))
    if "list" in resource.verbs:
        paths.setdefault(collection, {})["get"] = _op(gvk, ref, "list")
        if resource.namespaced:
            paths[f"{base}/{resource.plural}"] = {"get": _op(gvk, ref, "list")}
    if "get" in resource.verbs:
        paths[f"{collection}/{{name}}"] = {"get": _op(gvk, ref, "get")}
    for sub in resource.subresources:  # only get is served under a name (visibility's pendingworkloads)
        sub_gvk = gvk | {"kind": sub.kind or resource.kind}
        if "get" in sub.verbs:
            paths[f"{collection}/{{name}}/{sub.name}"] = {"get": _op(sub_gvk, ref, "get")}
    return paths


def _virtual_schema(resource: VirtualResource) -> tuple[str, dict[str, Any]]:
    """An open object schema: kbatch has no model of a review's fields; it validates them itself."""
    gvk = {"group": resource.group, "version": resource.version, "kind": resource.kind}
    return f"{resource.group}.{resource.version}.{resource.kind}", {
        "type": "object", "x-kubernetes-group-version-kind": [gvk]}


def _simplify(node: Any) -> Any:
    """pydantic's ``anyOf: [X, {type: null}]`` (an optional field) becomes plain X, and titles go,
    so that ``kubectl explain`` sees types the way upstream's OpenAPI spells them."""
    if isinstance(node, list):
        return [_simplify(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _simplify(v) for k, v in node.items() if k not in ("title", "default")}
    options = out.get("anyOf")
    if isinstance(options, list):
        kept = [o for o in options if o != {"type": "null"}]
        if len(kept) == 1:
            out.pop("anyOf")
            only = kept[0]
            if "$ref" in only and out:
                out["allOf"] = [only]
            else:
                out.update(only)
    return out


def _schema_name(info: ApiInfo) -> str:
    """A custom resource's component is named by the reversed group, as the apiextensions-apiserver
    names it (``io.x-k8s.jobset.v1alpha2.JobSet``); built-ins by kbatch's own spelling."""
    if is_custom_resource_group(info.group):
        return ".".join([*reversed(info.group.split(".")), info.version, info.kind])
    return f"{info.group or 'core'}.{info.version}.{info.kind}"


# k8s.io/apimachinery runtime.RawExtension, as kube-apiserver's OpenAPI v3 names it: an object of any
# shape. kbatch's models type such fields ``Any``, which pydantic describes as ``{}``; kubectl explain's
# template fails on an empty field schema ("expected schema argument to subtemplate 'typeguess'").
RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"


def _raw_extensions(schemas: dict[str, Any]) -> dict[str, Any]:
    """Every property whose schema is empty (an ``Any`` field: the RawExtensions ``parameters`` and
    ``data`` of resource.k8s.io) refers to RawExtension, as upstream's document does
    (``allOf: [$ref RawExtension]``; kubectl explain prints ``<RawExtension>``)."""
    found = False
    for schema in schemas.values():
        for name, prop in (schema.get("properties") or {}).items():
            if prop == {}:
                schema["properties"][name] = {"allOf": [{"$ref": f"#/components/schemas/{RAW_EXTENSION}"}]}
                found = True
    return {**schemas, RAW_EXTENSION: {"type": "object"}} if found else schemas


def _schemas(spec: KindSpec) -> tuple[str, dict[str, Any]]:
    name = _schema_name(spec.info)
    try:
        schema = spec.model.model_json_schema(by_alias=True, mode="serialization",
                                              ref_template="#/components/schemas/{model}")
    except Exception:  # a model pydantic cannot describe still gets an open schema
        schema = {"type": "object"}
    schema = _simplify(schema)
    defs = schema.pop("$defs", {})
    schema["x-kubernetes-group-version-kind"] = [_gvk(spec.info)]
    if is_custom_resource_group(spec.info.group):
        gvk = f"{spec.info.group}/{spec.info.version}/{spec.info.kind}"
        components = inline_custom_resource(schema, defs, spec.model.crd_absent, gvk)
        own = components.pop("")  # popped first: the kind's schema is published under its name alone
        return name, {**components, name: own}
    annotate(schema, defs, kind_key(spec.info.group, spec.info.version, spec.info.kind))
    return name, _raw_extensions({**defs, name: schema})


class OpenAPI:
    """Builds and caches the documents for one registry."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._v3: dict[str, bytes] = {}
        self._root: bytes | None = None

    def _group_versions(self) -> list[str]:
        """The stored kinds' group versions, then those only virtual resources serve."""
        gvs = [_gv_path(g, v) for g, versions in group_versions(self._registry).items() for v in versions]
        for resource in self._registry.virtual():
            gv = _gv_path(resource.group, resource.version)
            if gv not in gvs:
                gvs.append(gv)
        return gvs

    def v3_root(self) -> dict[str, Any]:
        """kube-openapi's ``OpenAPIV3Discovery``: each group version's URL carries its document's
        ETag as ``hash`` (``handler3.constructServerRelativeURL``); Go marshals the map sorted."""
        paths = {gv: {"serverRelativeURL": f"/openapi/v3/{gv}?hash={etag(self.v3_document(gv) or b'')}"}
                 for gv in sorted(self._group_versions())}
        return {"paths": paths}

    def v3_root_bytes(self) -> bytes:
        if self._root is None:
            self._root = json.dumps(self.v3_root(), separators=(",", ":")).encode()
        return self._root

    def v3_document(self, gv_path: str) -> bytes | None:
        """One group version's document as kube-openapi serves it: ``json.Marshal``'s compact bytes."""
        if gv_path not in self._v3:
            doc = self._build_v3(gv_path)
            if doc is None:
                return None
            self._v3[gv_path] = json.dumps(doc, separators=(",", ":")).encode()
        return self._v3[gv_path]

    def _specs(self, gv_path: str) -> list[KindSpec]:
        return [s for s in self._registry.served() if _gv_path(s.info.group, s.info.version) == gv_path]

    def _virtual(self, gv_path: str) -> list[VirtualResource]:
        return [r for r in self._registry.virtual() if _gv_path(r.group, r.version) == gv_path]

    def _build_v3(self, gv_path: str) -> dict[str, Any] | None:
        specs, virtual = self._specs(gv_path), self._virtual(gv_path)
        if not specs and not virtual:
            return None
        paths: dict[str, Any] = {}
        schemas: dict[str, Any] = {}
        for spec in specs:
            name, defs = _schemas(spec)
            schemas.update(defs)
            paths.update(_operations(spec.info, f"#/components/schemas/{name}"))
        for resource in virtual:
            name, schema = _virtual_schema(resource)
            schemas[name] = schema
            paths.update(_virtual_operations(resource, f"#/components/schemas/{name}"))
        return {"openapi": "3.0.0", "info": {"title": "Kubernetes (kbatch)", "version": KUBERNETES_VERSION},
                "paths": paths, "components": {"schemas": schemas}}

    def v2_protobuf(self) -> bytes:
        """The v2 document as kubectl asks for it (``Accept:
        application/com.github.proto-openapi.spec.v2@v1.0+protobuf``): a gnostic
        ``openapi.v2.Document`` (google/gnostic ``openapiv2/OpenAPIv2.proto``) holding the swagger
        version and the info, and no definitions. kubectl validates client-side only what the
        server cannot validate with ``fieldValidation`` (a ``kind: List``), and skips a kind it finds no
        definition for; kbatch validates every object itself (fieldValidation=Strict). Without this,
        ``kubectl apply -f`` of a List failed ("proto: cannot parse invalid wire-format data")."""
        info = _proto_string(1, "Kubernetes (kbatch)") + _proto_string(2, "v1.32.0")
        return _proto_string(1, "2.0") + _proto_field(2, info)

    def v2_document(self) -> dict[str, Any]:
        paths: dict[str, Any] = {}
        operations = [_operations(spec.info, "#/definitions/object") for spec in self._registry]
        operations += [_virtual_operations(r, "#/definitions/object") for r in self._registry.virtual()]
        for ops_by_path in operations:
            for path, ops in ops_by_path.items():
                paths[path] = {verb: {k: v for k, v in op.items() if k not in ("requestBody", "responses")}
                               | {"consumes": _PATCH_TYPES if verb == "patch" else ["application/json"],
                                  "responses": {"200": {"description": "OK"}}}
                               for verb, op in ops.items()}
        return {"swagger": "2.0", "info": {"title": "Kubernetes (kbatch)", "version": KUBERNETES_VERSION},
                "paths": paths, "definitions": {"object": {"type": "object"}}}


def _proto_field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (wire type 2): tag, varint length, bytes."""
    return encode_field(number, payload)


def _proto_string(number: int, text: str) -> bytes:
    return _proto_field(number, text.encode())
