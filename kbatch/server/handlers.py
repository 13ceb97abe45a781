"""The REST verbs on a resource path (k8s.io/apiserver ``pkg/endpoints/handlers``), over a Backend.

Each handler checks the request the way kube-apiserver does before storage sees it (namespace and
name in the body agree with the path, the PATCH content type, dryRun and fieldValidation values),
then calls the backend, then settles the control plane so that reactions due now are visible.
"""

from __future__ import annotations

import json
from typing import Any

from kbatch.api.errors import (
    BadRequest,
    MethodNotAllowed,
    NotFound,
    UnsupportedMediaType,
)
from kbatch.api.wire_zeros import with_wire_zeros
from kbatch.apiserver.apply.tracking import field_manager
from kbatch.apiserver.decoding import StrictDecodingError, cannot_handle, unrecognized
from kbatch.apiserver.go_json import cannot_unmarshal, type_meta_error
from kbatch.apiserver.go_json_syntax import GoSyntaxError
from kbatch.apiserver.manifests import YamlError, yaml_documents
from kbatch.apiserver.write_options import check_write_options, write_option_errors
from kbatch.apiserver.yaml_duplicates import duplicate_key_problems, duplicate_keys_error
from kbatch.server.backend import Backend, WriteOptions
from kbatch.server.deleteopts import delete_options, delete_warnings
from kbatch.server.http import Request, Response, json_response
from kbatch.server.list_options import validate_list_request
from kbatch.server.pod_log_options import cut_log, log_options
from kbatch.server.protobuf import PROTOBUF
from kbatch.server.routing import ResourcePath
from kbatch.server.streaming import (
    STREAMING_SUBRESOURCES,
    asks_upgrade,
    proxy_target,
    refuse_proxy,
    refuse_stream,
)
from kbatch.server.table import build_table, include_object, table_accepted
from kbatch.server.warning_header import warning_header

__all__ = ["PATCH_TYPES", "handle_resource", "write_options"]

PATCH_TYPES = {
    "application/merge-patch+json": "merge",
    "application/json-patch+json": "json",
    "application/strategic-merge-patch+json": "strategic",
}
APPLY_PATCH = "application/apply-patch+yaml"
YAML = "application/yaml"
# the media types a create or update body may have, in kube-apiserver's order (k8s.io/apimachinery
# ``runtime/serializer/codec_factory.go``: json, yaml, protobuf; CBOR only behind its alpha gate)
OBJECT_TYPES = ("application/json", YAML, PROTOBUF)
RETURN_DELETED = frozenset({"Pod", "CSIDriver"})  # the kinds whose store has ReturnDeletedObject


def write_options(req: Request, kind: str = "CreateOptions", patch_type: str | None = None) -> WriteOptions:
    """The write's options, checked first as kube-apiserver's handlers check them
    (:mod:`kbatch.apiserver.write_options`; ``kind`` names the options in the ``Invalid``)."""
    dry = req.query.get("dryRun") or []
    validation = req.param("fieldValidation") or ""
    check_write_options(kind, write_option_errors(dry, validation, req.param("fieldManager") or "",
                                                  patch_type, force=req.opt_flag("force") is not None))
    # an absent directive is Warn, as kube-apiserver's fieldValidation() (endpoints/handlers/rest.go);
    # kubectl rejects unknown fields only because it sends Strict itself (--validate=strict)
    return WriteOptions(dry_run=bool(dry), field_validation=validation or "Warn")


def _object_body(req: Request, kind: str, strict: bool = False) -> Any:
    """A create or update body in the media type its Content-Type names, as kube-apiserver's
    ``NegotiateInputSerializer`` picks the decoder (k8s.io/apiserver
    ``pkg/endpoints/handlers/negotiation/negotiate.go``): none is JSON, ``application/yaml`` is read
    as the JSON it stands for (the YAML serializer's ``yaml.YAMLToJSON``, first document), any other
    type is a 415 naming the accepted ones (``NewUnsupportedMediaTypeError``). A YAML key repeated in
    one mapping keeps its last value; under ``fieldValidation=Strict`` it is refused as the YAML
    serializer's ``YAMLToJSONStrict`` pass refuses it (:mod:`kbatch.apiserver.yaml_duplicates`).
    Under ``Warn`` upstream records it as a warning whose text holds a newline, which
    ``NewWarningHeader`` refuses, so no warning reaches the client: none is sent here either."""
    ctype = req.content_type
    if ctype == YAML:
        try:
            text = req.body.decode("utf-8")
            docs = yaml_documents(text)
        except (YamlError, UnicodeDecodeError) as err:  # Decode's error, through transformDecodeError
            raise unrecognized(kind, str(err), req.body) from None
        problems = duplicate_key_problems(text) if strict and docs and docs[0] is not None else []
        if problems:
            raise StrictDecodingError(f"strict decoding error: {duplicate_keys_error(problems)}")
        return docs[0] if docs else None
    if ctype not in ("", *OBJECT_TYPES):
        raise UnsupportedMediaType(f"the body of the request was in an unknown format - accepted media "
                                   f"types include: {', '.join(OBJECT_TYPES)}")
    try:
        return req.parsed()
    except GoSyntaxError as err:  # the serializer's type-meta sniffing (json/meta.go), transformDecodeError
        raise unrecognized(kind, f"couldn't get version/kind; json parse error: {err}", req.body) from None


