"""Decoding wire dicts into typed objects, with fieldValidation Strict / Warn / Ignore.

Upstream (KEP-2885, ``staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go``): Strict rejects
unknown fields with ``BadRequest: strict decoding error: unknown field "spec.foo"``; Warn drops them
and returns one warning per field; Ignore drops them silently. Any other decode failure is a ``BadRequest``
naming the field: a value of the wrong JSON type in Go's words (:mod:`kbatch.apiserver.go_json`:
``Job in version "v1" cannot be handled as a Job: json: cannot unmarshal string into Go struct field
Job.spec of type v1.JobSpec``; like Go's decoder, the message names the first one), anything else (a
bad quantity, a bad time) as ``<field path>: <message>``; ``details.causes`` lists every failure.
A ``null`` for a field of a struct is no failure: Go's decoder ignores it, so it reads as absent; a
``null`` value of a map or item of a list is stored as the element's zero value (``go_json.ignored_null``).
"""

from __future__ import annotations

import base64
import copy
from typing import Any, Literal, TypeVar

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from kbatch.api.base import ApiInfo, wire_validate
from kbatch.api.errors import BadRequest, StatusCause, StatusDetails
from kbatch.api.go_base64 import CorruptInputError, std_decode
from kbatch.api.meta import Resource
from kbatch.apiserver.go_json import NullRead, ignored_null, type_error

__all__ = ["FieldValidation", "StrictDecodingError", "cannot_handle", "decode_dict", "loc_path",
           "unrecognized"]

T = TypeVar("T", bound=Resource)
FieldValidation = Literal["Strict", "Warn", "Ignore"]


class StrictDecodingError(BadRequest):
    """Unknown fields under fieldValidation Strict. A create or update body wraps it in
    :func:`cannot_handle` (k8s.io/apiserver ``handlers/create.go`` and ``update.go`` pass it to
    ``transformDecodeError``); a patch answers it bare (``handlers/patch.go``)."""


def loc_path(loc: tuple[int | str, ...]) -> str:
    """pydantic's error location as a Kubernetes field path: ``spec.containers[0].name``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _drop(data: Any, loc: tuple[int | str, ...]) -> None:
    node = data
    for part in loc[:-1]:
        node = node[part]
    if isinstance(node, dict):
        node.pop(loc[-1], None)


def _null(data: Any, loc: tuple[int | str, ...], how: NullRead) -> None:
    node = data
    for part in loc[:-1]:
        node = node[part]
    if how.drop:
        node.pop(loc[-1], None)
    else:
        node[loc[-1]] = copy.deepcopy(how.zero)


def _model_errors(err: ValidationError) -> list[ErrorDetails]:
    return list(err.errors(include_url=False))


def decode_dict(model: type[T], data: dict[str, Any], field_validation: FieldValidation = "Strict",
                ) -> tuple[T, list[str]]:
    """Decode ``data`` (not mutated); returns the object and the warnings."""
    if field_validation not in ("Strict", "Warn", "Ignore"):
        raise BadRequest(f'fieldValidation must be one of "Strict", "Warn", "Ignore", got '
                         f'"{field_validation}"')
    warnings: list[str] = []
    work = data
    for _ in range(8):
        try:
            # the validator itself: model_validate only adds a wrapper call (the same checks)
            obj = wire_validate(model, work)
            return _decode_bytes(obj), warnings
        except ValidationError as err:
            errors = _model_errors(err)
        nulls = [(e, how) for e in errors if (how := ignored_null(model, e))]
        unknown = [e for e in errors if e["type"] == "extra_forbidden"]
        other = [e for e in errors if e["type"] != "extra_forbidden" and not ignored_null(model, e)]
        if other:
            raise _decode_error(model, other) from None
        if nulls:  # what Go's decoder makes of a null it does not refuse (go_json.ignored_null)
            work = work if work is not data else copy.deepcopy(data)
            for e, how in nulls:
                _null(work, e["loc"], how)
            if not unknown:
                continue
        paths = sorted(loc_path(e["loc"]) for e in unknown)
        if field_validation == "Strict":
            raise StrictDecodingError("strict decoding error: "
                                      + ", ".join(f'unknown field "{p}"' for p in paths))
        if work is data:
            work = copy.deepcopy(data)
        for e in unknown:
            _drop(work, e["loc"])
        if field_validation == "Warn":
            warnings += [f'unknown field "{p}"' for p in paths]
    raise BadRequest("could not decode object")


def _decode_bytes(obj: T) -> T:
    """The ``[]byte`` fields (``go_bytes_fields``: Secret ``data``, ConfigMap ``binaryData``) as Go's
    decoder reads them, ``base64.StdEncoding`` per value: one that does not decode fails the body
    (the first in the body's order, as ``encoding/json`` keeps its first error), one that does is
    kept as Go re-encodes the bytes (newlines gone, trailing bits zeroed)."""
    for name in getattr(obj, "go_bytes_fields", ()):
        values = getattr(obj, name)
        if not values:
            continue
        try:
            canonical = {k: base64.b64encode(std_decode(v)).decode() for k, v in values.items()}
        except CorruptInputError as err:
            raise cannot_handle(obj.api_info, str(err)) from None
        if canonical != values:
            setattr(obj, name, canonical)
    return obj


def cannot_handle(info: ApiInfo, text: str, details: StatusDetails | None = None) -> BadRequest:
    """A body of the right kind that does not decode: ``Job in version "v1" cannot be handled as a
    Job: …`` (``transformDecodeError``, k8s.io/apiserver ``pkg/endpoints/handlers/rest.go``)."""
    return BadRequest(f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: {text}',
                      details=details)


def unrecognized(kind: str, text: str, body: bytes) -> BadRequest:
    """A body whose kind could not even be read: ``the object provided is unrecognized (must be of
    type Job): … (<the first 30 bytes>)`` (``transformDecodeError`` with ``summarizeData``)."""
    if not body:
        summary = "<empty>"
    elif body[:1] == b"{":
        summary = body[:30].decode("utf-8", "replace") + (" ..." if len(body) > 30 else "")
    else:
        summary = body[:30].hex() + (" ..." if len(body) > 30 else "")
    return BadRequest(f"the object provided is unrecognized (must be of type {kind}): {text} ({summary})")


def _decode_error(model: type[Resource], errors: list[ErrorDetails]) -> BadRequest:
    info = model.api_info
    go = [type_error(model, e) for e in errors]
    rendered = [f"{loc_path(e['loc'])}: {e['msg']}" for e in errors]
    causes = [StatusCause(reason="FieldValueInvalid", message=g or e["msg"], field=loc_path(e["loc"]) or None)
              for e, g in zip(errors, go, strict=True)]
    first = next((g for g in go if g), None)
    return cannot_handle(info, first or "; ".join(rendered),
                         StatusDetails(kind=info.kind, group=info.group or None, causes=causes))
