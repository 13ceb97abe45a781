"""The conformance families: one registration each, and every check belongs to exactly one.

A family is a package of checks under ``conformance/`` about one API area (today ``job``: batch/v1
Job and CronJob; JobSet, gang scheduling, Kueue and DRA come next). Registering it here is all it
takes for ``kbatch conformance`` to run it (``--family NAME`` selects it), for the reports to name
it (the JSON ``family``, the JUnit ``testsuite``) and for the suite to clean up after its checks
(``kinds``: what its checks create, deleted from the check's namespace before the namespace goes).

To add one (docs/conformance.md, "Adding a family"): write ``conformance/<name>/test_*.py`` against
the :class:`~conformance.target.Target` protocol, mark each check with ``semantic`` and its
requirement markers, and add one :class:`Family` line to :data:`FAMILIES`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FAMILIES", "Family", "by_name", "family_of"]


@dataclass(frozen=True)
class Family:
    name: str
    """Short, stable name: the report's ``family``, ``--family NAME``."""
    title: str
    """What the family checks, in a line."""
    package: str
    """The dotted package holding its checks (``conformance.job``)."""
    source: str
    """Where its semantics come from upstream (repository, KEPs, docs)."""
    kinds: tuple[str, ...] = ()
    """The kinds its checks create, deleted from a check's namespace before the namespace, children
    (Pods) last."""


FAMILIES: tuple[Family, ...] = (
    Family("job", "batch/v1 Job and CronJob: controllers, status, API validation", "conformance.job",
           "kubernetes/kubernetes pkg/controller/job, pkg/controller/cronjob, pkg/apis/batch; "
           "k8s.io/docs/concepts/workloads/controllers/job",
           kinds=("CronJob", "Job", "Pod")),
    Family("dra", "resource.k8s.io/v1 Dynamic Resource Allocation: validation, claims from templates, "
                  "allocation, sharing, prioritized lists, device taints", "conformance.dra",
           "kubernetes/kubernetes pkg/apis/resource/validation, pkg/controller/resourceclaim, "
           "pkg/scheduler/framework/plugins/dynamicresources, k8s.io/dynamic-resource-allocation/structured; "
           "KEP-4381", kinds=("Pod", "ResourceClaim", "ResourceClaimTemplate")),
    Family("gang", "scheduling.k8s.io/v1beta1 Workload and PodGroup: validation, protection, the workload "
                   "scheduling cycle (all or nothing)", "conformance.gang",
           "kubernetes/kubernetes pkg/scheduler/framework/plugins/gangscheduling, "
           "pkg/scheduler/schedule_one_podgroup.go, pkg/controller/podgroupprotection; KEP-4671",
           kinds=("Pod", "PodGroup")),
    Family("coscheduling", "scheduling.x-k8s.io/v1alpha1 PodGroup with the Coscheduling plugin: quorum, "
                           "all or nothing, the phase machine", "conformance.coscheduling",
           "kubernetes-sigs/scheduler-plugins pkg/coscheduling, pkg/controllers/podgroup_controller.go",
           kinds=("Pod", "PodGroup.scheduling.x-k8s.io")),
    Family("jobset", "jobset.x-k8s.io/v1alpha2 JobSet: controller, webhooks, policies, restarts",
           "conformance.jobset",
           "kubernetes-sigs/jobset v0.12.0 pkg/controllers, pkg/webhooks, test/integration, test/e2e",
           kinds=("JobSet", "Job", "Service", "PersistentVolumeClaim", "Pod")),
    Family("kueue", "kueue.x-k8s.io Kueue: Jobs admitted through LocalQueue/ClusterQueue quota, waiting, "
                    "preemption, borrowing in a cohort, webhook refusals", "conformance.kueue",
           "kubernetes-sigs/kueue v0.19.2 pkg/controller/jobframework, pkg/scheduler, pkg/cache, "
           "pkg/webhooks", kinds=("Job", "Workload.kueue.x-k8s.io", "LocalQueue", "Pod")),
)


def by_name(name: str) -> Family:
    """The family called ``name``; ``KeyError`` naming the known ones otherwise."""
    for family in FAMILIES:
        if family.name == name:
            return family
    raise KeyError(f"no conformance family {name!r}; known: {', '.join(f.name for f in FAMILIES)}")


def family_of(module: str) -> Family | None:
    """The family whose package holds the dotted ``module``, or None."""
    for family in FAMILIES:
        if module == family.package or module.startswith(family.package + "."):
            return family
    return None