def _check_identity(rp: ResourcePath, req: Request, name: str | None, opts: WriteOptions) -> dict[str, Any]:
    """The request body as an object of the path's kind, in the path's namespace and name (Go's
    decode errors for a body of the wrong JSON types, :mod:`kbatch.apiserver.go_json`)."""
    info = rp.spec.info
    try:
        body = _object_body(req, info.kind, strict=opts.field_validation == "Strict")
    except StrictDecodingError as err:  # create.go / update.go: through transformDecodeError
        raise cannot_handle(info, err.message) from None
    sniffed = type_meta_error(body)
    if sniffed:
        raise unrecognized(info.kind, sniffed, req.body)
    meta = body.setdefault("metadata", {})
    if meta is None:  # JSON null decodes to the zero ObjectMeta, as Go's decoder leaves it
        meta = body["metadata"] = {}
    if not isinstance(meta, dict):
        raise cannot_handle(info, cannot_unmarshal(meta, info.kind, "metadata", "v1.ObjectMeta"))
    kind, api_version = body.get("kind", info.kind), body.get("apiVersion", info.api_version)
    if kind != info.kind or api_version != info.api_version:
        raise BadRequest(f"the API version in the data ({body.get('apiVersion')}) does not match the "
                         f"expected API version ({info.api_version}) or kind {body.get('kind')} is not "
                         f"{info.kind}")
    body.setdefault("kind", info.kind)
    body.setdefault("apiVersion", info.api_version)
    if rp.namespace is not None:
        if meta.get("namespace") not in (None, "", rp.namespace):
            raise BadRequest("the namespace of the provided object does not match the namespace sent "
                             "on the request")
        meta["namespace"] = rp.namespace
    if name is not None and meta.get("name") not in (None, name):
        raise BadRequest("the name of the object does not match the name on the URL")
    if name is not None:
        meta["name"] = name
    return body


def _warn_headers(opts: WriteOptions) -> tuple[tuple[str, str], ...]:
    return tuple(warning_header(w) for w in opts.warnings)


def _deleted(rp: ResourcePath, name: str, obj: dict[str, Any] | None,
             headers: tuple[tuple[str, str], ...] = ()) -> Response:
    if obj is not None:
        return object_response(obj, headers=headers)
    info = rp.spec.info
    status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
              "details": {"name": name, "group": info.group, "kind": info.plural}}
    return json_response(status, headers=headers)


def _render(backend: Backend, req: Request, rp: ResourcePath, obj: dict[str, Any], *, many: bool) -> Response:
    if not table_accepted(req.headers.get("accept", "")):
        return object_response(obj)
    include = include_object(req.param("includeObject"))
    if include == "Object":  # the embedded objects are as a JSON response would carry them
        obj = with_wire_zeros(obj)
    objects = (obj.get("items") or []) if many else [obj]
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k in ("resourceVersion", "continue")} \
        if many else {"resourceVersion": (obj.get("metadata") or {}).get("resourceVersion", "")}
    return json_response(build_table(objects, rp.spec.table_printer, backend.now(),
                                     include_object=include, list_metadata=meta))


def _list(backend: Backend, req: Request, rp: ResourcePath) -> Response:
    """A list, or a Table of it. A Table request's ``limit`` is declined, which ListOptions allows
    ("servers may choose not to support the limit argument and will return all of the available
    results"): ``kubectl get`` pages by 500 and client-go's default rate limiter (5 requests/s,
    burst 10) then spends ~2 s waiting between the pages of 10,000 pods, far more than serving
    them; one whole Table is what ``--chunk-size=0`` would ask for. ``continue`` is honoured."""
    validate_list_request(req)
    limit = req.int_param("limit") or None
    if table_accepted(req.headers.get("accept", "")):
        limit = None  # Tables are served whole: see _list's docstring
    result = backend.list(rp.spec.info, rp.namespace, label_selector=req.param("labelSelector"),
                          field_selector=req.param("fieldSelector"), limit=limit,
                          continue_=req.param("continue") or None,
                          resource_version=req.param("resourceVersion") or None,
                          resource_version_match=req.param("resourceVersionMatch") or None)
    return _render(backend, req, rp, result, many=True)


