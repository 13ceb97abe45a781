"""Upstream's device taint eviction cases, translated into kbatch scenarios.

Sources (Kubernetes 1.37 era): ``pkg/controller/devicetainteviction/device_taint_eviction_test.go``
``TestController`` (each test names its table case), ``TestDeviceTaintRule``, ``TestCancelEviction``,
and ``test/integration/dra/device_taints.go`` ``testEvictCluster``; the API's own words from
``k8s.io/api/resource/v1/types.go`` (``DeviceTaintRuleSpec``, ``DeviceTaintRuleStatus``) and
``pkg/registry/resource/devicetaintrule/strategy.go``.

Each case drives a control plane as a user would: a ResourceSlice (driver ``some-driver``, the
fixture's three devices ``instance``, ``instance-no-schedule``, ``instance-no-execute``), a claim
that the scheduler allocates (``instance``, the only untainted device), pods that the kubelet runs,
then taints from the slice or from DeviceTaintRules, and virtual time. Upstream's unit cases look
at the controller's internal maps; here the observable results are checked instead: the pod's
DisruptionTarget condition and deletion, the ``DeviceTaintManagerEviction`` events, and the rule's
``EvictionInProgress`` condition.

Not translated: "empty", "populate-pools", "update-pools", "untainted-claim",
"tainted-claim-through-resourceslice", "tainted-claim-through-rule" (only the controller's internal
maps change); the PodGroup cases (DRAWorkloadResourceClaims is beta and off in 1.37, not modelled)
and the extended-resource ones (``status.extendedResourceClaimStatus`` is not written by kbatch);
"evict-pod-after-scheduling", "no-evict-pod-resourceclaimtemplate-*",
"evict-wrong-*-replaced", "no-evict-wrong-resourceclaim", "no-evict-resourceclaim-deleted" (states
the scheduler and the resourceclaim controller do not let a user reach: a tainted device is not
allocated, a generated claim always names its pod, a used claim is not deleted);
"ignore-unknown-effect" (validation rejects an unknown effect); "evict-pod-resourceclaim-again"
(see docs/dra.md); TestParallelPodDeletion and TestRetry (API failures injected between the
controller's calls).
"""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import Event, Namespace, Pod
from kbatch.api.resource_v1 import DeviceClass, DeviceTaintRule, ResourceClaim, ResourceSlice
from kbatch.sim.nodes import create_nodes

DRIVER = "some-driver"
KEY = "example.com/taint"
VALUE = "something"
RULE_MESSAGE_NONE = (
    "{published} published devices selected. {allocated} allocated device{s} selected. {pods} would be "
    "evicted in {namespaces} if the effect was NoExecute. This information will not be updated again. "
    "Recreate the DeviceTaintRule to trigger an update."
)


def _taint(
    effect: str = "NoExecute", key: str = KEY, value: str | None = VALUE, **extra: Any
) -> dict[str, Any]:
    return {"key": key, "value": value, "effect": effect, **extra}


def fixture_devices(first_taints: list[dict[str, Any]] | None = None, extra: int = 0) -> list[dict[str, Any]]:
    """The unit test's ``slice``: ``instance``, ``instance-no-schedule`` (NoSchedule),
    ``instance-no-execute`` (None and NoExecute); ``extra`` more untainted devices for more claims."""
    devices = [
        {"name": "instance", "taints": first_taints or None},
        {"name": "instance-no-schedule", "taints": [_taint("NoSchedule", value=None)]},
        {
            "name": "instance-no-execute",
            "taints": [_taint("None", value=None), _taint("NoExecute", value=None)],
        },
    ]
    devices += [{"name": f"instance-{i}"} for i in range(extra)]
    return devices


def world(extra_devices: int = 0, controllers: str = "*") -> ControlPlane:
    cp = ControlPlane(seed=0, controllers=controllers)
    create_nodes(cp, 1)
    cp.client.create(
        ResourceSlice.model_validate(
            {
                "metadata": {"name": "slice"},
                "spec": {
                    "driver": DRIVER,
                    "nodeName": "node-0",
                    "pool": {"name": "node-0", "generation": 1, "resourceSliceCount": 1},
                    "devices": fixture_devices(extra=extra_devices),
                },
            }
        )
    )
    cp.client.create(
        DeviceClass.model_validate(
            {
                "metadata": {"name": "my-resource-class"},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
            }
        )
    )
    cp.run_until_idle()
    return cp


