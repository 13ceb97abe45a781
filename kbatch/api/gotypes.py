"""Go's scalar types as a strict JSON decoder takes them, for models of Go structs.

Go's ``encoding/json`` (and ``sigs.k8s.io/json``, which Kubernetes and Kueue decode with) puts a JSON
value only into a Go value of its own kind: ``"true"`` is no ``bool``, ``"5"`` no ``int32``, ``3.5``
no integer, ``1`` no ``bool``; a number outside an integer type's range is refused
(``UnmarshalTypeError``: "cannot unmarshal number 2147483648 into Go struct field … of type
int32"). pydantic's strict mode has the same rules (an integer is a valid float, as a JSON integer
is a valid ``float64``); the bounds are the Go types'. A ``string`` field needs nothing: pydantic
turns no number or boolean into ``str``.

``metav1.Duration`` (k8s.io/apimachinery ``pkg/apis/meta/v1/duration.go``) decodes itself:
``UnmarshalJSON`` takes a JSON string and runs ``time.ParseDuration`` on it, and its error is no
``UnmarshalTypeError`` the decoder saves for later but the decoder's own result (sigs.k8s.io/json
``decode.go``: ``literalStore`` returns it, ``unmarshal`` passes it on unwrapped, the serializer and
the recognizing decoder return it as it is): the file is refused with ``time.ParseDuration``'s
message alone (``time: unknown unit " minutes" in duration "5 minutes"``), before any type error
saved earlier or unknown field. :data:`Duration` is such a field's text, checked at decoding, its
error of type :data:`GO_DECODE`. A ``null`` reaches ``UnmarshalJSON`` only when the field is no
pointer (``indirect`` stops at a settable pointer for ``null``): it decodes the empty string,
``time: invalid duration ""``; :class:`NullAs` marks such a field for :mod:`kbatch.api.gonull`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from kbatch.api.cron import go_duration_seconds

__all__ = [
    "GO_DECODE",
    "Bool",
    "Duration",
    "DurationPtr",
    "Float32",
    "Float64",
    "Int32",
    "Int64",
    "NullAs",
]

GO_DECODE = "go_decode"  # the error type of a value's own decoder: fatal, its message as Go's

Int32 = Annotated[int, Field(ge=-(2**31), le=2**31 - 1, strict=True)]
Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1, strict=True)]  # also Go's int on 64-bit
Bool = Annotated[bool, Field(strict=True)]
_MAX_FLOAT32 = 3.4028234663852886e38  # math.MaxFloat32: a larger number overflows float32
Float32 = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-_MAX_FLOAT32, le=_MAX_FLOAT32)]
Float64 = Annotated[float, Field(strict=True, allow_inf_nan=False)]  # JSON has no Inf nor NaN


@dataclass(frozen=True, slots=True)
class NullAs:
    """Annotation: Go decodes ``null`` in this (non-pointer) field as it decodes ``value``."""

    value: Any


def _parsed(text: str) -> str:
    try:
        go_duration_seconds(text)
    except ValueError as err:  # `time: invalid duration "abc"`
        raise PydanticCustomError(GO_DECODE, "{message}", {"message": str(err)}) from None
    return text


DurationPtr = Annotated[str, AfterValidator(_parsed)]  # *metav1.Duration: null unsets it
Duration = Annotated[str, AfterValidator(_parsed), NullAs("")]  # metav1.Duration: null is ""