def _patch(backend: Backend, req: Request, rp: ResourcePath, name: str) -> Response:
    ctype = req.content_type
    if ctype == APPLY_PATCH:
        return _apply(backend, req, rp, name)
    if ctype not in PATCH_TYPES:
        raise UnsupportedMediaType(f'the body of the request was in an unknown format - accepted media '
                                   f'types include: {", ".join((*PATCH_TYPES, APPLY_PATCH))}')
    opts = write_options(req, "PatchOptions", PATCH_TYPES[ctype])
    patch = _patch_document(req, PATCH_TYPES[ctype], opts.field_validation)
    with _manager(req):
        out = backend.patch(rp.spec.info, rp.namespace, name, patch, PATCH_TYPES[ctype], opts,
                            subresource=rp.subresource)
    if not opts.dry_run:
        backend.settle()
    return object_response(out, headers=_warn_headers(opts))


def _patch_document(req: Request, patch_type: str, validation: str) -> Any:
    """The patch; a malformed one fails in the words of its patcher (k8s.io/apiserver
    ``pkg/endpoints/handlers/patch.go``): a JSON or merge patch is first decoded strictly unless
    fieldValidation is Ignore (``error decoding patch: …``), then a JSON patch by ``DecodePatch``
    (Go's message) and a merge patch by ``MergePatch`` (``Invalid JSON Patch``); a strategic merge
    patch by ``strategicPatchObject`` (Go's message)."""
    try:
        return req.parsed()
    except GoSyntaxError as err:
        if patch_type != "strategic" and validation != "Ignore":
            raise BadRequest(f"error decoding patch: {err}") from None
        raise BadRequest("Invalid JSON Patch" if patch_type == "merge" else str(err)) from None


def _manager(req: Request) -> Any:
    """The write is tracked under the request's ``fieldManager`` when it names one
    (:mod:`kbatch.apiserver.apply.tracking`)."""
    return field_manager(req.param("fieldManager"))


def _apply(backend: Backend, req: Request, rp: ResourcePath, name: str) -> Response:
    """Server-side apply: the body is YAML (JSON is YAML too), ``fieldManager`` required, ``force``
    optional (k8s.io/apiserver ``pkg/endpoints/handlers/patch.go``, ``applyPatcher``)."""
    if rp.subresource not in (None, "status"):
        raise MethodNotAllowed(f"apply is not supported on the {rp.subresource} subresource")
    force = req.opt_flag("force")  # PatchOptions.Force, a query *bool: only 0/false (any case) are false
    try:
        docs = yaml_documents(req.body.decode("utf-8") or "null")
    except (YamlError, UnicodeDecodeError) as err:
        raise BadRequest(f"error decoding YAML: {err}") from None
    body = docs[0] if docs else None
    opts = write_options(req, "PatchOptions", "apply")
    existed = _exists(backend, rp, name)
    out = backend.apply(rp.spec.info, rp.namespace, name, body, opts, field_manager=req.param("fieldManager"),
                        force=bool(force), subresource=rp.subresource)
    if not opts.dry_run:
        backend.settle()
    return object_response(out, 200 if existed else 201, headers=_warn_headers(opts))


def _exists(backend: Backend, rp: ResourcePath, name: str) -> bool:
    """Whether the object is there before an apply (an apply-create answers 201, as upstream)."""
    try:
        backend.get(rp.spec.info, rp.namespace, name)
    except NotFound:
        return False
    return True


