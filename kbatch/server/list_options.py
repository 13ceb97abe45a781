"""The query's ListOptions rules that depend on whether the request is a watch.

Upstream: ``apimachinery/pkg/apis/meta/internalversion/validation`` ``ValidateListOptions`` (and its
``validateWatchOptions``), called by the list handler (``apiserver/pkg/endpoints/handlers/get.go``)
with every error in one ``Invalid`` of ``ListOptions.meta.k8s.io``. kbatch serve answers as a
server with the WatchList feature gate off (it does not implement streaming lists; docs/serve.md),
so ``sendInitialEvents`` on a watch is always refused, and so clients fall back to list+watch. The
``resourceVersionMatch`` rules of a plain list are :func:`kbatch.apiserver.listing.validate_list_options`.

A ``sendInitialEvents`` parameter counts when present at all, as Go decodes a query value into a
``*bool`` (any value, even ``false``, makes it non-nil).
"""

from __future__ import annotations

from kbatch.api.errors import FieldError, Invalid
from kbatch.server.http import Request

__all__ = ["validate_list_request", "validate_watch_request"]

_GROUP_KIND = "ListOptions.meta.k8s.io"
_NOT_OLDER_THAN = "NotOlderThan"


def list_errors(send_initial_events: bool) -> list[FieldError]:
    if send_initial_events:
        return [FieldError.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list")]
    return []


def watch_errors(send_initial_events: bool, match: str, continue_: str) -> list[FieldError]:
    """``validateWatchOptions`` with the WatchList feature gate off, errors in its order."""
    errors = []
    if send_initial_events:
        if match != _NOT_OLDER_THAN:
            errors.append(FieldError.forbidden("resourceVersionMatch", "sendInitialEvents requires setting "
                                               f"resourceVersionMatch to {_NOT_OLDER_THAN}"))
        errors.append(FieldError.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for watch "
                                           "unless the WatchList feature gate is enabled"))
    if match:
        if not send_initial_events:
            errors.append(FieldError.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden "
                                               "for watch unless sendInitialEvents is provided"))
        if match != _NOT_OLDER_THAN:
            errors.append(FieldError.not_supported("resourceVersionMatch", match, [_NOT_OLDER_THAN]))
        if continue_:
            errors.append(FieldError.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden "
                                               "when continue is provided"))
    return errors


def validate_list_request(req: Request) -> None:
    _decode_integers(req)
    _raise(list_errors(req.param("sendInitialEvents") is not None))


def validate_watch_request(req: Request) -> None:
    _decode_integers(req)
    _raise(watch_errors(req.param("sendInitialEvents") is not None, req.param("resourceVersionMatch") or "",
                        req.param("continue") or ""))


def _decode_integers(req: Request) -> None:
    """The parameter codec decodes every ListOptions field before validation, for a list and a watch
    alike, in the struct's order (``Convert_url_Values_To_v1_ListOptions``): a bad ``timeoutSeconds``
    is a BadRequest on a plain list too, and is named before a bad ``limit``."""
    for name in ("timeoutSeconds", "limit"):
        req.int_param(name)


def _raise(errors: list[FieldError]) -> None:
    if errors:
        raise Invalid.of(_GROUP_KIND, "", errors)
