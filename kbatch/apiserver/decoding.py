"""Decoding wire dicts into typed objects, with fieldValidation Strict / Warn / Ignore.

Upstream (KEP-2885, ``staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go``): Strict rejects
unknown fields with ``BadRequest: strict decoding error: unknown field "spec.foo"``; Warn drops them
and returns one warning per field; Ignore drops them silently. Any other decode failure (a wrong type,
a bad time) is a ``BadRequest`` naming the field path, as upstream's JSON decode errors are.
"""

from __future__ import annotations

import copy
from typing import Any, Literal, TypeVar

from pydantic import ValidationError

from kbatch.api.errors import BadRequest, StatusCause, StatusDetails
from kbatch.api.meta import Resource

__all__ = ["FieldValidation", "decode_dict", "loc_path"]

T = TypeVar("T", bound=Resource)
FieldValidation = Literal["Strict", "Warn", "Ignore"]


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


def _model_errors(err: ValidationError) -> list[dict[str, Any]]:
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
            return model.__pydantic_validator__.validate_python(work), warnings
        except ValidationError as err:
            errors = _model_errors(err)
        unknown = [e for e in errors if e["type"] == "extra_forbidden"]
        other = [e for e in errors if e["type"] != "extra_forbidden"]
        if other:
            raise _decode_error(model, other) from None
        paths = sorted(loc_path(e["loc"]) for e in unknown)
        if field_validation == "Strict":
            raise BadRequest("strict decoding error: " + ", ".join(f'unknown field "{p}"' for p in paths))
        if work is data:
            work = copy.deepcopy(data)
        for e in unknown:
            _drop(work, e["loc"])
        if field_validation == "Warn":
            warnings += [f'unknown field "{p}"' for p in paths]
    raise BadRequest("could not decode object")


def _decode_error(model: type[Resource], errors: list[dict[str, Any]]) -> BadRequest:
    info = model.api_info
    rendered = [f"{loc_path(e['loc'])}: {e['msg']}" for e in errors]
    causes = [StatusCause(reason="FieldValueInvalid", message=e["msg"], field=loc_path(e["loc"]) or None)
              for e in errors]
    message = (f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: '
               + "; ".join(rendered))
    return BadRequest(message, details=StatusDetails(kind=info.kind, group=info.group or None, causes=causes))
