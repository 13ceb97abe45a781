"""Errors a :class:`~conformance.target.Target` raises, mirroring the Kubernetes ``Status`` reasons.

The in-process target raises kbatch's own ``StatusError`` subclasses; the HTTP target raises these,
built from the ``Status`` body the server answered. Both carry ``code``, ``reason`` and ``message``
(and the same class names: ``NotFound``, ``AlreadyExists``, ``Conflict``, ``Invalid``, …), so a check
that needs to look at a failure should test ``err.reason`` / ``err.code``, which works on every target.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AlreadyExists", "BadRequest", "Conflict", "Expired", "Forbidden", "Invalid", "MethodNotAllowed",
           "NotFound", "TargetError", "Unauthorized", "UnsupportedMediaType", "from_status", "status_of"]


class TargetError(Exception):
    """An API failure: HTTP ``code``, Status ``reason`` and ``message``, the whole ``status`` dict."""

    code: int = 500
    reason: str = "InternalError"

    def __init__(self, message: str, *, status: dict[str, Any] | None = None,
                 code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status: dict[str, Any] = status or {}
        if code is not None:
            self.code = code

    @property
    def causes(self) -> list[dict[str, Any]]:
        """``details.causes`` (one per invalid field for ``Invalid``)."""
        return list((self.status.get("details") or {}).get("causes") or ())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class BadRequest(TargetError):
    code, reason = 400, "BadRequest"


class Unauthorized(TargetError):
    code, reason = 401, "Unauthorized"


class Forbidden(TargetError):
    code, reason = 403, "Forbidden"


class NotFound(TargetError):
    code, reason = 404, "NotFound"


class MethodNotAllowed(TargetError):
    code, reason = 405, "MethodNotAllowed"


class AlreadyExists(TargetError):
    code, reason = 409, "AlreadyExists"


class Conflict(TargetError):
    code, reason = 409, "Conflict"


class Expired(TargetError):
    code, reason = 410, "Expired"


class UnsupportedMediaType(TargetError):
    code, reason = 415, "UnsupportedMediaType"


class Invalid(TargetError):
    code, reason = 422, "Invalid"


_BY_REASON = {cls.reason: cls for cls in (BadRequest, Unauthorized, Forbidden, NotFound, MethodNotAllowed,
                                          AlreadyExists, Conflict, Expired, UnsupportedMediaType, Invalid)}
_BY_CODE = {400: BadRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound, 405: MethodNotAllowed,
            409: Conflict, 410: Expired, 415: UnsupportedMediaType, 422: Invalid}


def from_status(code: int, body: Any, fallback: str = "") -> TargetError:
    """The error for an HTTP answer: by the Status ``reason`` when there is one, else by ``code``."""
    status = body if isinstance(body, dict) and body.get("kind") == "Status" else {}
    cls = _BY_REASON.get(status.get("reason", "")) or _BY_CODE.get(code, TargetError)
    message = status.get("message") or fallback or f"HTTP {code}"
    return cls(message, status=status, code=code)


def status_of(err: BaseException) -> dict[str, Any] | None:
    """The wire-form ``Status`` (``code``, ``reason``, ``message``, ``details.causes``) an API failure
    carries, on every target: the HTTP target's errors keep the body as ``status`` (a dict); the
    in-process target's kbatch errors expose a ``status`` model (``to_dict()``). None for an exception
    that is no API failure."""
    status = getattr(err, "status", None)
    if callable(status):
        status = status()
    if hasattr(status, "to_dict"):
        status = status.to_dict()
    if not isinstance(status, dict) or not status:
        return None
    return {**status, "code": status.get("code") or getattr(err, "code", None)}
