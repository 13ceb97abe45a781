"""policy/v1 PodDisruptionBudget strategy: preparation and validation.

Upstream (semantics only): ``pkg/registry/policy/poddisruptionbudget/strategy.go`` (status cleared on
create, kept on main writes, spec kept on status writes; generation bumped on spec change) and
``pkg/apis/policy/validation/validation.go`` (``ValidatePodDisruptionBudgetSpec``,
``ValidatePodDisruptionBudgetStatusUpdate``), ``pkg/apis/apps/validation``
(``ValidatePositiveIntOrPercent``, ``IsNotMoreThan100Percent``) and apimachinery's
``ValidateConditions``. policy/v1 has no defaulting: a spec with neither ``minAvailable`` nor
``maxUnavailable`` is valid and never allows a disruption (the controller computes 0 expected pods).

Differences: a bad int-or-percent value renders JSON-quoted (``"150%"``) where Go prints the
IntOrString unquoted, and the "both set" error shows the spec as JSON rather than a Go struct dump.
"""

from __future__ import annotations

import re
from typing import Any

from kbatch.api.errors import FieldError
from kbatch.api.meta import Condition
from kbatch.api.policy_v1 import (
    UNHEALTHY_POD_EVICTION_POLICIES,
    PodDisruptionBudget,
    PodDisruptionBudgetSpec,
    PodDisruptionBudgetStatus,
)
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import (
    _regex_error,
    child,
    index,
    is_qualified_name,
    validate_label_selector,
    validate_nonnegative,
)

__all__ = ["PodDisruptionBudgetStrategy", "validate_conditions", "validate_pdb_spec"]

_PERCENT_FMT = "[0-9]+%"
_PERCENT_RE = re.compile(_PERCENT_FMT)
_PERCENT_MSG = _regex_error("a valid percent string must be a numeric string followed by an ending '%'",
                            _PERCENT_FMT, "1%", "93%")
_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_REASON_RE = re.compile(_REASON_FMT)
_REASON_MSG = _regex_error(
    "a condition reason must start with alphabetic character, optionally followed by a string of "
    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
    _REASON_FMT, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")
_CONDITION_STATUSES = ["False", "True", "Unknown"]


def _int_or_percent(value: int | str, path: str) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent`` + ``IsNotMoreThan100Percent``."""
    if isinstance(value, int):
        return validate_nonnegative(value, path)
    if not _PERCENT_RE.fullmatch(value):
        return [FieldError.invalid(path, value, _PERCENT_MSG)]
    if int(value[:-1]) > 100:
        return [FieldError.invalid(path, value, "must not be greater than 100%")]
    return []


def validate_pdb_spec(spec: PodDisruptionBudgetSpec, path: str = "spec") -> list[FieldError]:
    errs: list[FieldError] = []
    if spec.min_available is not None and spec.max_unavailable is not None:
        errs.append(FieldError.invalid(path, spec.to_dict(),
                                       "minAvailable and maxUnavailable cannot be both set"))
    if spec.min_available is not None:
        errs += _int_or_percent(spec.min_available, child(path, "minAvailable"))
    if spec.max_unavailable is not None:
        errs += _int_or_percent(spec.max_unavailable, child(path, "maxUnavailable"))
    errs += validate_label_selector(spec.selector, child(path, "selector"))
    policy = spec.unhealthy_pod_eviction_policy
    if policy is not None and policy not in UNHEALTHY_POD_EVICTION_POLICIES:
        errs.append(FieldError.not_supported(child(path, "unhealthyPodEvictionPolicy"), policy,
                                             UNHEALTHY_POD_EVICTION_POLICIES))
    return errs


def _validate_condition(cond: Condition, path: str) -> list[FieldError]:
    errs = [FieldError.invalid(child(path, "type"), cond.type, m) for m in is_qualified_name(cond.type)]
    if cond.status not in _CONDITION_STATUSES:
        errs.append(FieldError.not_supported(child(path, "status"), cond.status, _CONDITION_STATUSES))
    if cond.observed_generation is not None and cond.observed_generation < 0:
        errs.append(FieldError.invalid(child(path, "observedGeneration"), cond.observed_generation,
                                       "must be greater than or equal to zero"))
    if cond.last_transition_time is None:
        errs.append(FieldError.required(child(path, "lastTransitionTime"), "must be set"))
    if not cond.reason:
        errs.append(FieldError.required(child(path, "reason"), "must be set"))
    else:
        if not _REASON_RE.fullmatch(cond.reason):
            errs.append(FieldError.invalid(child(path, "reason"), cond.reason, _REASON_MSG))
        if len(cond.reason) > 1024:
            errs.append(FieldError.too_long(child(path, "reason"), 1024))
    if len(cond.message or "") > 32768:
        errs.append(FieldError.too_long(child(path, "message"), 32768))
    return errs


def validate_conditions(conditions: list[Condition] | None, path: str) -> list[FieldError]:
    """metav1 ``ValidateConditions``: each condition, and no type twice."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, cond in enumerate(conditions or ()):
        errs += _validate_condition(cond, index(path, i))
        if cond.type in seen:
            errs.append(FieldError.duplicate(child(index(path, i), "type"), cond.type))
        seen.add(cond.type)
    return errs


def _empty_status() -> PodDisruptionBudgetStatus:
    return PodDisruptionBudgetStatus()


class PodDisruptionBudgetStrategy(DefaultStrategy):
    """Status cleared on create and kept on main writes; spec kept on status writes; every update
    names the resourceVersion it read (strategy.go ``AllowUnconditionalUpdate`` is false)."""

    allow_unconditional_update = False

    def validate(self, obj: PodDisruptionBudget) -> list[FieldError]:  # type: ignore[override]
        return validate_pdb_spec(obj.spec)

    def validate_update(  # type: ignore[override]
        self, new: PodDisruptionBudget, old: PodDisruptionBudget,
    ) -> list[FieldError]:
        return []  # policy/v1 allows every spec change (validate runs on the new object)

    def validate_status_update(  # type: ignore[override]
        self, new: PodDisruptionBudget, old: PodDisruptionBudget,
    ) -> list[FieldError]:
        status = new.status or _empty_status()
        errs = validate_conditions(status.conditions, "status.conditions")
        for name, value in (("disruptionsAllowed", status.disruptions_allowed),
                            ("currentHealthy", status.current_healthy),
                            ("desiredHealthy", status.desired_healthy),
                            ("expectedPods", status.expected_pods)):
            errs += validate_nonnegative(value, f"status.{name}")
        return errs

    def spec_changed(self, new: Any, old: Any) -> bool:
        return bool(new.spec != old.spec)
