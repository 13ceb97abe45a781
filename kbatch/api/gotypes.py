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
A value that is no JSON string fails ``UnmarshalJSON`` the same way, in its first step (``json.Unmarshal``
into a ``string``): ``json: cannot unmarshal number into Go value of type string``.

:class:`GoType` names a field's Go type where a Python annotation cannot (``int32`` or ``int``, a
named string type such as ``v1.ResourceName``): the decoder's type errors print it
(:mod:`kbatch.api.go_unmarshal`). Each alias here carries its own.

``resource.Quantity`` decodes itself too (apimachinery ``pkg/api/resource/quantity.go``
``UnmarshalJSON``), and takes any JSON value: encoding/json hands an Unmarshaler the value's text
(``literalStore``, and ``object``/``array`` before looking inside), from which it drops a string's
quotes, trims blanks and runs ``ParseQuantity``; so ``true``, a list or an object fail as ``"abc"``
does, with the parser's ``ErrFormatWrong``, which ends decoding as ParseDuration's error does
(:data:`GoQuantity`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field
from pydantic_core import PydanticCustomError

from kbatch.api.cron import go_duration_seconds
from kbatch.api.quantity import Quantity, QuantityError, parse_quantity

__all__ = [
    "GO_DECODE",
    "Bool",
    "Duration",
    "DurationPtr",
    "Float32",
    "Float64",
    "GoQuantity",
    "GoType",
    "Int",
    "Int32",
    "Int64",
    "NullAs",
    "ResourceName",
]

GO_DECODE = "go_decode"  # the error type of a value's own decoder: fatal, its message as Go's


@dataclass(frozen=True, slots=True)
class GoType:
    """Annotation (on a field, a list item, a map key or value) or ``go_type`` class attribute (on a
    model of a Go struct): the Go type's name as ``reflect.Type.String`` prints it, ``package``
    qualifying it: ``None`` the package of the API version being decoded (``v1beta2``), ``""`` none
    (a predeclared type: ``int32``)."""

    name: str
    package: str | None = None

    def qualified(self, version_package: str) -> str:
        package = version_package if self.package is None else self.package
        return f"{package}.{self.name}" if package else self.name


Int32 = Annotated[int, Field(ge=-(2**31), le=2**31 - 1, strict=True), GoType("int32", "")]
Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1, strict=True), GoType("int64", "")]
Int = Annotated[int, Field(ge=-(2**63), le=2**63 - 1, strict=True), GoType("int", "")]  # 64-bit
Bool = Annotated[bool, Field(strict=True), GoType("bool", "")]
MAX_FLOAT32 = 3.4028234663852886e38  # math.MaxFloat32: a larger number overflows float32
Float32 = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-MAX_FLOAT32, le=MAX_FLOAT32),
                    GoType("float32", "")]
Float64 = Annotated[float, Field(strict=True, allow_inf_nan=False), GoType("float64", "")]  # no Inf, NaN
ResourceName = Annotated[str, GoType("ResourceName", "v1")]  # corev1.ResourceName


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


# what encoding/json's UnmarshalTypeError calls a JSON value it cannot put into a Go string
# (Go src/encoding/json/decode.go: ``literalStore``, ``array``, ``object``)
_JSON_KINDS: tuple[tuple[type, str], ...] = ((bool, "bool"), (int, "number"), (float, "number"),
                                              (list, "array"), (dict, "object"))


def _text(value: Any) -> Any:
    """``UnmarshalJSON``'s ``json.Unmarshal(b, &str)``: a value that is no JSON string is refused
    with encoding/json's ``json: cannot unmarshal number into Go value of type string``, the
    decoder's own error as ParseDuration's is (``None`` is left to :class:`NullAs` and the union)."""
    for kind, name in _JSON_KINDS:
        if isinstance(value, kind):
            message = f"json: cannot unmarshal {name} into Go value of type string"
            raise PydanticCustomError(GO_DECODE, "{message}", {"message": message})
    return value


# *metav1.Duration: null unsets it; metav1.Duration: null is ""
_DURATION = GoType("Duration", "v1")
DurationPtr = Annotated[str, BeforeValidator(_text), AfterValidator(_parsed), _DURATION]
Duration = Annotated[str, BeforeValidator(_text), AfterValidator(_parsed), NullAs(""), _DURATION]


def _quantity(value: Any) -> Any:
    """``Quantity.UnmarshalJSON`` on the text of a decoded JSON value (``None``: see :class:`NullAs`
    and :mod:`kbatch.api.gonull`)."""
    from kbatch.api.go_unmarshal import go_number  # it imports this module

    if value is None or isinstance(value, Quantity):
        return value
    if isinstance(value, str):
        text = value.strip()
    elif isinstance(value, int | float) and not isinstance(value, bool):
        text = go_number(value)  # the number's JSON text: a JSON file's literal, YAML's json.Marshal
    else:
        text = json.dumps(value)  # true, [..], {..}: never a quantity
    try:
        return parse_quantity(text)
    except QuantityError as err:
        raise PydanticCustomError(GO_DECODE, "{message}", {"message": str(err)}) from None


GoQuantity = Annotated[Quantity, BeforeValidator(_quantity)]
