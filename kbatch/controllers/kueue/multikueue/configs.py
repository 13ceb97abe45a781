"""The MultiKueueConfig behind a MultiKueue AdmissionCheck (``MultiKueueStoreHelper``).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/util/admissioncheck/admissioncheck.go``
(``ConfigHelper.ConfigFromRef``, ``refValidForGK``, ``ConfigForAdmissionCheck``,
``GetMultiKueueAdmissionCheck``): the check's ``spec.parameters`` must name a
``kueue.x-k8s.io`` ``MultiKueueConfig``; the errors are upstream's, word for word.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.api.kueue_v1beta2 import AdmissionCheck, AdmissionCheckState, MultiKueueConfig, Workload
from kbatch.api.kueue_v1beta2.common import GROUP
from kbatch.api.kueue_v1beta2.multikueue import CONTROLLER_NAME

__all__ = ["BadConfig", "ConfigNotFound", "config_from_ref", "multikueue_check_state"]

Getter = Callable[..., Any]  # (kind, name) -> object or None


class BadConfig(Exception):
    """The check's parameters do not lead to a MultiKueueConfig."""


class ConfigNotFound(BadConfig):
    """A well-formed reference to a MultiKueueConfig that does not exist (``apierrors.IsNotFound``)."""


def _ref_error(ref: Any) -> str | None:
    """``refValidForGK``."""
    if ref is None:
        return "missing parameters reference"
    if not ref.name:
        return "empty name: bad parameters reference"
    if ref.api_group != GROUP:
        return f'wrong group "{ref.api_group or ""}", expecting "{GROUP}": bad parameters reference'
    if ref.kind != "MultiKueueConfig":
        return f'wrong kind "{ref.kind or ""}", expecting "MultiKueueConfig": bad parameters reference'
    return None


def config_from_ref(ac: AdmissionCheck, get: Getter) -> MultiKueueConfig:
    """``ConfigFromRef``: the MultiKueueConfig the check's parameters name, or :class:`BadConfig`."""
    ref = ac.spec.parameters if ac.spec else None
    problem = _ref_error(ref)
    if problem is not None or ref is None:
        raise BadConfig(problem or "missing parameters reference")
    config = get(MultiKueueConfig, ref.name)
    if config is None:
        raise ConfigNotFound(f'multikueueconfigs.{GROUP} "{ref.name}" not found')
    return config  # type: ignore[no-any-return]


def multikueue_check_state(wl: Workload, get: Getter) -> AdmissionCheckState | None:
    """``GetMultiKueueAdmissionCheck``: the Workload's state of a check run by MultiKueue."""
    for state in (wl.status.admission_checks if wl.status else None) or ():
        ac = get(AdmissionCheck, state.name)
        if ac is not None and ac.spec is not None and ac.spec.controller_name == CONTROLLER_NAME:
            return state
    return None
