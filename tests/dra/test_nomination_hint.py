"""KEP-5690's queueing-hint refinement ("Deferring further preemption": "the QueueingHint withholds a
wake-up (QueueSkip) for the preemptor while any other tracked victim claim on its nominated node
still has Status.Allocation != nil, and returns Queue as soon as the last victim claim on that node
is deallocated"), on the plugin observing claims as its informer would, with ``DRAPreemption`` on;
and the victim claims a preemption records counting consumers that already terminate ("only claims
whose every reserving pod is in victims or already terminating").
"""

from __future__ import annotations

from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import ResourceClaimConsumerReference
from kbatch.controllers.dra.dynamicresources import DynamicResources
from kbatch.controllers.dra.dynamicresources.nomination import Nomination
from kbatch.controllers.dra.dynamicresources.preemption import Simulation
from kbatch.controllers.scheduler.profiles import Handle

from .test_upstream_preemption_rows import FakePod, claim, held, lookup_of
from .test_upstream_queueing_hints import QUEUE, SKIP, Cluster, _pod

NODE = "worker"


def preempting(cluster: Cluster) -> tuple[object, object]:
    """Two victim claims allocated on the node, tracked for the pod's nomination there."""
    cluster.plugin.preemption = True
    first = cluster.allocate(cluster.create("victim-a"))
    second = cluster.allocate(cluster.create("victim-b"))
    victims = tuple((c.metadata.uid, f"default/{c.metadata.name}") for c in (first, second))
    cluster.plugin.nominations.add("1234", Nomination(NODE, (), victims))
    return first, second


def test_the_preemptor_waits_for_the_last_victim_claim() -> None:
    c = Cluster()
    c.create()  # the pod's own claim exists
    first, second = preempting(c)
    freed = c.allocate(first, allocated=False)
    assert c.hint(_pod(), first, freed) is SKIP  # victim-b still allocated: the attempt would fail
    last = c.allocate(second, allocated=False)
    assert c.hint(_pod(), second, last) is QUEUE


def test_other_pods_are_woken_by_each_deallocation() -> None:
    c = Cluster()
    c.create()
    first, _ = preempting(c)
    c.plugin.nominations.remove("1234")  # the pod holds no nomination
    freed = c.allocate(first, allocated=False)
    assert c.hint(_pod(), first, freed) is QUEUE


def test_a_claim_that_is_no_victim_wakes_the_preemptor() -> None:
    c = Cluster()
    c.create()
    preempting(c)
    other = c.allocate(c.create("elsewhere"))
    freed = c.allocate(other, allocated=False)
    assert c.hint(_pod(), other, freed) is QUEUE  # devices freed elsewhere may fit it


def test_without_the_gate_every_deallocation_queues() -> None:
    c = Cluster()
    c.create()
    first, _ = preempting(c)
    c.plugin.preemption = False
    freed = c.allocate(first, allocated=False)
    assert c.hint(_pod(), first, freed) is QUEUE


# -- victims' claims counting consumers that already terminate ------------------------------------------
def test_a_claim_shared_with_a_terminating_pod_is_released_for_the_record() -> None:
    """``AddNominatedPod`` records a victim's claim whose other consumer is already being deleted
    (it will be deallocated once both are gone); the preemption what-if itself (no ``terminating``)
    keeps it, as before."""
    shared = claim("shared", "device-1", "victim-uid", "leaving-uid")
    victim = FakePod("victim", "victim-uid", ("shared",))

    def terminating(namespace: str, consumer: object) -> bool:
        return getattr(consumer, "uid", "") == "leaving-uid"

    what_if = Simulation()
    assert what_if.remove_pod(victim, lookup_of(shared), held(shared)) == []
    recorded = Simulation()
    assert recorded.remove_pod(victim, lookup_of(shared), held(shared), terminating=terminating) == [
        shared.metadata.uid]
    stays = claim("kept", "device-1", "victim-uid", "staying-uid")
    assert Simulation().remove_pod(FakePod("victim", "victim-uid", ("kept",)), lookup_of(stays), held(stays),
                                   terminating=terminating) == []


def test_the_plugin_reads_terminating_consumers_from_its_cache() -> None:
    cp = Cluster().cp
    pod = cp.client.create(Pod.model_validate({"metadata": {"name": "leaving", "namespace": "default",
                                                            "finalizers": ["example.com/hold"]},
                                               "spec": {"containers": [{"name": "c", "image": "busybox"}]}}))
    plugin = DynamicResources(Handle(client=cp.client, cache=cp.client))
    ref = ResourceClaimConsumerReference(resource="pods", name="leaving", uid=pod.metadata.uid)
    assert not plugin._terminating("default", ref)
    cp.client.delete(Pod, "leaving", "default")  # held by its finalizer: terminating
    assert plugin._terminating("default", ref)
    other = ResourceClaimConsumerReference(resource="pods", name="gone", uid="x")
    assert plugin._terminating("default", other)  # no such pod: its reservation goes with it
