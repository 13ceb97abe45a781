"""The gang family: Kubernetes' own gang scheduling, scheduling.k8s.io/v1beta1 Workload and PodGroup
(KEP-4671; beta in 1.37), the way kube-apiserver, kube-scheduler and kube-controller-manager ship it.

Everything here is behind the ``GenericWorkload`` gate, beta but **off by default** in 1.37, as
upstream: with the gate off the kinds are not served, ``spec.schedulingGroup`` is dropped from pods,
the scheduler has no workload cycle and the protection controller does not run;
``--feature-gates GenericWorkload=true`` turns it all on. The Job controller's integration
(KEP-5547, a Workload and PodGroup per Job) has its own gate, ``WorkloadWithJob``, alpha and off.

* kinds: Workload (no status) and PodGroup (``/status``); ``kubectl get`` shows Name, Age (kube
  has no printer for them); ``kbatch describe`` kubectl's generic page;
* admission ``PodGroupProtection``: PodGroups are created with the
  ``scheduling.k8s.io/podgroup-protection`` finalizer (the ``Priority`` plugin gives them
  ``spec.priority``);
* controller ``podgroup-protection``: removes that finalizer from a deleted group no active pod
  uses, and puts it back on a group in use that lost it;
* scheduler plugin ``GangScheduling``: PreEnqueue and PlacementFeasible in the workload scheduling
  cycle (``kbatch/controllers/scheduler/group_cycle.py``);
* kind CompositePodGroup (scheduling.k8s.io/v1alpha3, gate ``CompositePodGroup``, alpha, off; KEP-6012):
  a group of PodGroups scheduled all-or-nothing as a tree; with the gate v1alpha3 also serves
  Workload and PodGroup (stored in v1beta1, converted by apiVersion);
* two alpha gates, off: ``TopologyAwareWorkloadScheduling`` (KEP-5732: a PodGroup's
  ``schedulingConstraints.topology`` places it within one domain of a node label,
  ``kbatch/controllers/scheduler/group_placements.py``) and ``PodGroupPreemptionPolicy``
  (``preemptionPolicy: Never`` groups never preempt).

The scheduler-plugins PodGroup (scheduling.x-k8s.io) is the ``coscheduling`` family; docs/gang.md
covers both.
"""

from __future__ import annotations

from kbatch.api import scheduling_v1alpha3 as v1alpha3
from kbatch.api.features import FeatureSpec, Stage
from kbatch.api.meta import Resource
from kbatch.api.scheduling_v1beta1 import (
    COMPOSITE_POD_GROUP,
    GENERIC_WORKLOAD,
    PODGROUP_PREEMPTION_POLICY,
    TOPOLOGY_AWARE_WORKLOAD_SCHEDULING,
    WORKLOAD_WITH_JOB,
    PodGroup,
    Workload,
)
from kbatch.api.strategies.scheduling import CompositePodGroupStrategy, PodGroupStrategy, WorkloadStrategy
from kbatch.api.versions import ServedVersion
from kbatch.families.core.generic_page import generic_page
from kbatch.families.family import (
    AdmissionPlugin,
    ControllerSpec,
    Family,
    KindEntry,
    SchedulerPlugin,
    kcm_account,
)

__all__ = ["GANG"]

_GATES = "kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/"


def _v1alpha3(model: type[Resource]) -> tuple[ServedVersion, ...]:
    """v1alpha3 of a v1beta1-stored kind, served with the CompositePodGroup gate (upstream
    ``scheduling/v1alpha3/register.go`` lists Workload, PodGroup and CompositePodGroup)."""
    return (ServedVersion(model, v1alpha3.to_storage, v1alpha3.from_storage,
                          feature_gate=COMPOSITE_POD_GROUP),)


GANG = Family(
    name="gang",
    description="scheduling.k8s.io/v1beta1 Workload and PodGroup: gang scheduling in kube-scheduler "
                "(gate GenericWorkload), the PodGroup protection controller, the Job integration",
    kinds=(
        KindEntry(Workload, WorkloadStrategy(), None, page=generic_page,
                  feature_gate=GENERIC_WORKLOAD, versions=_v1alpha3(v1alpha3.WorkloadV1alpha3)),
        KindEntry(PodGroup, PodGroupStrategy(), None, page=generic_page,
                  feature_gate=GENERIC_WORKLOAD, versions=_v1alpha3(v1alpha3.PodGroupV1alpha3)),
        KindEntry(v1alpha3.CompositePodGroup, CompositePodGroupStrategy(), None, page=generic_page,
                  feature_gate=COMPOSITE_POD_GROUP),
    ),
    admission=(
        AdmissionPlugin("PodGroupProtection",
                        "kbatch.apiserver.admission_plugins.podgroup_protection:install",
                        description="PodGroups get the scheduling.k8s.io/podgroup-protection finalizer"),
    ),
    controllers=(
        ControllerSpec("podgroup-protection",
                       "keeps the podgroup-protection finalizer on PodGroups in use and removes it "
                       "from unused, deleted ones (with GenericWorkload)",
                       "kbatch.controllers.gang.protection:setup",
                       aliases=("podgroup-protection-controller",), source="podgroup-protection-controller",
                       user=kcm_account("podgroup-protection-controller")),
    ),
    scheduler_plugins=(
        SchedulerPlugin("GangScheduling", "kbatch.controllers.gang.plugin:new", multi_point=True),
    ),
    feature_gates=(
        FeatureSpec(GENERIC_WORKLOAD, False, Stage.BETA, source=_GATES + "GenericWorkload.md"),
        FeatureSpec(WORKLOAD_WITH_JOB, False, Stage.ALPHA, source=_GATES + "WorkloadWithJob.md"),
        FeatureSpec(TOPOLOGY_AWARE_WORKLOAD_SCHEDULING, False, Stage.ALPHA,
                    source=_GATES + "TopologyAwareWorkloadScheduling.md"),
        FeatureSpec(PODGROUP_PREEMPTION_POLICY, False, Stage.ALPHA,
                    source=_GATES + "PodGroupPreemptionPolicy.md"),
        # KEP-6012: composites are scheduling.k8s.io objects scheduled by the workload cycle, so the
        # gate needs GenericWorkload, as 1.35's GangScheduling did ({GenericWorkload} in
        # kube_features.go's defaultKubernetesFeatureGateDependencies); docs/gang.md "Feature gates"
        FeatureSpec(COMPOSITE_POD_GROUP, False, Stage.ALPHA, source=_GATES + "CompositePodGroup.md",
                    depends_on=(GENERIC_WORKLOAD,)),
    ),
)
