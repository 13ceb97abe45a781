"""The error a failed response without a ``Status`` body becomes, as client-go makes it.

Upstream: client-go ``rest/request.go`` ``newUnstructuredResponseError`` (the server's text, trimmed,
when the response is textual, else ``unknown``; the group and resource and name of the request) and
k8s.io/apimachinery v0.37.0-beta.0 ``pkg/api/errors/errors.go`` ``NewGenericServerResponse``: a
reason and a fixed message per status code (a 404 is ``NotFound``, ``the server could not find the
requested resource``), then `` (<verb> <resource>.<group> <name>)`` when the request named a
resource, and a cause ``UnexpectedServerResponse`` carrying the server's text. So ``kbatch --server``
prints what kubectl prints for, e.g., the plain-text 404 of a group the server does not serve.
"""

from __future__ import annotations

from kbatch.api import errors

__all__ = ["generic_server_error"]

_BY_CODE: dict[int, tuple[str, str]] = {  # code -> (reason, message); "" message: the server's own
    400: ("BadRequest", "the server rejected our request for an unknown reason"),
    401: ("Unauthorized", "the server has asked for the client to provide credentials"),
    403: ("Forbidden", ""),
    404: ("NotFound", "the server could not find the requested resource"),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
    415: ("UnsupportedMediaType", ""),
    422: ("Invalid", "the server rejected our request due to an error in our request"),
    429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
    504: ("Timeout", "the server was unable to return a response in the time allotted, but may still be "
                    "processing the request"),
}


def _reason_message(code: int, method: str, text: str) -> tuple[str, str]:
    if code == 409:
        return ("AlreadyExists" if method == "POST" else "Conflict"), "the server reported a conflict"
    if code == 406:
        message = text if text and text != "unknown" else \
            "the server was unable to respond with a content type that the client supports"
        return "NotAcceptable", message
    if code in _BY_CODE:
        reason, message = _BY_CODE[code]
        return reason, message or text
    if code >= 500:
        quoted = text.replace("\\", "\\\\").replace('"', '\\"')
        return "InternalError", f'an error on the server ("{quoted}") has prevented the request from ' \
                                'succeeding'
    return "", f"the server responded with the status code {code} but did not return more information"


def _resource(path: str) -> tuple[str, str, str]:
    """(group, resource, name) of a request path: ``/apis/G/V[/namespaces/NS]/R[/NAME]``."""
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["api"] and len(parts) >= 2:
        group, rest = "", parts[2:]
    elif parts[:1] == ["apis"] and len(parts) >= 3:
        group, rest = parts[1], parts[3:]
    else:
        return "", "", ""
    if rest[:1] == ["namespaces"] and len(rest) >= 3:
        rest = rest[2:]
    return group, (rest[0] if rest else ""), (rest[1] if len(rest) > 1 else "")


def generic_server_error(code: int, method: str, path: str, text: str) -> errors.StatusError:
    """``NewGenericServerResponse`` for a response of ``code`` whose body (``text``: the trimmed body of
    a textual response, else ``unknown``) is no Status."""
    reason, message = _reason_message(code, method, text)
    group, resource, name = _resource(path)
    if resource:
        qualified = f"{resource}.{group}" if group else resource
        message += f" ({method.lower()} {qualified} {name})" if name else f" ({method.lower()} {qualified})"
    err = errors.StatusError(message, details=errors.StatusDetails(
        group=group or None, kind=resource or None, name=name or None,
        causes=[errors.StatusCause(reason="UnexpectedServerResponse", message=text)]))
    err.code, err.reason = code, reason
    return err
