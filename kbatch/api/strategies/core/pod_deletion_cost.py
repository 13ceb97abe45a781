"""The ``controller.kubernetes.io/pod-deletion-cost`` annotation of a Pod or pod template: a 32-bit
integer in canonical form (no ``+``, no leading zeros).

Upstream: kubernetes ``pkg/apis/core/validation/validation.go`` ``ValidatePodSpecificAnnotations``
(applied unless ``AllowInvalidPodDeletionCost``: PodDeletionCost is beta and on by default since 1.22,
so a create always checks it; an update whose old object already had an invalid value does not,
``GetValidationOptionsFromPodSpecAndMeta`` in pkg/api/pod/util.go) and
``pkg/apis/core/helper/helpers.go`` ``GetDeletionCostFromPodAnnotations`` / ``validFirstDigit``.
"""

from __future__ import annotations

from collections.abc import Mapping

from kbatch.api.errors import FieldError
from kbatch.api.validation import key

__all__ = ["POD_DELETION_COST", "deletion_cost_errors", "deletion_cost_invalid"]

POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_INT32 = (-(2**31), 2**31 - 1)


def _valid(value: str) -> bool:
    """``GetDeletionCostFromPodAnnotations`` succeeds: a first character that is ``-``, a digit
    1-9, or the whole value ``0``; then base-10 digits within int32 (Go's ParseInt: an optional
    sign, no spaces or underscores)."""
    if not value or not (value[0] == "-" or value == "0" or "1" <= value[0] <= "9"):
        return False
    digits = value[1:] if value[0] == "-" else value
    if not digits or not all("0" <= ch <= "9" for ch in digits):
        return False
    return _INT32[0] <= int(value) <= _INT32[1]


def deletion_cost_invalid(annotations: Mapping[str, str] | None) -> bool:
    """Whether the annotation is present and not a canonical int32."""
    if not annotations or POD_DELETION_COST not in annotations:
        return False
    return not _valid(annotations[POD_DELETION_COST])


def deletion_cost_errors(annotations: Mapping[str, str] | None, path: str) -> list[FieldError]:
    """Invalid at ``<path>[controller.kubernetes.io/pod-deletion-cost]``: "must be a 32bit integer"."""
    if not deletion_cost_invalid(annotations):
        return []
    assert annotations is not None
    return [FieldError.invalid(key(path, POD_DELETION_COST), annotations[POD_DELETION_COST],
                               "must be a 32bit integer")]