def set_first_device_taints(cp: ControlPlane, taints: list[dict[str, Any]] | None, *, extra: int = 0) -> None:
    """The user (a driver) republishes the slice with new taints on ``instance``."""
    current = cp.client.get(ResourceSlice, "slice")
    body = current.model_dump(by_alias=True, exclude_none=True, mode="json")
    body["spec"]["devices"] = fixture_devices(taints, extra=extra)
    cp.client.update(ResourceSlice.model_validate(body))


def claim_and_pod(
    cp: ControlPlane,
    name: str = "my-pod",
    namespace: str = "default",
    tolerations: list[dict[str, Any]] | None = None,
    claim: str | None = None,
    seconds: int = 100_000,
    create_claim: bool = True,
) -> None:
    claim_name = claim or f"{name}-my-resource"
    if namespace != "default" and not any(
        n.metadata.name == namespace for n in cp.client.list(Namespace).items
    ):
        cp.client.create(Namespace.model_validate({"metadata": {"name": namespace}}))
    if create_claim:
        request: dict[str, Any] = {"deviceClassName": "my-resource-class"}
        if tolerations:
            request["tolerations"] = tolerations
        cp.client.create(
            ResourceClaim.model_validate(
                {
                    "metadata": {"name": claim_name, "namespace": namespace},
                    "spec": {"devices": {"requests": [{"name": "req-1", "exactly": request}]}},
                }
            )
        )
    cp.client.create(pod_using(name, namespace, [claim_name], seconds))


def pod_using(name: str, namespace: str, claims: list[str], seconds: int = 100_000) -> Pod:
    return Pod.model_validate(
        {
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "restartPolicy": "Never",
                "terminationGracePeriodSeconds": 30,
                "containers": [{"name": "c", "image": "busybox", "command": ["sleep", str(seconds)]}],
                "resourceClaims": [
                    {"name": "my-resource" if i == 0 else f"my-resource-{i}", "resourceClaimName": c}
                    for i, c in enumerate(claims)
                ],
            },
        }
    )


def rule(
    name: str, effect: str = "NoExecute", selector: dict[str, Any] | None = None, **taint: Any
) -> DeviceTaintRule:
    body: dict[str, Any] = {
        "metadata": {"name": name},
        "spec": {"taint": _taint(effect, **taint)},
    }
    if selector is not None:
        body["spec"]["deviceSelector"] = selector
    return DeviceTaintRule.model_validate(body)


def evicted(cp: ControlPlane, name: str = "my-pod", namespace: str = "default") -> bool:
    """Being deleted with upstream's DisruptionTarget condition (the 30 s grace period keeps the pod
    readable while a check looks at it)."""
    pod = cp.client.get(Pod, name, namespace)
    condition = pod.status.condition("DisruptionTarget") if pod.status else None
    return (
        pod.metadata.deletion_timestamp is not None
        and condition is not None
        and condition.reason == "DeletionByDeviceTaintManager"
    )


def running(cp: ControlPlane, name: str = "my-pod", namespace: str = "default") -> bool:
    pod = cp.client.get(Pod, name, namespace)
    return pod.metadata.deletion_timestamp is None and pod.status.phase == "Running"


def taint_events(cp: ControlPlane, namespace: str = "default") -> list[tuple[str, str]]:
    return [
        (e.involved_object.name or "", e.message or "")
        for e in cp.client.list(Event, namespace).items
        if e.reason == "DeviceTaintManagerEviction"
    ]


def condition(cp: ControlPlane, name: str) -> tuple[Any, ...]:
    current = cp.client.get(DeviceTaintRule, name)
    [c] = [
        c
        for c in (current.status.conditions if current.status else None) or ()
        if c.type == "EvictionInProgress"
    ]
    at = (c.last_transition_time - cp.clock.to_datetime(0)).total_seconds()
    return (c.status, c.reason, c.message, c.observed_generation, at)


def started(cp: ControlPlane, *pods: tuple[str, str]) -> float:
    """Run until every pod runs on its allocated claim; the virtual time then."""
    cp.wait_for(lambda: all(running(cp, n, ns) for n, ns in pods), timeout=60)
    return cp.clock.now()


# --- TestController: eviction through ResourceSlice taints -------------------------------------


def test_evict_pod_resourceclaim() -> None:
    # "evict-pod-resourceclaim": a NoExecute taint on the allocated device evicts at once, one
    # "Marking for deletion" event (emitPodDeletionEvent)
    cp = world()
    claim_and_pod(cp)
    started(cp, ("my-pod", "default"))
    set_first_device_taints(cp, [_taint()])
    cp.run_until_idle()
    assert evicted(cp)
    assert taint_events(cp) == [("my-pod", "Marking for deletion")]


