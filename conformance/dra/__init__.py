"""The ``dra`` conformance family: Dynamic Resource Allocation (resource.k8s.io/v1) — API validation
of claims, templates, classes and slices, and allocation end to end (claims from templates, devices
allocated and reserved, pods running, devices freed when pods finish, shared claims, prioritized lists,
constraints, device taints).

The allocation checks publish their own ResourceSlice for a Ready node, with a driver named after the
check's namespace, and need a kubelet that prepares any driver's claims: kbatch's simulated kubelet
(marker ``simulated_dra``: the ``kubelet`` and ``faults`` capabilities, the latter standing for "a
kbatch target"); a real cluster would need that DRA driver installed. They write cluster-scoped
objects (a DeviceClass and a ResourceSlice named after the namespace) and delete them at the end.
"""

from __future__ import annotations

from conformance.requirements import Requirement, register
from conformance.target import FAULTS, KUBELET

register(
    "simulated_dra",
    Requirement(
        needs=frozenset({KUBELET, FAULTS}),
        reason="needs kbatch's simulated kubelet, which prepares claims of any driver (a real cluster needs "
        "the check's DRA driver installed)",
        doc="allocates devices of a driver the check publishes; skipped on targets that are not kbatch with "
        "a kubelet",
    ),
)
