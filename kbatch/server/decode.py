"""Decoding request bodies into models under ``fieldValidation`` (KEP-2885).

``Strict`` rejects unknown fields with 400 BadRequest naming each one (``strict decoding error:
unknown field "spec.foo"``); ``Warn`` drops them and returns one warning per field; ``Ignore`` drops
them silently. Type errors are 400 BadRequest too ("cannot be handled as a Job"), as upstream's
decoder reports them before validation runs.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import ValidationError

from kbatch.api.errors import BadRequest
from kbatch.api.registry import KindSpec

__all__ = ["decode_object"]


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _drop(body: dict[str, Any], loc: tuple[Any, ...]) -> None:
    node: Any = body
    for part in loc[:-1]:
        node = node[part]
    node.pop(loc[-1], None)


def decode_object(spec: KindSpec, body: dict[str, Any], field_validation: str = "Strict",
                  warnings: list[str] | None = None) -> Any:
    info = spec.info
    prefix = f"{info.kind} in version \"{info.version}\" cannot be handled as a {info.kind}"
    data = body
    for _ in range(3):  # unknown fields dropped at most a few times (nested extras surface in turn)
        try:
            return spec.model.model_validate(data)
        except ValidationError as err:
            unknown = [e for e in err.errors() if e["type"] == "extra_forbidden"]
            others = [e for e in err.errors() if e["type"] != "extra_forbidden"]
            if others:
                first = others[0]
                raise BadRequest(f"{prefix}: {_path(first['loc'])}: {first['msg']}") from None
            names = [f'unknown field "{_path(e["loc"])}"' for e in unknown]
            if field_validation == "Strict":
                raise BadRequest(f"{prefix}: strict decoding error: {', '.join(names)}") from None
            if data is body:
                data = copy.deepcopy(body)
            for e in unknown:
                _drop(data, e["loc"])
            if field_validation == "Warn" and warnings is not None:
                warnings.extend(names)
    raise BadRequest(f"{prefix}: the object could not be decoded")