def test_evict_pod_resourceclaimtemplate() -> None:
    # "evict-pod-resourceclaimtemplate": the claim named in status.resourceClaimStatuses, generated
    # for (and owned by) the pod
    from kbatch.api.resource_v1 import ResourceClaimTemplate

    cp = world()
    request = {"name": "req-1", "exactly": {"deviceClassName": "my-resource-class"}}
    cp.client.create(
        ResourceClaimTemplate.model_validate(
            {
                "metadata": {"name": "tmpl", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [request]}}},
            }
        )
    )
    pod = pod_using("my-pod", "default", [])
    pod.spec.resource_claims = (
        [pod.spec.resource_claims[0].__class__(name="my-resource", resource_claim_template_name="tmpl")]
        if pod.spec.resource_claims
        else None
    )
    body = pod.model_dump(by_alias=True, exclude_none=True, mode="json")
    body["spec"]["resourceClaims"] = [{"name": "my-resource", "resourceClaimTemplateName": "tmpl"}]
    cp.client.create(Pod.model_validate(body))
    started(cp, ("my-pod", "default"))
    set_first_device_taints(cp, [_taint()])
    cp.run_until_idle()
    assert evicted(cp)


def test_evict_pod_later() -> None:
    # "evict-pod-later": tolerated for tolerationSeconds after the taint's timeAdded, then evicted
    cp = world()
    tolerate = {
        "key": KEY,
        "operator": "Equal",
        "value": VALUE,
        "effect": "NoExecute",
        "tolerationSeconds": 3600,
    }
    claim_and_pod(cp, tolerations=[tolerate])
    started(cp, ("my-pod", "default"))
    set_first_device_taints(cp, [_taint()])
    cp.advance(3599)
    assert running(cp)
    cp.advance(1)
    assert evicted(cp)
    assert taint_events(cp) == [("my-pod", "Marking for deletion")]


