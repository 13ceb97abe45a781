"""The REST side of kbatch's API types, for the HTTP clients (the CLI's ``--server`` backend,
MultiKueue's worker clients): where an object lives on an API server, and which error a ``Status``
body stands for.

The path is client-go's (``rest.Request``: ``/api/v1`` for the core group, ``/apis/GROUP/VERSION``
otherwise, then ``namespaces/NS`` for a namespaced kind, the resource, the name, the subresource);
the error is the ``StatusError`` of the body's ``reason`` (apimachinery ``errors.FromObject``), with
its ``details``; an unknown reason is an internal error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.api import errors
from kbatch.api.base import ApiInfo

__all__ = ["STATUS_ERRORS", "resource_path", "status_error"]

STATUS_ERRORS: dict[str, type[errors.StatusError]] = {cls.reason: cls for cls in (
    errors.BadRequest, errors.Unauthorized, errors.Forbidden, errors.NotFound, errors.MethodNotAllowed,
    errors.NotAcceptable, errors.AlreadyExists, errors.Conflict, errors.Expired, errors.UnsupportedMediaType,
    errors.Invalid, errors.TooManyRequests, errors.InternalError, errors.Timeout, errors.ServiceUnavailable)}


def resource_path(info: ApiInfo, namespace: str | None, name: str | None = None,
                  sub: str | None = None) -> str:
    """The URL path of ``info``'s resource (its collection without ``name``)."""
    base = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
    if info.namespaced and namespace:
        base += f"/namespaces/{namespace}"
    base += f"/{info.plural}"
    if name:
        base += f"/{name}"
    if sub:
        base += f"/{sub}"
    return base


def status_error(body: Mapping[str, Any], fallback: str) -> errors.StatusError:
    """The error a failure ``Status`` body stands for; ``fallback`` is its message when it has none."""
    message = body.get("message") or fallback
    err = STATUS_ERRORS.get(str(body.get("reason") or ""), errors.InternalError)(str(message))
    if body.get("details"):
        err.details = errors.StatusDetails.model_validate(body["details"])
    return err
