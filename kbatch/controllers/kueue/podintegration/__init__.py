"""Kueue's pod integration (``pod``): plain pods and pod groups admitted through Workloads
(kubernetes-sigs/kueue ``pkg/controller/jobs/pod``)."""

from kbatch.controllers.kueue.podintegration.controller import PodIntegration, build
from kbatch.controllers.kueue.podintegration.group import PodGroup, PodGroupReconciler
from kbatch.controllers.kueue.podintegration.single import SinglePod

__all__ = ["PodGroup", "PodGroupReconciler", "PodIntegration", "SinglePod", "build"]
