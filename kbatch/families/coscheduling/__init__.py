"""The coscheduling family: kubernetes-sigs/scheduler-plugins' gang scheduling.

Upstream ships it as its own project (a CRD, a controller binary, a kube-scheduler build with the
plugin), separately from Kubernetes' native Workload/PodGroup API (the ``gang`` family): two APIs
that users meet side by side, so two families.

* kind: ``scheduling.x-k8s.io/v1alpha1`` PodGroup (a custom resource: its CRD's schema checks and
  ``additionalPrinterColumns``; short names ``pg``, ``pgs``), served always: it acts only on pods
  that opt in with the ``scheduling.x-k8s.io/pod-group`` label;
* controller ``coscheduling`` (the PodGroup reconciler of scheduler-plugins' controller manager:
  phase and counts; events as ``PodGroupController``);
* scheduler plugin ``Coscheduling`` in the default profile's ``multiPoint`` set, sorting the queue
  (scheduler-plugins' own configuration replaces PrioritySort by it); pods without the label keep
  the default behaviour. ``CoschedulingArgs`` through the profile's ``pluginConfig``.

docs/gang.md describes both APIs and every deliberate difference.
"""

from __future__ import annotations

from kbatch.api.scheduling_x_v1alpha1 import PodGroup
from kbatch.api.strategies.scheduling_x import PodGroupStrategy
from kbatch.families.core.generic_page import generic_page
from kbatch.families.coscheduling import printers
from kbatch.families.family import ControllerSpec, Family, KindEntry, SchedulerPlugin

__all__ = ["COSCHEDULING"]

COSCHEDULING = Family(
    name="coscheduling",
    description="scheduler-plugins scheduling.x-k8s.io/v1alpha1 PodGroup: its controller and the "
                "Coscheduling scheduler plugin",
    kinds=(KindEntry(PodGroup, PodGroupStrategy(), printers.POD_GROUP, page=generic_page),),
    controllers=(
        ControllerSpec("coscheduling",
                       "keeps scheduler-plugins PodGroups' phase and counts (scheduling.x-k8s.io)",
                       "kbatch.controllers.coscheduling:setup", aliases=("podgroup-controller",),
                       source="PodGroupController",
                       # manifests/*/deploy-sig-scheduling-controller-and-scheduler.yaml
                       user="system:serviceaccount:scheduler-plugins:scheduler-plugins-controller"),
    ),
    scheduler_plugins=(
        SchedulerPlugin("Coscheduling", "kbatch.controllers.coscheduling:new", multi_point=True,
                        queue_sort=True),
    ),
)