def test_evict_pod_later_many() -> None:
    # "evict-pod-later-many": of the matching tolerations the shortest time wins (30 s; the one for
    # another key does not match)
    cp = world()
    claim_and_pod(
        cp,
        tolerations=[
            {
                "key": KEY + "-other",
                "operator": "Equal",
                "value": VALUE,
                "effect": "NoExecute",
                "tolerationSeconds": 20,
            },
            {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
            {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
        ],
    )
    started(cp, ("my-pod", "default"))
    set_first_device_taints(cp, [_taint()])
    cp.advance(29)
    assert running(cp)
    cp.advance(1)
    assert evicted(cp)


def test_evict_pod_toleration_mismatch() -> None:
    # "evict-pod-toleration-mismatch": a toleration for another key does not delay
    cp = world()
    other = {
        "key": KEY + "-other",
        "operator": "Equal",
        "value": VALUE,
        "effect": "NoExecute",
        "tolerationSeconds": 60,
    }
    claim_and_pod(cp, tolerations=[other])
    started(cp, ("my-pod", "default"))
    set_first_device_taints(cp, [_taint()])
    cp.run_until_idle()
    assert evicted(cp)


def test_no_evict_pod_toleration_forever() -> None:
    # "no-evict-pod-toleration-forever" and "...-many": a matching toleration without seconds
    # tolerates for ever, whatever other tolerations say
    for tolerations in (
        [{"operator": "Exists", "effect": "NoExecute"}],
        [
            {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
            {"operator": "Exists", "effect": "NoExecute"},
        ],
    ):
        cp = world()
        claim_and_pod(cp, tolerations=tolerations)
        started(cp, ("my-pod", "default"))
        set_first_device_taints(cp, [_taint()])
        cp.advance(3600)
        assert running(cp)
        assert taint_events(cp) == []


def test_evict_pod_partial_toleration() -> None:
    # "evict-pod-partial-toleration": two taints, only the first tolerated: evicted at once
    cp = world()
    claim_and_pod(cp, tolerations=[{"operator": "Exists", "key": KEY, "effect": "NoExecute"}])
    started(cp, ("my-pod", "default"))
    set_first_device_taints(cp, [_taint(value=None), _taint(key=KEY + "-other", value=None)])
    cp.run_until_idle()
    assert evicted(cp)


def test_eviction_change_taint() -> None:
    # "eviction-change-taint": from a taint tolerated for an hour to one (another value) that is not
    cp = world()
    tolerate = {
        "key": KEY,
        "operator": "Equal",
        "value": VALUE,
        "effect": "NoExecute",
        "tolerationSeconds": 3600,
    }
    claim_and_pod(cp, tolerations=[tolerate])
    started(cp, ("my-pod", "default"))
    set_first_device_taints(cp, [_taint()])
    cp.advance(5)
    assert running(cp)
    set_first_device_taints(cp, [_taint(value=VALUE + "-other")])
    cp.run_until_idle()
    assert evicted(cp)


def test_ignore_none_effect_and_other_devices() -> None:
    # "ignore-none-effect", "no-evict-no-taint", "no-evict-other-device": a None or NoSchedule taint,
    # or taints on devices the claim does not use, evict nobody
    cp = world()
    claim_and_pod(cp)
    started(cp, ("my-pod", "default"))
    set_first_device_taints(cp, [_taint("None"), _taint("NoSchedule")])
    cp.advance(60)
    assert running(cp)
    assert taint_events(cp) == []


def test_evict_pod_resourceclaim_unrelated_changes() -> None:
    # "evict-pod-resourceclaim-unrelated-changes": the slice gains another tainted device while the
    # eviction is pending; one eviction, one event
    cp = world()
    tolerate = {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
    claim_and_pod(cp, tolerations=[tolerate])
    started(cp, ("my-pod", "default"))
    set_first_device_taints(cp, [_taint()])
    cp.advance(10)
    set_first_device_taints(cp, [_taint()], extra=1)
    cp.advance(50)
    assert evicted(cp)
    assert taint_events(cp) == [("my-pod", "Marking for deletion")]


# --- TestController: cancelled evictions -------------------------------------------------------


def _pending(cp: ControlPlane) -> None:
    tolerate = {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
    claim_and_pod(cp, tolerations=[tolerate])
    started(cp, ("my-pod", "default"))
    set_first_device_taints(cp, [_taint()])
    cp.advance(10)
    assert running(cp)


def test_cancel_eviction_remove_taint() -> None:
    # "cancel-eviction-remove-taint": the taint goes before the pod's time: no eviction and
    # emitCancelPodDeletionEvent's "Cancelling deletion"
    cp = world()
    _pending(cp)
    set_first_device_taints(cp, None)
    cp.advance(120)
    assert running(cp)
    assert taint_events(cp) == [("my-pod", "Cancelling deletion")]


def test_cancel_eviction_reduce_taint() -> None:
    # "cancel-eviction-reduce-taint": NoExecute becomes NoSchedule
    cp = world()
    _pending(cp)
    set_first_device_taints(cp, [_taint("NoSchedule")])
    cp.advance(120)
    assert running(cp)
    assert taint_events(cp) == [("my-pod", "Cancelling deletion")]


def test_cancel_eviction_remove_slice() -> None:
    # "cancel-eviction-remove-slice", TestCancelEviction "slice-deleted"
    cp = world()
    _pending(cp)
    cp.client.delete(ResourceSlice, "slice")
    cp.advance(120)
    assert running(cp)
    assert taint_events(cp) == [("my-pod", "Cancelling deletion")]


def test_cancel_eviction_remove_taint_in_new_slice() -> None:
    # "cancel-eviction-remove-taint-in-new-slice": the driver publishes the pool's next generation
    # in a new slice without the taint; the old slice no longer counts (pool.getDevice looks at the
    # newest generation only)
    cp = world()
    _pending(cp)
    newer = edit(cp.client.get(ResourceSlice, "slice"))
    body = newer.model_dump(by_alias=True, exclude_none=True, mode="json")
    body["metadata"] = {"name": "a-slice-updated"}
    body["spec"]["pool"]["generation"] = 2
    body["spec"]["devices"] = fixture_devices(None)
    cp.client.create(ResourceSlice.model_validate(body))
    cp.advance(120)
    assert running(cp)
    assert taint_events(cp) == [("my-pod", "Cancelling deletion")]


def test_cancel_eviction_pod_deletion() -> None:
    # "cancel-eviction-pod-deletion", TestCancelEviction "pod-deleted": the pod's own deletion
    # cancels without an event
    cp = world()
    _pending(cp)
    cp.client.delete(Pod, "my-pod", "default")
    cp.advance(120)
    assert taint_events(cp) == []


def test_no_evict_resourceclaim_deallocated() -> None:
    # "no-evict-resourceclaim-deallocated": a forced status update takes the allocation away while
    # the eviction is pending: cancelled, with the event
    cp = world()
    _pending(cp)
    claim = edit(cp.client.get(ResourceClaim, "my-pod-my-resource", "default"))
    claim.status = None
    cp.client.update_status(claim)
    cp.advance(120)
    assert taint_events(cp) == [("my-pod", "Cancelling deletion")]


# --- TestController: which pods are the claim's consumers ---------------------------------------


def test_no_evict_wrong_pod() -> None:
    # "no-evict-wrong-pod": the pod names the claim but the claim is reserved for another pod
    # instance (another UID): IsReservedForPod fails, the pod is left alone. The resourceclaim
    # controller would reserve the claim for a pod the user binds to a node (controller.go syncPod,
    # its case "add-reserved"), so this state exists only without it, as in upstream's unit test
    cp = world(controllers="*,-resourceclaim")
    claim_and_pod(cp, name="holder", claim="my-pod-my-resource")
    started(cp, ("holder", "default"))
    # a second pod naming the same claim, bound by the user to the node, never reserved
    stranger = pod_using("my-pod", "default", ["my-pod-my-resource"])
    stranger.spec.node_name = "node-0"
    cp.client.create(stranger)
    cp.run_until_idle()
    set_first_device_taints(cp, [_taint()])
    cp.run_until_idle()
    assert evicted(cp, "holder")
    stranger_now = cp.client.get(Pod, "my-pod", "default")
    assert stranger_now.metadata.deletion_timestamp is None
    assert [n for n, _ in taint_events(cp)] == ["holder"]


def test_finished_pods_are_not_evicted() -> None:
    # a pod that finished is dropped from reservedFor by the resourceclaim controller
    # (isPodDone), so podEvictionTime's IsReservedForPod no longer holds for it: only the pod still
    # running on the shared claim is evicted; the finished pod and its status stay
    cp = world()
    claim_and_pod(cp, name="short", claim="shared", seconds=5)
    claim_and_pod(cp, name="long", claim="shared", create_claim=False)
    started(cp, ("short", "default"), ("long", "default"))
    cp.wait_for(lambda: cp.client.get(Pod, "short", "default").status.phase == "Succeeded", timeout=60)
    set_first_device_taints(cp, [_taint()])
    cp.run_until_idle()
    assert evicted(cp, "long")
    short = cp.client.get(Pod, "short", "default")
    assert short.metadata.deletion_timestamp is None and short.status.phase == "Succeeded"
    assert [n for n, _ in taint_events(cp)] == ["long"]


def test_multiple_claims_same_rule() -> None:
    # "multiple-claims-same-rule": one pod, two claims both tainted: one eviction, counted once
    cp = world(extra_devices=1)
    for c in ("c1", "c2"):
        cp.client.create(
            ResourceClaim.model_validate(
                {
                    "metadata": {"name": c, "namespace": "default"},
                    "spec": {
                        "devices": {
                            "requests": [
                                {"name": "req-1", "exactly": {"deviceClassName": "my-resource-class"}}
                            ]
                        }
                    },
                }
            )
        )
    cp.client.create(pod_using("my-pod", "default", ["c1", "c2"]))
    t0 = started(cp, ("my-pod", "default"))
    cp.client.create(rule("evict", selector={"driver": DRIVER}))
    cp.run_until_idle()
    assert evicted(cp)
    assert condition(cp, "evict") == (
        "True",
        "PodsPendingEviction",
        "1 pod needs to be evicted in 1 namespace.",
        1,
        t0,
    )
    cp.advance(10)
    assert condition(cp, "evict") == (
        "False",
        "Completed",
        "1 pod evicted since starting the controller.",
        1,
        t0 + 10,
    )
    assert taint_events(cp) == [("my-pod", "Marking for deletion")]


# --- TestController: DeviceTaintRules and their status -----------------------------------------


def test_rule_status() -> None:
    # "rule-status": a new rule gets its condition at once: nothing to evict yet
    cp = world()
    cp.client.create(rule("evict", selector={"driver": DRIVER}))
    cp.run_until_idle()
    assert condition(cp, "evict") == ("False", "NotStarted", "", 1, 0.0)


def test_evict_pod_rule() -> None:
    # "evict-pod-rule": status first (pending), the pod evicted, then ruleStatusPeriod (10 s) later
    # "Completed" with the count of pods this controller evicted
    cp = world()
    claim_and_pod(cp)
    t0 = started(cp, ("my-pod", "default"))
    cp.client.create(rule("evict", selector={"driver": DRIVER}))
    cp.run_until_idle()
    assert evicted(cp)
    assert condition(cp, "evict") == (
        "True",
        "PodsPendingEviction",
        "1 pod needs to be evicted in 1 namespace.",
        1,
        t0,
    )
    cp.advance(9)
    assert condition(cp, "evict")[1] == "PodsPendingEviction"
    cp.advance(1)
    assert condition(cp, "evict") == (
        "False",
        "Completed",
        "1 pod evicted since starting the controller.",
        1,
        t0 + 10,
    )
    assert taint_events(cp) == [("my-pod", "Marking for deletion")]


def test_evict_pod_rule_later() -> None:
    # "evict-pod-rule-later": tolerated for an hour: pending the whole hour (no rewrite while
    # nothing changes), evicted, then Completed 10 s later
    cp = world()
    tolerate = {
        "key": KEY,
        "operator": "Equal",
        "value": VALUE,
        "effect": "NoExecute",
        "tolerationSeconds": 3600,
    }
    claim_and_pod(cp, tolerations=[tolerate])
    t0 = started(cp, ("my-pod", "default"))
    cp.client.create(rule("evict", selector={"driver": DRIVER}))
    cp.advance(3599)
    assert running(cp)
    assert condition(cp, "evict") == (
        "True",
        "PodsPendingEviction",
        "1 pod needs to be evicted in 1 namespace.",
        1,
        t0,
    )
    cp.advance(1)
    assert evicted(cp)
    cp.advance(10)
    assert condition(cp, "evict") == (
        "False",
        "Completed",
        "1 pod evicted since starting the controller.",
        1,
        t0 + 3610,
    )


def test_evict_many_pods() -> None:
    # "evict-many-pods-many-namespaces" and "evict-many-pods-same-namespace"
    for second_ns, where in (("other", "2 different namespaces."), ("default", "1 namespace.")):
        cp = world(extra_devices=1)
        claim_and_pod(cp)
        claim_and_pod(cp, name="my-pod-other", namespace=second_ns)
        t0 = started(cp, ("my-pod", "default"), ("my-pod-other", second_ns))
        cp.client.create(rule("evict", selector={"driver": DRIVER}))
        cp.run_until_idle()
        assert evicted(cp) and evicted(cp, "my-pod-other", second_ns)
        assert condition(cp, "evict") == (
            "True",
            "PodsPendingEviction",
            f"2 pods need to be evicted in {where}",
            1,
            t0,
        )
        cp.advance(10)
        assert condition(cp, "evict") == (
            "False",
            "Completed",
            "2 pods evicted since starting the controller.",
            1,
            t0 + 10,
        )


def test_none_pod_rule() -> None:
    # "none-pod-rule": effect None evicts nobody and reports, once, what NoExecute would do
    cp = world()
    claim_and_pod(cp)
    t0 = started(cp, ("my-pod", "default"))
    cp.client.create(rule("evict", effect="None", selector={"driver": DRIVER}))
    cp.advance(60)
    assert running(cp)
    message = RULE_MESSAGE_NONE.format(published=3, allocated=1, s="", pods="1 pod", namespaces="1 namespace")
    assert condition(cp, "evict") == ("False", "NoEffect", message, 1, t0)


def test_none_many_pods() -> None:
    # "none-many-pods-many-namespaces", "none-many-pods-same-namespace" (two claims on two of the
    # slice's four devices; upstream's unit case has no slices, so it counts 0 published)
    for second_ns, where in (("other", "2 different namespaces"), ("default", "1 namespace")):
        cp = world(extra_devices=1)
        claim_and_pod(cp)
        claim_and_pod(cp, name="my-pod-other", namespace=second_ns)
        t0 = started(cp, ("my-pod", "default"), ("my-pod-other", second_ns))
        cp.client.create(rule("evict", effect="None", selector={"driver": DRIVER}))
        cp.run_until_idle()
        message = RULE_MESSAGE_NONE.format(published=4, allocated=2, s="s", pods="2 pods", namespaces=where)
        assert condition(cp, "evict") == ("False", "NoEffect", message, 1, t0)


def test_other_effect_rule() -> None:
    # maybeUpdateRuleStatus: NoSchedule: "OtherEffect", no eviction
    cp = world()
    claim_and_pod(cp)
    t0 = started(cp, ("my-pod", "default"))
    cp.client.create(rule("evict", effect="NoSchedule", selector={"driver": DRIVER}))
    cp.advance(30)
    assert running(cp)
    assert condition(cp, "evict") == (
        "False",
        "OtherEffect",
        "Eviction only happens for the NoExecute effect.",
        1,
        t0,
    )


def test_multiple_claims_different_rules() -> None:
    # "multiple-claims-different-rules-order-1/-2": rule 1 evicts now, rule 2 (timeAdded 40 s in
    # the future) would later; the pod goes now and both rules count it
    cp = world(extra_devices=1)
    for c in ("c1", "c2"):
        cp.client.create(
            ResourceClaim.model_validate(
                {
                    "metadata": {"name": c, "namespace": "default"},
                    "spec": {
                        "devices": {
                            "requests": [
                                {"name": "req-1", "exactly": {"deviceClassName": "my-resource-class"}}
                            ]
                        }
                    },
                }
            )
        )
    cp.client.create(pod_using("my-pod", "default", ["c1", "c2"]))
    t0 = started(cp, ("my-pod", "default"))
    later = cp.clock.to_datetime(t0 + 40)
    cp.client.create(rule("evict-instance", selector={"driver": DRIVER, "device": "instance"}))
    cp.client.create(
        rule(
            "evict-instance-0",
            selector={"driver": DRIVER, "device": "instance-0"},
            timeAdded=later.strftime("%Y-%m-%dT%H:%M:%SZ"),
        )
    )
    cp.run_until_idle()
    assert evicted(cp)
    cp.advance(10)
    for name in ("evict-instance", "evict-instance-0"):
        assert condition(cp, name)[1:3] == ("Completed", "1 pod evicted since starting the controller.")
    assert taint_events(cp) == [("my-pod", "Marking for deletion")]


def test_evict_pod_many_taints() -> None:
    # "evict-pod-many-taints": two rules (one selecting by device name only) and two slice taints;
    # the earliest of the tolerated times (30 s) wins, and both rules count the eviction
    cp = world()
    claim_and_pod(
        cp,
        tolerations=[
            {"operator": "Exists", "key": KEY, "effect": "NoExecute", "tolerationSeconds": 60},
            {"operator": "Exists", "key": KEY + "-other", "effect": "NoExecute", "tolerationSeconds": 30},
        ],
    )
    t0 = started(cp, ("my-pod", "default"))
    cp.client.create(rule("evict", selector={"driver": DRIVER}))
    cp.client.create(rule("evict-other", selector={"device": "instance"}))
    set_first_device_taints(cp, [_taint(value=None), _taint(key=KEY + "-other", value=None)])
    cp.advance(29)
    assert running(cp)
    for name in ("evict", "evict-other"):
        assert condition(cp, name) == (
            "True",
            "PodsPendingEviction",
            "1 pod needs to be evicted in 1 namespace.",
            1,
            t0,
        )
    cp.advance(1)
    assert evicted(cp)
    cp.advance(10)
    for name in ("evict", "evict-other"):
        assert condition(cp, name) == (
            "False",
            "Completed",
            "1 pod evicted since starting the controller.",
            1,
            t0 + 40,
        )


def test_rule_without_selector_selects_nothing() -> None:
    # types.go DeviceTaintRuleSpec.DeviceSelector: "Without a selector, no devices are matched"
    # (the controller's ruleMatchesDevice returns false for a nil selector; the scheduler's tracker
    # reads nil as the empty selector); an empty selector matches all
    cp = world()
    claim_and_pod(cp)
    started(cp, ("my-pod", "default"))
    cp.client.create(rule("nothing"))
    cp.advance(30)
    assert running(cp)
    assert condition(cp, "nothing")[1] == "NotStarted"
    cp.client.create(rule("everything", selector={}))
    cp.run_until_idle()
    assert evicted(cp)


def test_a_toleration_must_name_no_execute() -> None:
    # claimEvictionTime counts only tolerations whose effect is NoExecute (toleration.Effect ==
    # NoExecute && ToleratesTaint): one without an effect lets the scheduler allocate a tainted
    # device but does not delay the eviction
    cp = world()
    claim_and_pod(cp, tolerations=[{"operator": "Exists", "tolerationSeconds": 600}])
    started(cp, ("my-pod", "default"))
    set_first_device_taints(cp, [_taint()])
    cp.run_until_idle()
    assert evicted(cp)


# --- TestDeviceTaintRule and the integration test -----------------------------------------------


def test_device_taint_rule_none_then_no_execute() -> None:
    # TestDeviceTaintRule "immediate" and "delayed", testEvictCluster (v1 rule): simulate with None,
    # bump timeAdded by hand (generation 2, the report again), switch to NoExecute (the API server
    # bumps timeAdded, PrepareForUpdate), pending, evicted after the toleration, Completed 10 s later
    cp = world(extra_devices=2)
    tolerate = {"operator": "Equal", "key": "testing", "effect": "NoExecute", "tolerationSeconds": 30}
    claim_and_pod(cp, tolerations=[tolerate])
    claim_and_pod(cp, name="second", tolerations=[tolerate])
    t0 = started(cp, ("my-pod", "default"), ("second", "default"))
    cp.client.create(rule("r", effect="None", selector={"driver": DRIVER}, key="testing", value=None))
    cp.run_until_idle()
    message = RULE_MESSAGE_NONE.format(
        published=5, allocated=2, s="s", pods="2 pods", namespaces="1 namespace"
    )
    assert condition(cp, "r") == ("False", "NoEffect", message, 1, t0)
    cp.advance(20)
    bumped = edit(cp.client.get(DeviceTaintRule, "r"))
    bumped.spec.taint.time_added = cp.clock.now_datetime().replace(microsecond=0)
    cp.client.update(bumped)
    cp.run_until_idle()
    assert condition(cp, "r") == ("False", "NoEffect", message, 2, t0 + 20)
    cp.advance(20)
    current = edit(cp.client.get(DeviceTaintRule, "r"))
    current.spec.taint.effect = "NoExecute"
    updated = cp.client.update(current)
    assert (updated.spec.taint.time_added - cp.clock.to_datetime(0)).total_seconds() == t0 + 40
    cp.run_until_idle()
    assert condition(cp, "r") == (
        "True",
        "PodsPendingEviction",
        "2 pods need to be evicted in 1 namespace.",
        3,
        t0 + 40,
    )
    cp.advance(29)
    assert running(cp) and running(cp, "second")
    cp.advance(1)
    assert evicted(cp) and evicted(cp, "second")
    cp.advance(10)
    assert condition(cp, "r") == (
        "False",
        "Completed",
        "2 pods evicted since starting the controller.",
        3,
        t0 + 80,
    )


def test_a_deleted_rule_is_forgotten() -> None:
    # TestDeviceTaintRule: after deleting the rule "taint rule statistics should have dropped the
    # deleted rule"; a rule recreated under the same name starts counting at 0
    cp = world()
    claim_and_pod(cp)
    started(cp, ("my-pod", "default"))
    cp.client.create(rule("evict", selector={"driver": DRIVER}))
    cp.advance(10)
    controller: Any = cp.manager.get("device-taint-eviction").reconciler
    assert list(controller.evicted.values()) == [1]
    cp.client.delete(DeviceTaintRule, "evict")
    cp.run_until_idle()
    assert controller.evicted == {}
    cp.client.create(rule("evict", selector={"driver": DRIVER}))
    cp.run_until_idle()
    assert condition(cp, "evict")[1:3] == ("NotStarted", "")


def test_none_rule_is_reported_once() -> None:
    # maybeUpdateRuleStatus for effect None: "This information will not be updated again" (its
    # status is computed when the rule is added or its spec changes, handleRuleChange; a status
    # update alone queues nothing): a pod that starts later does not change the report
    cp = world(extra_devices=1)
    claim_and_pod(cp)
    t0 = started(cp, ("my-pod", "default"))
    cp.client.create(rule("evict", effect="None", selector={"driver": DRIVER}))
    cp.run_until_idle()
    claim_and_pod(cp, name="later")
    started(cp, ("later", "default"))
    cp.advance(60)
    message = RULE_MESSAGE_NONE.format(published=4, allocated=1, s="", pods="1 pod", namespaces="1 namespace")
    assert condition(cp, "evict") == ("False", "NoEffect", message, 1, t0)


def test_no_evict_pod_not_scheduled() -> None:
    # "no-evict-pod-not-scheduled": the claim is allocated and reserved for the pod (written by
    # hand, as upstream's integration test does), but the pod is not bound to a node: not evicted
    cp = world()
    cp.client.create(
        ResourceClaim.model_validate(
            {
                "metadata": {"name": "my-pod-my-resource", "namespace": "default"},
                "spec": {
                    "devices": {
                        "requests": [{"name": "req-1", "exactly": {"deviceClassName": "my-resource-class"}}]
                    }
                },
            }
        )
    )
    gated = pod_using("my-pod", "default", ["my-pod-my-resource"])
    body = gated.model_dump(by_alias=True, exclude_none=True, mode="json")
    body["spec"]["schedulingGates"] = [{"name": "example.com/hold"}]
    pod = cp.client.create(Pod.model_validate(body))
    claim = edit(cp.client.get(ResourceClaim, "my-pod-my-resource", "default"))
    claim.status = claim.status.model_validate(
        {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "req-1", "driver": DRIVER, "pool": "node-0", "device": "instance"}
                    ]
                }
            },
            "reservedFor": [{"resource": "pods", "name": "my-pod", "uid": pod.metadata.uid}],
        }
    )
    cp.client.update_status(claim)
    cp.run_until_idle()
    set_first_device_taints(cp, [_taint()])
    cp.advance(30)
    now = cp.client.get(Pod, "my-pod", "default")
    assert now.metadata.deletion_timestamp is None and not now.spec.node_name
    assert taint_events(cp) == []
    reserved = cp.client.get(ResourceClaim, "my-pod-my-resource", "default").status.reserved_for
    assert [r.uid for r in reserved] == [pod.metadata.uid]
