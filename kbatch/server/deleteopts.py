"""``DeleteOptions`` of a DELETE request, from its body (a ``meta.k8s.io/v1`` DeleteOptions) or query.

The body is decoded as kube-apiserver decodes it into ``metav1.DeleteOptions`` (non-strict: unknown
fields are ignored); a field of the wrong JSON type is refused in Go's words
(:mod:`kbatch.apiserver.go_json`): ``json: cannot unmarshal string into Go struct field
DeleteOptions.gracePeriodSeconds of type int64``, a 400 BadRequest as the DELETE handlers wrap a
decode error (k8s.io/apiserver ``pkg/endpoints/handlers/delete.go``, ``errors.NewBadRequest``).
``null`` leaves a field unset, as Go's decoder does. The options are then checked as
``ValidateDeleteOptions`` (:mod:`kbatch.apiserver.write_options`); ``orphanDependents`` in the query is
a Go ``*bool`` (present: true unless ``0`` or ``false``). A body, when there is one, is the only
source of the options: the query's are then ignored, as upstream.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import BadRequest
from kbatch.api.registry import KindSpec
from kbatch.apiserver.go_json import cannot_unmarshal, json_kind
from kbatch.apiserver.write_options import check_delete_options, delete_option_errors
from kbatch.server.backend import DeleteOptions
from kbatch.server.http import Request

__all__ = ["JOB_ORPHAN_WARNING", "delete_options", "delete_warnings"]

# field → (JSON kind it must have, Go type); a list's items are strings
_FIELDS = {
    "kind": ("string", "string"),
    "apiVersion": ("string", "string"),
    "gracePeriodSeconds": ("number", "int64"),
    "preconditions": ("object", "v1.Preconditions"),
    "orphanDependents": ("bool", "bool"),
    "propagationPolicy": ("string", "v1.DeletionPropagation"),
    "dryRun": ("array", "[]string"),
}
_PRECONDITIONS = {"uid": "types.UID", "resourceVersion": "string"}


def _decoded(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise BadRequest(f"json: cannot unmarshal {json_kind(body)} into Go value of type v1.DeleteOptions")
    out: dict[str, Any] = {}
    for name, value in body.items():
        if name not in _FIELDS or value is None:
            continue
        kind, go_type = _FIELDS[name]
        integral = isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**63
        if json_kind(value) != kind or (kind == "number" and not integral):
            number = kind == "number"
            raise BadRequest(cannot_unmarshal(value, "DeleteOptions", name, go_type, integer=number))
        out[name] = value
    for item in out.get("dryRun", ()):
        if not isinstance(item, str):
            raise BadRequest(cannot_unmarshal(item, "DeleteOptions", "dryRun", "string"))
    for name, go_type in _PRECONDITIONS.items():
        value = out.get("preconditions", {}).get(name)
        if value is not None and not isinstance(value, str):
            raise BadRequest(cannot_unmarshal(value, "Preconditions", f"preconditions.{name}", go_type))
    return out


def delete_options(req: Request, *, namespace: bool = False) -> DeleteOptions:
    """The options from the body when there is one, else from the query, never a mix of both
    (k8s.io/apiserver ``pkg/endpoints/handlers/delete.go``, DeleteResource and DeleteCollection: a
    non-empty body is decoded into DeleteOptions, only an empty one lets ``DecodeParameters`` read
    the query). kubectl and client-go send the options as a body. ``namespace``: the request deletes
    a Namespace, whose storage reads ``orphanDependents: false`` as Foreground
    (``pkg/registry/core/namespace/storage`` shouldHaveDeleteDependentsFinalizer)."""
    body = _decoded(req.json()) if req.body else _from_query(req)
    pre = body.get("preconditions") or {}
    grace = body.get("gracePeriodSeconds")
    policy = body.get("propagationPolicy")
    orphan = body.get("orphanDependents")
    dry = body.get("dryRun") or []
    check_delete_options(delete_option_errors(dry, policy, orphan is not None))
    if orphan is not None:
        # store.go shouldOrphanDependents / shouldDeleteDependentsInForeground: orphanDependents,
        # when set, overrides the object's GC finalizer and the kind's default; false means neither
        # finalizer, which is Background
        policy = "Orphan" if orphan else ("Foreground" if namespace else "Background")
    return DeleteOptions(propagation_policy=policy, grace_period_seconds=grace, uid=pre.get("uid"),
                         resource_version=pre.get("resourceVersion"), dry_run=bool(dry),
                         policy_unset=policy is None and orphan is None)


def _from_query(req: Request) -> dict[str, Any]:
    """DeleteOptions' query parameters as the body's fields (preconditions have none); an absent
    one stays unset, ``orphanDependents`` is a Go query ``*bool``."""
    fields = {"gracePeriodSeconds": req.int_param("gracePeriodSeconds"),
              "propagationPolicy": req.param("propagationPolicy") or None,
              "orphanDependents": req.opt_flag("orphanDependents"),
              "dryRun": req.query.get("dryRun")}
    return {k: v for k, v in fields.items() if v is not None}


# pkg/registry/batch/job/storage/storage.go (deleteOptionWarnings): REST.Delete and DeleteCollection
# warn when a batch/v1 Job delete leaves the policy to the kind's default, which orphans the pods
JOB_ORPHAN_WARNING = ("child pods are preserved by default when jobs are deleted; set "
                      "propagationPolicy=Background to remove them or set propagationPolicy=Orphan to "
                      "suppress this warning")


def delete_warnings(spec: KindSpec, opts: DeleteOptions) -> list[str]:
    """The ``Warning:`` texts of a delete (or delete-collection) with these options."""
    job = spec.info.group == "batch" and spec.info.kind == "Job"
    return [JOB_ORPHAN_WARNING] if job and opts.policy_unset and spec.gc_policy == "Orphan" else []
