"""Create: namespace resolution, defaulting, admission, system fields, validation, create-if-absent.

Order as kube-apiserver (``staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go``,
``pkg/registry/generic/registry/store.go`` Create, ``pkg/registry/rest/create.go`` BeforeCreate):
decode → defaulting → NamespaceLifecycle → mutating admission → system fields (uid, creationTimestamp) and
the generated name → prepare_for_create, generation 1 → validation (generic metadata + the kind's) →
validating admission → a transaction that writes only if the key does not exist. A generated name that
collides is retried from the admitted object (RetryGenerateName, GA in 1.32: 8 attempts in all).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from kbatch.api.base import private_fields_set
from kbatch.api.errors import AlreadyExists, BadRequest, InternalError, Invalid
from kbatch.api.meta import Resource
from kbatch.api.model_copy import copy_model
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.codec import checked_clone, encode
from kbatch.apiserver.empty_status import fill_status
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.meta_validation import validate_meta
from kbatch.apiserver.names import generate_name, new_uid
from kbatch.apiserver.requester import requester
from kbatch.apiserver.service_ips import allocate_cluster_ip, allocates
from kbatch.store.records import make_compare, make_put

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["add_warnings", "create_object", "resolve_create_namespace"]

T = TypeVar("T", bound=Resource)

# Upstream retries a generated name that collides (RetryGenerateName, GA in 1.32: up to 7 retries).
_GENERATE_ATTEMPTS = 8
_SYSTEM_FIELDS = ("resource_version", "uid", "creation_timestamp", "deletion_timestamp",
                  "deletion_grace_period_seconds", "self_link")


def add_warnings(into: list[str], texts: list[str]) -> None:
    """Append each text not there yet (the request's warning recorder keeps one of each)."""
    into.extend(t for t in texts if t not in into)


def resolve_create_namespace(kind: Kind, obj: Resource, namespace: str | None) -> None:
    """Namespace from the object or the call (they must agree); cleared for cluster-scoped kinds."""
    meta = obj.metadata
    if not kind.info.namespaced:
        meta.namespace = None
        return
    if namespace and meta.namespace and namespace != meta.namespace:
        raise BadRequest("the namespace of the provided object does not match the namespace sent on "
                         "the request")
    meta.namespace = meta.namespace or namespace or "default"


def _fill_system_fields(server: APIServer, kind: Kind, obj: Resource, generated: bool) -> None:
    """Upstream ``FillObjectMetaSystemFields`` then the generated name, both before the strategy's
    ``PrepareForCreate`` (which may derive fields from them: the Job's ``job-name`` labels)."""
    meta = obj.metadata
    # one dict update and one fields-set update instead of six assignments: the same state as
    # assigning each field (values and model_fields_set), ~2 µs less per create
    meta.__dict__.update(resource_version=None, uid=new_uid(server.rng),
                         creation_timestamp=server.timestamp(), deletion_timestamp=None,
                         deletion_grace_period_seconds=None, self_link=None)
    private_fields_set(meta).update(_SYSTEM_FIELDS)
    if generated:
        meta.name = generate_name(meta.generate_name or "", server.rng)
    kind.strategy.prepare_for_create(obj)
    fill_status(kind, obj)  # Go never omits a struct-typed status (empty_status.py)
    # the strategy's PrepareForCreate sets generation 1, for the kinds that keep one
    strategy = kind.strategy
    meta.generation = getattr(strategy, "create_generation", 1) if getattr(strategy, "has_generation", True) \
        else None


def _validate(server: APIServer, kind: Kind, obj: Resource) -> None:
    errors = validate_meta(kind, obj.metadata)
    errors += kind.strategy.validate(obj)
    if errors:
        raise Invalid.of(kind.info.group_kind, obj.metadata.name or obj.metadata.generate_name or "",
                         errors)


def create_object(server: APIServer, obj: T, *, namespace: str | None = None, dry_run: bool = False,
                  warnings: list[str] | None = None) -> T:
    """Create ``obj`` (never kept: the server works on a clone); returns the stored object, shared and
    read only (:mod:`kbatch.api.frozen`). ``warnings`` receives the kind's ``WarningsOnCreate``."""
    kind = server.kind(type(obj))
    if obj.metadata.resource_version:
        # upstream's etcd3 store refuses it, and the API answers 500 with this text
        raise InternalError("Internal error occurred: resourceVersion should not be set on objects to be "
                            "created")
    admitted = checked_clone(obj)  # validated as a request body: a wrong type is a BadRequest
    resolve_create_namespace(kind, admitted, namespace)
    kind.strategy.default(admitted)
    server.namespaces.admit_create(kind, admitted)  # NamespaceLifecycle runs first among admission plugins
    request = AdmissionRequest("CREATE", admitted, None, dry_run=dry_run, warnings=warnings,
                               user=requester())
    server.admission.mutate(request)
    generated = not admitted.metadata.name and bool(admitted.metadata.generate_name)
    # With a generated name, each attempt starts again from the admitted object (upstream
    # createWithGenerateNameRetry: system fields, name, strategy, validation, admission, write).
    for _ in range(_GENERATE_ATTEMPTS if generated else 1):
        work = copy_model(admitted) if generated else admitted
        _fill_system_fields(server, kind, work, generated)
        _validate(server, kind, work)
        if warnings is not None:  # rest.BeforeCreate: after validation, before validating admission
            add_warnings(warnings, kind.strategy.warnings_on_create(work))
        server.admission.validate(request if work is admitted else request._replace(obj=work))
        if allocates(kind.info):  # the Service REST's beginCreate (service_ips.py), dry run included
            allocate_cluster_ip(server, work)
        if dry_run:
            return work
        key = kind.keys.key(work.metadata.namespace, work.name)
        data = encode(work)
        result = server.store.txn([make_compare(key, "create", "=", 0)], [make_put(key, data)])
        if result.succeeded:
            return server.decoded.written(kind.model, key, result.revision, data, work)  # type: ignore[return-value]
    err = AlreadyExists.of(kind.info.group_resource, work.name)
    if generated:
        raise AlreadyExists(err.message + ", the server was not able to generate a unique name for the "
                            "object", details=err.details)
    raise err
