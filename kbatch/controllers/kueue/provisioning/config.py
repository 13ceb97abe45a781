"""Resolving an AdmissionCheck's ``spec.parameters`` to its ProvisioningRequestConfig, and the check's
``Active`` condition from that. Pure but for the lookup passed in.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/util/admissioncheck/admissioncheck.go`` (``ConfigHelper``:
``refValidForGK``'s errors, ``ConfigFromRef``, ``ConfigForAdmissionCheck``, ``FilterForController``,
``IndexerByConfigFunction``) and ``pkg/controller/admissionchecks/provisioning/admissioncheck_reconciler.go``
(Active ``True``/``Active`` "The admission check is active", or ``False``/``BadParametersRef`` with the
error; written only when the status differs from the stored condition's).
"""

from __future__ import annotations

from collections.abc import Callable

from kbatch.api.kueue_v1beta2 import (
    GROUP,
    AdmissionCheck,
    AdmissionCheckParametersReference,
    ProvisioningRequestConfig,
)
from kbatch.api.kueue_v1beta2.provisioning import PROVISIONING_REQUEST_CONTROLLER
from kbatch.api.meta import Condition

__all__ = ["BadConfig", "active_condition", "config_from_ref", "config_name", "is_provisioning_check"]

KIND = "ProvisioningRequestConfig"


class BadConfig(ValueError):
    """The reference does not name a ProvisioningRequestConfig, or names one that does not exist."""

    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


def _ref_error(ref: AdmissionCheckParametersReference | None) -> str:
    """``refValidForGK``: "" when the reference addresses a ProvisioningRequestConfig."""
    if ref is None:
        return "missing parameters reference"
    bad = "bad parameters reference"
    if not ref.name:
        return f"empty name: {bad}"
    if (ref.api_group or "") != GROUP:
        return f'wrong group "{ref.api_group or ""}", expecting "{GROUP}": {bad}'
    if (ref.kind or "") != KIND:
        return f'wrong kind "{ref.kind or ""}", expecting "{KIND}": {bad}'
    return ""


def config_from_ref(
    ref: AdmissionCheckParametersReference | None, get: Callable[[str], ProvisioningRequestConfig | None]
) -> ProvisioningRequestConfig:
    """``ConfigFromRef``; raises :class:`BadConfig` with upstream's message."""
    if message := _ref_error(ref):
        raise BadConfig(message)
    assert ref is not None and ref.name
    prc = get(ref.name)
    if prc is None:
        raise BadConfig(f'provisioningrequestconfigs.{GROUP} "{ref.name}" not found', not_found=True)
    return prc


def is_provisioning_check(ac: AdmissionCheck | None) -> bool:
    return (
        ac is not None and ac.spec is not None and ac.spec.controller_name == PROVISIONING_REQUEST_CONTROLLER
    )


def config_name(ac: AdmissionCheck) -> str | None:
    """``IndexerByConfigFunction``: the config a provisioning check validly references."""
    ref = ac.spec.parameters if ac.spec else None
    return ref.name if is_provisioning_check(ac) and not _ref_error(ref) and ref is not None else None


def active_condition(ac: AdmissionCheck, get: Callable[[str], ProvisioningRequestConfig | None]) -> Condition:
    """The check's Active condition (``acReconciler.Reconcile``)."""
    try:
        config_from_ref(ac.spec.parameters if ac.spec else None, get)
    except BadConfig as err:
        return Condition(
            type="Active",
            status="False",
            reason="BadParametersRef",
            message=str(err),
            observed_generation=ac.metadata.generation,
        )
    return Condition(
        type="Active",
        status="True",
        reason="Active",
        message="The admission check is active",
        observed_generation=ac.metadata.generation,
    )
