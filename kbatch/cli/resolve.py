"""Turning what a user types into API coordinates: kinds, ``KIND/NAME``, namespaces."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.cli.errors import UserError

if TYPE_CHECKING:
    from kbatch.api.base import ApiInfo

__all__ = ["DEFAULT_NAMESPACE", "kind_info", "kinds_for", "namespace_for", "split_kind_name"]

DEFAULT_NAMESPACE = "default"


def kind_info(registry: Any, name: str) -> ApiInfo:
    """``po``, ``pods``, ``Pod``, ``jobs.batch`` → the kind's ApiInfo. Otherwise kubectl's message,
    which names the resource part alone (cli-runtime ``resource/builder.go`` ``mappingFor`` prints
    ``schema.ParseGroupResource(arg).Resource``: ``workloads.scheduling.k8s.io`` → ``workloads``).

    A resource served without storage and without reads (a create-only review,
    ``Family.virtual``) is in discovery, so kubectl's RESTMapper finds it and sends the request; the
    server has no ``GET`` route for it and go-restful answers 405 (``virtual_verb`` in
    :mod:`kbatch.server.virtual`), which kubectl prints as ``Error from server (MethodNotAllowed)``."""
    from kbatch.api.errors import MethodNotAllowed, StatusError

    try:
        return registry.for_name(name).info
    except StatusError:
        if _unreadable_virtual(registry, name):
            raise MethodNotAllowed("the server does not allow this method on the requested resource") \
                from None
        resource = name.split(".", 1)[0]
        raise UserError(f'the server doesn\'t have a resource type "{resource}"') from None


def _unreadable_virtual(registry: Any, name: str) -> bool:
    """Whether ``name`` is a create-only virtual resource's plural or singular name, bare or
    qualified by its group (``subjectaccessreviews.authorization.k8s.io``) or version and group."""
    wanted = name.lower()
    for resource in registry.virtual():
        if {"get", "list"} & set(resource.verbs):
            continue
        for bare in (resource.plural, resource.singular_name):
            qualified = (bare, f"{bare}.{resource.group}", f"{bare}.{resource.version}.{resource.group}")
            if wanted in qualified:
                return True
    return False


def kinds_for(registry: Any, name: str) -> list[ApiInfo]:
    """A category (``all``: the kinds whose discovery entry lists it, in discovery order) or one kind.

    kubectl expands categories first (cli-runtime ``resource/builder.go`` ``replaceAliases`` with the
    discovery-backed ``CategoryExpander``), so a category wins over a kind of the same name."""
    members: dict[tuple[str, str], ApiInfo] = {}
    for spec in registry:
        if name in spec.info.categories:
            members.setdefault((spec.info.group, spec.info.kind), spec.info)  # the preferred version
    return list(members.values()) or [kind_info(registry, name)]


def split_kind_name(text: str, name: str | None = None) -> tuple[str, str | None]:
    """``job/pi`` → (``job``, ``pi``); ``job`` with a separate NAME → (``job``, NAME)."""
    if "/" in text:
        if name:
            raise UserError("there is no need to specify a resource type as a separate argument when "
                            "passing arguments in resource/name form")
        kind, _, obj = text.partition("/")
        if not kind or not obj:
            raise UserError(f'arguments in resource/name form must have a single resource and name: "{text}"')
        return kind, obj
    return text, name


def namespace_for(info: ApiInfo, namespace: str | None, all_namespaces: bool = False) -> str | None:
    """The namespace a request goes to: ``None`` for cluster-scoped kinds and for ``-A``."""
    if not info.namespaced or all_namespaces:
        return None
    return namespace or DEFAULT_NAMESPACE
