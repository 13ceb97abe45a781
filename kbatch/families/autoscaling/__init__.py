"""The autoscaling family: the cluster-autoscaler's ProvisioningRequest API (autoscaling.x-k8s.io/v1)
and kbatch's simulated provisioner answering it.

Upstream the CRD and its answers come from kubernetes/autoscaler's cluster-autoscaler, a component
apart from the control plane (KEP-1136, ``cluster-autoscaler/apis/provisioningrequest``). kbatch has
no node groups to scale, so its provisioner (:mod:`kbatch.sim.provisioner`) answers from the capacity
the cluster already has: docs/simulation.md, "ProvisioningRequests".
"""

from __future__ import annotations

from kbatch.api.autoscaling_x_v1 import ProvisioningRequest
from kbatch.api.strategies.kueue import strategy_for
from kbatch.families.core.generic_page import generic_page
from kbatch.families.family import ControllerSpec, Family, KindEntry

__all__ = ["AUTOSCALING"]

AUTOSCALING = Family(
    name="autoscaling",
    description="cluster-autoscaler's ProvisioningRequest API (autoscaling.x-k8s.io) and a simulated "
    "check-capacity provisioner",
    kinds=(KindEntry(ProvisioningRequest, strategy_for(ProvisioningRequest), page=generic_page),),
    controllers=(
        ControllerSpec(
            "provisioning-request-simulator",
            "answers ProvisioningRequests from the cluster's free capacity (the cluster-autoscaler's "
            "check-capacity class, simulated)",
            "kbatch.sim.provisioner:setup",
            aliases=("cluster-autoscaler",),
            source="cluster-autoscaler",
            # the autoscaler's usual deployment: kube-system/cluster-autoscaler service account
            user="system:serviceaccount:kube-system:cluster-autoscaler",
        ),
    ),
)
