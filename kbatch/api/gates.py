"""Fields dropped while their feature gate is off (upstream ``dropDisabledFields`` in the registry
strategies: ``pkg/api/pod/util.go`` ``dropDisabledFields``, ``pkg/registry/batch/job/strategy.go``).

The rule is upstream's: with the gate off, a create drops the field; an update drops it only when the
stored object does not already use it (so objects written while the gate was on keep their value).
A gate no family declares counts as off. The strategies call these with the gates their control
plane bound them to (:class:`kbatch.api.strategy.GatedStrategy`); ``gates=None`` (a registry built
without a control plane) drops nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.container_restart import may_restart_all
from kbatch.api.scheduling_v1beta1 import GENERIC_WORKLOAD, WORKLOAD_WITH_JOB

if TYPE_CHECKING:
    from kbatch.api.batch_v1 import JobSpec
    from kbatch.api.core_v1 import PodSpec
    from kbatch.api.features import FeatureGates

__all__ = ["CONTAINER_RESTART_RULES", "CONTAINER_STOP_SIGNALS", "MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS",
           "MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS", "RESTART_ALL_CONTAINERS",
           "drop_disabled_job_fields", "drop_disabled_pod_fields", "gate_on", "pod_fields_to_drop",
           "restart_all_allowed"]

CONTAINER_STOP_SIGNALS = "ContainerStopSignals"
CONTAINER_RESTART_RULES = "ContainerRestartRules"
RESTART_ALL_CONTAINERS = "RestartAllContainersOnContainerExits"
# KEP-5440 (beta, on since 1.36): a suspended Job's template may change its containers' resources
# (kube-apiserver) and, once started and suspended, its scheduling directives (kube-apiserver and the
# Job controller, which clears ``status.startTime`` while the Job is suspended)
MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS = "MutablePodResourcesForSuspendedJobs"
MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS = "MutableSchedulingDirectivesForSuspendedJobs"


def gate_on(gates: FeatureGates | None, name: str) -> bool:
    """Whether ``name`` is on; ``None`` gates (no control plane) enable everything."""
    return gates is None or (name in gates and gates.enabled(name))


def drop_disabled_pod_fields(spec: PodSpec, old: PodSpec | None, gates: FeatureGates | None) -> None:
    """``spec.schedulingGroup`` needs GenericWorkload (KEP-4671); a container's
    ``lifecycle.stopSignal`` needs ContainerStopSignals (KEP-4960, ``dropContainerStopSignals``); a
    regular container's ``restartPolicy``/``restartPolicyRules`` need ContainerRestartRules (KEP-5307,
    :func:`_drop_container_restart_rules`)."""
    if spec.scheduling_group is not None and not gate_on(gates, GENERIC_WORKLOAD) \
            and (old is None or old.scheduling_group is None):
        spec.scheduling_group = None
    if not gate_on(gates, CONTAINER_STOP_SIGNALS) and not (old is not None and _stop_signals_in_use(old)):
        for container in _all_containers(spec):
            _drop_stop_signal(container)
    if not gate_on(gates, CONTAINER_RESTART_RULES) and not (old is not None and _restart_rules_in_use(old)):
        _drop_container_restart_rules(spec)


def pod_fields_to_drop(spec: PodSpec) -> bool:
    """May :func:`drop_disabled_pod_fields` drop anything (a cheap check for the pod hot path)?"""
    return spec.scheduling_group is not None or _restart_rules_in_use(spec) or any(
        getattr(c, "lifecycle", None) is not None for c in _all_containers(spec))


def _all_containers(spec: PodSpec) -> list[Any]:
    """Init, regular and ephemeral containers (upstream ``VisitContainers`` with ``AllContainers``)."""
    return [*(spec.init_containers or ()), *(spec.containers or ()), *(spec.ephemeral_containers or ())]


def _stop_signals_in_use(spec: PodSpec) -> bool:
    return any(getattr(c, "lifecycle", None) is not None and c.lifecycle.stop_signal is not None
               for c in _all_containers(spec))


def _restart_rules_in_use(spec: PodSpec) -> bool:
    """Upstream ``containerRestartRulesInUse``: an init container with a policy other than a
    sidecar's ``Always`` or with rules, a regular container with a policy or rules."""
    return any((c.restart_policy is not None and c.restart_policy != "Always") or bool(c.restart_policy_rules)
               for c in spec.init_containers or ()) or any(
        c.restart_policy is not None or c.restart_policy_rules is not None for c in spec.containers or ())


def _drop_container_restart_rules(spec: PodSpec) -> None:
    """Upstream ``dropContainerRestartRules``: init containers lose a policy other than ``Always``
    and every rule, regular containers both (ephemeral ones cannot have them: validation)."""
    for init in spec.init_containers or ():
        if init.restart_policy is not None and init.restart_policy != "Always":
            init.restart_policy = None
        init.restart_policy_rules = None
    for container in spec.containers or ():
        container.restart_policy = None
        container.restart_policy_rules = None


def restart_all_allowed(gates: FeatureGates | None, old: PodSpec | None) -> bool:
    """``AllowRestartAllContainers`` (``pkg/api/pod/util.go``): the gate is on, or the old spec
    already uses the action or rules on a sidecar (``restartAllContainersActionInUse``)."""
    if gate_on(gates, RESTART_ALL_CONTAINERS):
        return True
    if old is None:
        return False
    return may_restart_all([*(old.init_containers or ()), *old.containers]) or any(
        c.restart_policy == "Always" and bool(c.restart_policy_rules) for c in old.init_containers or ())


def _drop_stop_signal(container: Any) -> None:
    """The field goes, and the ``lifecycle`` with it when nothing else was set."""
    lifecycle = getattr(container, "lifecycle", None)
    if lifecycle is None or lifecycle.stop_signal is None:
        return
    lifecycle.stop_signal = None
    if lifecycle.post_start is None and lifecycle.pre_stop is None:
        container.lifecycle = None


def drop_disabled_job_fields(spec: JobSpec, old: JobSpec | None, gates: FeatureGates | None) -> None:
    """``spec.scheduling`` needs WorkloadWithJob (KEP-5547); the pod template's fields as for pods
    (``DropDisabledTemplateFields``)."""
    if spec.scheduling is not None and not gate_on(gates, WORKLOAD_WITH_JOB) \
            and (old is None or old.scheduling is None):
        spec.scheduling = None
    drop_disabled_pod_fields(spec.template.spec, old.template.spec if old is not None else None, gates)
