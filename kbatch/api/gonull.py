"""JSON ``null`` as Go's decoder takes it, as a pass over the data before a model validates it.

Go's ``encoding/json`` (and ``sigs.k8s.io/json``, the fork Kubernetes and Kueue decode with:
``internal/golang/encoding/json/decode.go``) refuses no ``null``: ``literalStore`` sets an
interface, pointer, map or slice to nil and leaves a value of any other kind as it was. Decoding
into a new object, a ``null`` field is therefore the field absent; a ``null`` list item or map value
is the element's zero value (``""``, ``0``, ``false``, a struct whose every field is zero). A type
that decodes itself gets the ``null`` when the field is no pointer (``indirect`` stops at a settable
pointer only for ``null``): :class:`kbatch.api.gotypes.NullAs` says what it makes of it
(``metav1.Duration``: the empty string, which ``time.ParseDuration`` refuses), and
``resource.Quantity`` takes ``null`` as zero.

kbatch's models say ``None`` for an absent field: a ``null`` field is dropped (left to its default);
a ``null`` item or value, which pydantic would refuse, becomes the element's zero in wire shape.
Unknown fields are left alone: the strict decoder names them and never reads their values.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from kbatch.api.gotypes import NullAs
from kbatch.api.quantity import Quantity

__all__ = ["resolve_nulls"]

_ABSENT = object()
_SCALAR_ZEROS: dict[Any, Any] = {str: "", bool: False, int: 0, float: 0.0, Quantity: "0"}


def resolve_nulls(model: type[BaseModel], data: Any) -> Any:
    """``data`` (wire shape, to be decoded as ``model``) with each ``null`` as Go decodes it, and
    each field kbatch's model requires (as the schema it publishes does) but the document omits at
    its zero, as Go leaves an omitted field; copied, never changed in place."""
    if not isinstance(data, Mapping):
        return data  # a type error for the model's validation to report
    fields = {info.alias or name: info for name, info in model.model_fields.items()}
    out: dict[str, Any] = {}
    for key, value in data.items():
        info = fields.get(key)
        if info is None:
            out[key] = value
        elif value is not None:
            out[key] = _resolve(info.annotation, value)
        else:
            null_as = _null_as([*_unwrap(info.annotation)[1], *info.metadata])
            if null_as is not _ABSENT:
                out[key] = null_as
    for key, info in fields.items():
        if info.is_required() and key not in out:
            out[key] = _zero(info.annotation)
    return out


def _unwrap(annotation: Any) -> tuple[Any, list[Any]]:
    """The type under ``X | None`` and ``Annotated[X, ...]``, with the annotations met."""
    metadata: list[Any] = []
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation, *extra = get_args(annotation)
            metadata += extra
        elif origin in (Union, types.UnionType):
            members = [arg for arg in get_args(annotation) if arg is not type(None)]
            if len(members) != 1:
                return annotation, metadata
            annotation = members[0]
        else:
            return annotation, metadata


def _null_as(metadata: list[Any]) -> Any:
    return next((m.value for m in metadata if isinstance(m, NullAs)), _ABSENT)


def _resolve(annotation: Any, value: Any) -> Any:
    base, _ = _unwrap(annotation)
    if isinstance(base, type) and issubclass(base, BaseModel):
        return resolve_nulls(base, value)
    origin = get_origin(base)
    if origin is list and isinstance(value, list):
        (item,) = get_args(base)
        return [_zero(item) if v is None else _resolve(item, v) for v in value]
    if origin is dict and isinstance(value, Mapping):
        item = get_args(base)[1]
        return {k: _zero(item) if v is None else _resolve(item, v) for k, v in value.items()}
    return value


def _zero(annotation: Any) -> Any:
    """The zero value of a Go element type, in wire shape."""
    base, metadata = _unwrap(annotation)
    null_as = _null_as(metadata)
    if null_as is not _ABSENT:
        return null_as
    if isinstance(base, type) and issubclass(base, BaseModel):
        # the zero struct: every field zero; the ones kbatch models as required set to it
        return {
            info.alias or name: _zero(info.annotation)
            for name, info in base.model_fields.items()
            if info.is_required()
        }
    origin = get_origin(base)
    if origin in (list, dict):
        return origin()  # a nil slice or map: as empty to every reader
    return _SCALAR_ZEROS.get(base)
