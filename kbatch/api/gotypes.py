"""Go's scalar types as a strict JSON decoder takes them, for models of Go structs.

Go's ``encoding/json`` (and ``sigs.k8s.io/json``, which Kubernetes and Kueue decode with) puts a JSON
value only into a Go value of its own kind: ``"true"`` is no ``bool``, ``"5"`` no ``int32``, ``3.5``
no integer, ``1`` no ``bool``; a number outside an integer type's range is refused
(``UnmarshalTypeError``: "cannot unmarshal number 2147483648 into Go struct field … of type
int32"). pydantic's strict mode has the same rules (an integer is a valid float, as a JSON integer
is a valid ``float64``); the bounds are the Go types'. A ``string`` field needs nothing: pydantic
turns no number or boolean into ``str``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

__all__ = ["Bool", "Float32", "Float64", "Int32", "Int64"]

Int32 = Annotated[int, Field(ge=-(2**31), le=2**31 - 1, strict=True)]
Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1, strict=True)]  # also Go's int on 64-bit
Bool = Annotated[bool, Field(strict=True)]
_MAX_FLOAT32 = 3.4028234663852886e38  # math.MaxFloat32: a larger number overflows float32
Float32 = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-_MAX_FLOAT32, le=_MAX_FLOAT32)]
Float64 = Annotated[float, Field(strict=True, allow_inf_nan=False)]  # JSON has no Inf nor NaN
