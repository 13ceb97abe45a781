"""The multicluster family: the cluster inventory's ClusterProfile API (multicluster.x-k8s.io/v1alpha1).

Upstream the CRD comes from kubernetes-sigs/cluster-inventory-api (KEP-4322, ``config/crd/bases/
multicluster.x-k8s.io_clusterprofiles.yaml``), installed beside Kueue, which reads profiles when its
``MultiKueueClusterProfile`` gate is on (:mod:`kbatch.controllers.kueue.multikueue.profile_access`).
The kind is served while Kueue's ``MultiKueueClusterProfile`` gate (alpha, off) is on. No
controller writes a profile here: a cluster manager does upstream, the user (or a test) does in
kbatch; docs/kueue.md, "ClusterProfiles".
"""

from __future__ import annotations

from kbatch.api.multicluster_v1alpha1 import ClusterProfile
from kbatch.api.strategies.kueue import strategy_for
from kbatch.families.core.generic_page import generic_page
from kbatch.families.family import Family, KindEntry

MULTIKUEUE_CLUSTER_PROFILE = "MultiKueueClusterProfile"  # the kueue family's gate (families/kueue/gates.py)

__all__ = ["MULTICLUSTER"]

MULTICLUSTER = Family(
    name="multicluster",
    description="the cluster inventory's ClusterProfile API (multicluster.x-k8s.io), read by MultiKueue",
    # served with Kueue's gate on (upstream installs the CRD apart, Kueue reads it with the gate), so a
    # default control plane's discovery is unchanged
    kinds=(KindEntry(ClusterProfile, strategy_for(ClusterProfile), page=generic_page,
                     feature_gate=MULTIKUEUE_CLUSTER_PROFILE),),
)
