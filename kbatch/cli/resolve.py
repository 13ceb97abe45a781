"""Turning what a user types into API coordinates: kinds, ``KIND/NAME``, namespaces."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.cli.errors import UserError

if TYPE_CHECKING:
    from kbatch.api.base import ApiInfo

__all__ = ["DEFAULT_NAMESPACE", "kind_info", "namespace_for", "split_kind_name"]

DEFAULT_NAMESPACE = "default"


def kind_info(registry: Any, name: str) -> ApiInfo:
    """``po``, ``pods``, ``Pod``, ``jobs.batch`` → the kind's ApiInfo (kubectl's message otherwise)."""
    from kbatch.api.errors import StatusError

    try:
        return registry.for_name(name).info
    except StatusError:
        raise UserError(f'the server doesn\'t have a resource type "{name}"') from None


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
