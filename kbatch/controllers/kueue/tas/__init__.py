"""Kueue's topology-aware scheduling (TopologyAwareScheduling, beta, on by default in v0.19.2).

Upstream: kubernetes-sigs/kueue v0.19.2, KEP ``keps/2724-topology-aware-scheduling``.

=========================  =====================================================================
:mod:`.request`            a pod set's topology request (template annotations), validation, pod gates
:mod:`.slice_annotations`  the slice, multi-layer and group annotations: parsing, webhook checks
:mod:`.snapshot`           one TAS flavor's topology tree and the search for a pod set's domains (pure)
:mod:`.search`             the search's phases over a domain tree: counts, sorting, fit, descent
:mod:`.balanced`           balanced placement (TASBalancedPlacement, alpha, off)
:mod:`.placement`          the search's result as ``status.admission.podSetAssignments[].topologyAssignment``
:mod:`.cluster`            the nodes, non-TAS and TAS usage a cycle's snapshots are built from
:mod:`.admitted`           the admitted Workloads' TAS usage, one walk per cycle for every flavor's snapshot
:mod:`.cycle`              the flavor assigner's TAS step and the cycle's TAS usage
:mod:`.ungater`            the TopologyUngater: each gated pod to a domain, its node selector, the gate off
:mod:`.ranks`              the ungater's ranks: pod index labels, podset-group and ``pod-index-offset`` shifts
:mod:`.nodes`              node events that retry inadmissible Workloads
:mod:`.unhealthy`          a Workload's assigned and unhealthy nodes (``status.unhealthyNodes``)
:mod:`.node_failure`       the TAS node controller: failed nodes to ``unhealthyNodes``, or eviction
:mod:`.late_pods`          the pods a stale node selector sends to a node, failed by the node controller
:mod:`.replacement`        a replacement for the pods of an unhealthy node (pure)
:mod:`.second_pass`        the scheduler's second pass: its back-off queue, the replaced or delayed admission
:mod:`.delayed`            delayed topology requests: TAS behind a ProvisioningRequest check
:mod:`.elastic`            elastic workload slices: a replacement keeps the previous assignment (pure)
=========================  =====================================================================
"""