def handle_resource(backend: Backend, req: Request, rp: ResourcePath) -> Response:
    """Every verb but watch (which streams; see :mod:`kbatch.server.watch`)."""
    info, method, name = rp.spec.info, req.method, rp.name
    if rp.subresource == "eviction":
        return _evict(backend, req, rp)
    if rp.subresource == "log":
        return _pod_log(backend, req, rp)
    if rp.subresource == "proxy" and name is not None:
        raise refuse_proxy(backend.get(info, rp.namespace, proxy_target(name)), method)
    if rp.subresource in STREAMING_SUBRESOURCES and name is not None:
        pod = backend.get(info, rp.namespace, name)
        connection = [v.decode("latin-1") for k, v in req.raw_headers if k.lower() == b"connection"]
        raise refuse_stream(pod, rp.subresource, method, req.param("container"), asks_upgrade(connection))
    if rp.subresource == "finalize" and (method != "PUT" or name is None):
        # upstream's FinalizeREST is an Updater only (pkg/registry/core/namespace/storage/storage.go)
        raise MethodNotAllowed(f"the server does not allow this method on the requested resource ({method})")
    if name is None:
        if method == "GET":
            return _list(backend, req, rp)
        if method == "POST":
            opts = write_options(req)
            body = _check_identity(rp, req, None, opts)
            with _manager(req):
                out = backend.create(info, rp.namespace, body, opts)
            if not opts.dry_run:
                backend.settle()
            return object_response(out, 201, _warn_headers(opts))
        if method == "DELETE":
            return _delete_collection(backend, req, rp)
        raise MethodNotAllowed(f"the server does not allow this method on the requested resource ({method})")
    if method == "GET":
        obj = backend.get(info, rp.namespace, name, resource_version=req.param("resourceVersion") or None)
        return _render(backend, req, rp, obj, many=False)
    if method == "PUT":
        opts = write_options(req, "UpdateOptions")
        body = _check_identity(rp, req, name, opts)
        with _manager(req):
            out = backend.update(info, rp.namespace, name, body, opts, subresource=rp.subresource)
        if not opts.dry_run:
            backend.settle()
        return object_response(out, headers=_warn_headers(opts))
    if method == "PATCH":
        return _patch(backend, req, rp, name)
    if method == "DELETE" and rp.subresource is None:
        dopts = delete_options(req, namespace=info.group == "" and info.kind == "Namespace")
        # pods and CSIDrivers answer with the deleted object (ReturnDeletedObject in
        # pkg/registry/core/pod/storage, pkg/registry/storage/csidriver/storage)
        last = backend.get(info, rp.namespace, name) if info.kind in RETURN_DELETED else None
        gone = backend.delete(info, rp.namespace, name, dopts) or last
        if not dopts.dry_run:
            backend.settle()
        return _deleted(rp, name, gone, tuple(warning_header(w) for w in delete_warnings(rp.spec, dopts)))
    raise MethodNotAllowed(f"the server does not allow this method on the requested resource ({method})")


def _pod_log(backend: Backend, req: Request, rp: ResourcePath) -> Response:
    """``GET pods/{name}/log`` with its ``PodLogOptions`` (:mod:`kbatch.server.pod_log_options`)."""
    if req.method != "GET" or rp.name is None:
        raise MethodNotAllowed(f"{req.method} is not supported on pods/log")
    opts = log_options(req, rp.name, backend.now())
    lines = backend.pod_log_lines(rp.namespace or "default", rp.name, opts.container, previous=opts.previous)
    return Response(200, cut_log(lines, opts), content_type="text/plain")


def _evict(backend: Backend, req: Request, rp: ResourcePath) -> Response:
    """``POST pods/{name}/eviction`` with a policy/v1 (or v1beta1) Eviction: 201 and a Success Status
    whose zero ``code`` the create handler fills with 201 (k8s.io/apiserver ``handlers/create.go``)."""
    if req.method != "POST" or rp.name is None:
        raise MethodNotAllowed(f"{req.method} is not supported on pods/eviction")
    body = req.json()
    if not isinstance(body, dict) or body.get("kind", "Eviction") != "Eviction" or \
            body.get("apiVersion", "policy/v1") not in ("policy/v1", "policy/v1beta1"):
        raise BadRequest("the body of a pods/eviction request must be a policy/v1 Eviction")
    opts = write_options(req)
    out = backend.evict(rp.namespace or "default", rp.name, body, dry_run=opts.dry_run)
    if not opts.dry_run:
        backend.settle()
    if out.get("kind") == "Status" and not out.get("code"):
        out = {**out, "code": 201}
    return json_response(out, 201)


def _delete_collection(backend: Backend, req: Request, rp: ResourcePath) -> Response:
    opts = delete_options(req)
    listed = backend.list(rp.spec.info, rp.namespace, label_selector=req.param("labelSelector"),
                          field_selector=req.param("fieldSelector"))
    for item in listed.get("items") or []:
        meta = item.get("metadata") or {}
        backend.delete(rp.spec.info, meta.get("namespace"), meta.get("name", ""), opts)
    if not opts.dry_run:
        backend.settle()
    return object_response(listed, headers=tuple(warning_header(w) for w in delete_warnings(rp.spec, opts)))


def object_response(obj: dict[str, Any], status: int = 200,
                    headers: tuple[tuple[str, str], ...] = ()) -> Response:
    """An object or list as JSON, unset by-value times as Go writes them (:mod:`kbatch.api.wire_zeros`)."""
    return json_response(with_wire_zeros(obj), status, headers)


def encode_event(event: dict[str, Any]) -> bytes:
    return json.dumps(event, separators=(",", ":")).encode() + b"\n"
