"""kbatch.testing: what tests need to drive a control plane in virtual time.

A pytest plugin (``kbatch.testing.plugin``: the ``control_plane`` fixture), fluent builders
(``make_job``, ``make_pod``, ``make_node``) that produce models, and waits that advance virtual
time instead of sleeping (``wait_until``).
"""

from kbatch.runtime.clock import VirtualClock as VirtualClock
from kbatch.runtime.controlplane import ControlPlane as ControlPlane
from kbatch.testing.builders import JobBuilder, NodeBuilder, PodBuilder, make_job, make_node, make_pod
from kbatch.testing.wait import condition_true, wait_until, wait_until_gone

__all__ = [
    "ControlPlane",
    "JobBuilder",
    "NodeBuilder",
    "PodBuilder",
    "VirtualClock",
    "condition_true",
    "make_job",
    "make_node",
    "make_pod",
    "wait_until",
    "wait_until_gone",
]
