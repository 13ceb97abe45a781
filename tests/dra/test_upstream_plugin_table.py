"""Upstream's DynamicResources plugin cases, translated into kbatch.

Source: ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go`` ``TestPlugin``
(the resource.k8s.io/v1 version with extended resources; the stored file predates 1.37, so the
messages are checked against the 1.37 code where they changed: ``resourceclaim.IsForPod`` says
"Pod", the incubating allocator names the device in CEL errors). Each test names its case. Upstream
drives one plugin instance step by step (PreEnqueue, PreFilter, Filter, Reserve, PreBind, Unreserve)
on a fake client; so do these tests, on kbatch's plugin with a control plane's client, with the
claims, classes and slices created through the API as a user would.

Fixtures as upstream's: pod ``my-pod`` (uid ``1234``) with claim entry ``my-resource``, claim
``my-pod-my-resource`` with request ``req-1`` of class ``my-resource-class``, node ``worker`` whose
slice (driver ``some-driver``, pool ``worker``) has device ``instance-1``.

Not translated: "DRA-disabled" and the feature-gate variants ("...-without-DRAAdminAccess-...",
"claim-with-prioritized-list-feature-disabled", "tainted-device-disabled"): those gates are GA and
locked in 1.37; the no-op PostFilter message for a pod without claims ("no new claims to
deallocate": kbatch leaves it out, docs/dra.md; "still not schedulable" is checked); the
"extended-resource-*" cases (end to end in test_extended_resources.py,
PostFilter's "-has-claim" and "-delete-claim" among them); "canceled" (the filter timeout is not
modelled); the binding-conditions cases (test_upstream_binding_conditions.py); "CEL-runtime-error-
for-one-of-three-nodes" (PreScore replays the Filter error; kbatch's Filter error already aborts the
attempt).
"""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import Namespace
from kbatch.api.resource_v1 import FINALIZER, DeviceClass, ResourceClaim, ResourceSlice
from kbatch.controllers.dra.dynamicresources import DynamicResources
from kbatch.controllers.scheduler.framework import Code
from kbatch.controllers.scheduler.profiles import Handle
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.types import NodeShape, PodInfo

from .builders import create_observed

DRIVER = "some-driver"
CLASS = "my-resource-class"
CLAIM = "my-pod-my-resource"
POD_UID = "1234"
HEALTHY = f'device.attributes["{DRIVER}"].healthy'  # upstream brokenSelector: unset on worker
ADMIN_LABEL = "resource.kubernetes.io/admin-access"


def _request(**exactly: Any) -> dict[str, Any]:
    return {"name": "req-1", "exactly": {"deviceClassName": CLASS, **exactly}}


def _claim(name: str = CLAIM, request: dict[str, Any] | None = None, **meta: Any) -> ResourceClaim:
    return ResourceClaim.model_validate(
        {
            "metadata": {"name": name, "namespace": "default", **meta},
            "spec": {"devices": {"requests": [request or _request()]}},
        }
    )


def _slice(node: str = "worker", *devices: dict[str, Any]) -> ResourceSlice:
    return ResourceSlice.model_validate(
        {
            "metadata": {"name": f"{node}-{DRIVER}"},
            "spec": {
                "driver": DRIVER,
                "nodeName": node,
                "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                "devices": list(devices) or [{"name": "instance-1"}],
            },
        }
    )


def _class(*selectors: str) -> DeviceClass:
    return DeviceClass.model_validate(
        {
            "metadata": {"name": CLASS},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in selectors] or None},
        }
    )


class Case:
    """One upstream test case: a control plane holding the objects, the plugin knowing them."""

    def __init__(self, *objects: Any, admin_namespace: bool = False) -> None:
        self.cp = ControlPlane(controllers=[])
        self.plugin = DynamicResources(Handle(client=self.cp.client))
        if admin_namespace:  # the admin-access admission check (DRAAdminAccess)
            namespace = edit(self.cp.client.get(Namespace, "default"))
            namespace.metadata.labels = {**(namespace.metadata.labels or {}), ADMIN_LABEL: "true"}
            self.cp.client.update(namespace)
        for obj in objects:
            self.add(obj)
        self.state: dict[Any, Any] = {}

    def add(self, obj: Any) -> Any:
        return create_observed(self.cp.client, self.plugin, obj)

    def claim(self, name: str = CLAIM) -> ResourceClaim:
        return self.cp.client.get(ResourceClaim, name, "default")

    def pre_filter(self, pod: PodInfo) -> Any:
        return self.plugin.pre_filter(self.state, pod, Snapshot())

    def filter(self, pod: PodInfo, node: str = "worker") -> Any:
        return self.plugin.filter(self.state, pod, _node(node))

    def through_pre_bind(self, pod: PodInfo, node: str = "worker") -> tuple[Any, ...]:
        return (
            self.pre_filter(pod),
            self.filter(pod, node),
            self.plugin.reserve(self.state, pod, node),
            self.plugin.pre_bind(self.state, pod, node),
        )


def _node(name: str) -> NodeInfo:
    return NodeInfo(NodeShape(name, {"kubernetes.io/hostname": name}))


def _pod(claim: str = CLAIM, *, uid: str = POD_UID, template: bool = False, recorded: bool = True) -> PodInfo:
    if template:
        statuses = (("my-resource", claim),) if recorded else ()
        entries = (("my-resource", "", claim),)
        return PodInfo("default", "my-pod", uid=uid, resource_claims=entries, claim_statuses=statuses)
    return PodInfo("default", "my-pod", uid=uid, resource_claims=(("my-resource", claim, ""),))


def _owned(uid: str = POD_UID) -> dict[str, Any]:
    owner = {"apiVersion": "v1", "kind": "Pod", "name": "my-pod", "uid": uid, "controller": True}
    return {"ownerReferences": [owner]}


def _allocated(claim: ResourceClaim, node: str | None = "worker", **result: Any) -> ResourceClaim:
    body = claim.model_dump(by_alias=True, exclude_none=True)
    allocation: dict[str, Any] = {
        "devices": {
            "results": [
                {"request": "req-1", "driver": DRIVER, "pool": "worker", "device": "instance-1", **result}
            ]
        }
    }
    if node is not None:
        allocation["nodeSelector"] = {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
            ]
        }
    body["status"] = {"allocation": allocation, **body.get("status", {})}
    return ResourceClaim.model_validate(body)


def _reserved(claim: ResourceClaim, uid: str = POD_UID) -> ResourceClaim:
    body = claim.model_dump(by_alias=True, exclude_none=True)
    body["status"]["reservedFor"] = [{"resource": "pods", "name": "my-pod", "uid": uid}]
    return ResourceClaim.model_validate(body)


def _consumers(claim: ResourceClaim) -> list[tuple[str, str]]:
    return [(r.name, r.uid) for r in (claim.status.reserved_for or ())] if claim.status else []


def _topology(claim: ResourceClaim, key: str, value: str) -> ResourceClaim:
    body = claim.model_dump(by_alias=True, exclude_none=True)
    body["status"]["allocation"]["nodeSelector"] = {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]
    }
    return ResourceClaim.model_validate(body)


# --- PreFilter -------------------------------------------------------------------------------------


def test_empty() -> None:
    # "empty": a pod without claims: PreFilter Skip
    case = Case()
    status = case.pre_filter(PodInfo("default", "foo"))
    assert status.code == Code.SKIP


def test_claim_with_request_with_unknown_device_class() -> None:
    # "claim-with-request-with-unknown-device-class"
    case = Case(_claim(request=_request(deviceClassName="does-not-exist")))
    status = case.pre_filter(_pod())
    assert (status.code, status.reasons) == (
        Code.UNRESOLVABLE,
        ("request req-1: device class does-not-exist does not exist",),
    )


def test_claim_with_prioritized_list_unknown_device_class() -> None:
    # "claim-with-prioritized-list-unknown-device-class": the subrequest is named <request>/<sub>
    request = {"name": "req-1", "firstAvailable": [{"name": "subreq-1", "deviceClassName": "does-not-exist"}]}
    case = Case(_claim(request=request))
    status = case.pre_filter(_pod())
    assert status.reasons == ("request req-1/subreq-1: device class does-not-exist does not exist",)


# --- Filter ----------------------------------------------------------------------------------------


def test_no_resources() -> None:
    # "no-resources": no slice, Filter "cannot allocate all claims"
    case = Case(_class(), _claim(**_owned()))
    assert case.pre_filter(_pod()) is None
    status = case.filter(_pod())
    assert (status.code, status.reasons) == (Code.UNRESOLVABLE, ("cannot allocate all claims",))


def test_exhausted_resources() -> None:
    # "exhausted-resources": instance-1 is allocated to another claim
    other = _allocated(_claim(f"{CLAIM}-other"))
    case = Case(_class(), _slice(), other, _claim(**_owned()))
    case.pre_filter(_pod())
    assert case.filter(_pod()).reasons == ("cannot allocate all claims",)


def test_tainted_device_enabled() -> None:
    # "tainted-device-enabled": a NoSchedule taint the request does not tolerate
    taint = {"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}
    case = Case(_class(), _slice("worker", {"name": "instance-1", "taints": [taint]}), _claim(**_owned()))
    case.pre_filter(_pod())
    assert case.filter(_pod()).reasons == ("cannot allocate all claims",)


def test_structured_ignore_allocated_admin_access() -> None:
    # "structured-ignore-allocated-admin-access": a device allocated with admin access is not in use
    # for other claims
    other = _allocated(_claim(f"{CLAIM}-other", request=_request(adminAccess=True)), adminAccess=True)
    case = Case(_class(), _slice(), other, _claim(**_owned()), admin_namespace=True)
    pre = case.through_pre_bind(_pod())
    assert pre == (None, None, None, None)
    assert case.claim().status.allocation.devices.results[0].device == "instance-1"


def test_request_admin_access_with_dra_admin_access_featuregate() -> None:
    # "request-admin-access-with-DRAAdminAccess-featuregate": admin access allocates a device that is
    # in use; the result says so
    other = _allocated(_claim(f"{CLAIM}-other"))
    admin = _claim(request=_request(adminAccess=True), **_owned())
    case = Case(_class(), _slice(), other, admin, admin_namespace=True)
    assert case.through_pre_bind(_pod()) == (None, None, None, None)
    [result] = case.claim().status.allocation.devices.results
    assert (result.device, result.admin_access) == ("instance-1", True)


def test_claim_parameters_cel_runtime_error() -> None:
    # "claim-parameters-CEL-runtime-error": an error status (scheduling of the pod is aborted), the
    # claim named as klog.KObj, the selector by index; 1.37's incubating allocator also names the
    # device (allocator_incubating.go)
    case = Case(_class(), _slice(), _claim(request=_request(selectors=[{"cel": {"expression": HEALTHY}}])))
    case.pre_filter(_pod())
    status = case.filter(_pod())
    assert status.code == Code.ERROR
    assert status.reasons[0].startswith(
        f"claim default/{CLAIM}: selector #0 on device {DRIVER}/worker/instance-1: CEL runtime error: "
        "no such key: healthy"
    )


def test_class_parameters_cel_runtime_error() -> None:
    # "class-parameters-CEL-runtime-error": the class's selector, named by the class
    case = Case(_class(HEALTHY), _slice(), _claim())
    case.pre_filter(_pod())
    status = case.filter(_pod())
    assert status.code == Code.ERROR
    assert status.reasons[0].startswith(
        f"class {CLASS}: selector #0 on device {DRIVER}/worker/instance-1: CEL runtime error: "
        "no such key: healthy"
    )


def test_wrong_topology() -> None:
    # "wrong-topology": the allocation's node selector does not match the node
    case = Case(_topology(_allocated(_claim()), "no-such-label", "no-such-value"))
    assert case.pre_filter(_pod()) is None
    status = case.filter(_pod())
    assert (status.code, status.reasons) == (Code.UNRESOLVABLE, ("resourceclaim not available on the node",))
    # PostFilter deallocates it ("Claims get deallocated immediately.")
    result = case.plugin.post_filter(case.state, _pod(), Snapshot(), {"worker": status})
    assert (result.nominated_node, result.message) == (None, "deallocation of ResourceClaim completed")
    claim = case.claim()
    assert claim.status.allocation is None and not claim.status.reserved_for


def test_wrong_topology_reserved_for_another_pod_is_not_deallocated() -> None:
    # upstream PostFilter deallocates only a claim reserved for nobody or for this pod alone
    other = _reserved(_topology(_allocated(_claim()), "no-such-label", "no-such-value"), uid="other")
    case = Case(other)
    case.pre_filter(_pod())
    status = case.filter(_pod())
    result = case.plugin.post_filter(case.state, _pod(), Snapshot(), {"worker": status})
    assert result.message == "still not schedulable"  # upstream's
    assert case.claim().status.allocation is not None


def test_exhausted_resources_postfilter_changes_nothing() -> None:
    # "exhausted-resources": PostFilter "still not schedulable" (no allocated claim to free)
    other = _allocated(_claim(f"{CLAIM}-other"))
    case = Case(_class(), _slice(), other, _claim(**_owned()))
    case.pre_filter(_pod())
    status = case.filter(_pod())
    assert status.reasons == ("cannot allocate all claims",)
    result = case.plugin.post_filter(case.state, _pod(), Snapshot(), {"worker": status})
    assert result.message == "still not schedulable"
    assert case.claim(f"{CLAIM}-other").status.allocation is not None


# --- Reserve, PreBind, Unreserve -------------------------------------------------------------------


def test_claim_reference() -> None:
    # "claim-reference": an allocated claim named by the pod: PreBind only adds the pod to
    # reservedFor (no finalizer: the scheduler did not allocate it); other claims are not touched
    other = _claim("not-my-claim")
    case = Case(_allocated(_claim(), node=None), other)
    before = case.claim("not-my-claim").metadata.resource_version
    assert case.through_pre_bind(_pod()) == (None, None, None, None)
    claim = case.claim()
    assert _consumers(claim) == [("my-pod", POD_UID)]
    assert not claim.metadata.finalizers
    assert case.claim("not-my-claim").metadata.resource_version == before


def test_claim_template() -> None:
    # "claim-template": the same for the claim the pod's status records for its template entry
    case = Case(_allocated(_claim(**_owned()), node=None))
    assert case.through_pre_bind(_pod(template=True)) == (None, None, None, None)
    assert _consumers(case.claim()) == [("my-pod", POD_UID)]


def test_with_resources() -> None:
    # "with-resources": Reserve assumes the allocation (in flight), PreBind writes the finalizer,
    # then the allocation and the reservation
    case = Case(_class(), _slice(), _claim(**_owned()))
    assert case.pre_filter(_pod()) is None and case.filter(_pod()) is None
    assert case.plugin.reserve(case.state, _pod(), "worker") is None
    assert f"default/{CLAIM}" in case.plugin.world.in_flight
    assert case.plugin.pre_bind(case.state, _pod(), "worker") is None
    claim = case.claim()
    assert claim.metadata.finalizers == [FINALIZER]
    [result] = claim.status.allocation.devices.results
    assert (result.request, result.pool, result.device) == ("req-1", "worker", "instance-1")
    [term] = claim.status.allocation.node_selector.node_selector_terms
    assert [(f.key, f.values) for f in term.match_fields] == [("metadata.name", ["worker"])]
    assert _consumers(claim) == [("my-pod", POD_UID)]
    assert f"default/{CLAIM}" not in case.plugin.world.in_flight


def test_with_resources_has_finalizer() -> None:
    # "with-resources-has-finalizer": the finalizer is already there (an interrupted scheduler):
    # not added twice
    case = Case(_class(), _slice(), _claim(finalizers=[FINALIZER], **_owned()))
    assert case.through_pre_bind(_pod()) == (None, None, None, None)
    claim = case.claim()
    assert claim.metadata.finalizers == [FINALIZER]
    assert _consumers(claim) == [("my-pod", POD_UID)]


def test_with_resources_finalizer_gets_removed() -> None:
    # "with-resources-finalizer-gets-removed": someone removes the finalizer between Reserve and
    # PreBind: PreBind adds it again
    case = Case(_class(), _slice(), _claim(finalizers=[FINALIZER], **_owned()))
    case.pre_filter(_pod())
    case.filter(_pod())
    case.plugin.reserve(case.state, _pod(), "worker")
    changed = edit(case.claim())
    changed.metadata.finalizers = None
    case.cp.client.update(changed)
    assert case.plugin.pre_bind(case.state, _pod(), "worker") is None
    claim = case.claim()
    assert claim.metadata.finalizers == [FINALIZER] and _consumers(claim) == [("my-pod", POD_UID)]


def test_claim_with_prioritized_list() -> None:
    # "claim-with-prioritized-list": the result names the subrequest
    request = {"name": "req-1", "firstAvailable": [{"name": "subreq-1", "deviceClassName": CLASS}]}
    case = Case(_class(), _slice(), _claim(request=request, **_owned()))
    assert case.through_pre_bind(_pod()) == (None, None, None, None)
    assert [r.request for r in case.claim().status.allocation.devices.results] == ["req-1/subreq-1"]


def test_good_topology() -> None:
    # "good-topology": the allocation's node selector matches: PreBind reserves
    claim = _topology(_allocated(_claim(**_owned())), "kubernetes.io/hostname", "worker")
    case = Case(claim)
    assert case.through_pre_bind(_pod()) == (None, None, None, None)
    assert _consumers(case.claim()) == [("my-pod", POD_UID)]


def test_reserved_okay() -> None:
    # "reserved-okay": the claim is reserved for the pod already: nothing to write
    case = Case(_reserved(_allocated(_claim(**_owned()))))
    before = case.claim().metadata.resource_version
    assert case.through_pre_bind(_pod()) == (None, None, None, None)
    assert case.claim().metadata.resource_version == before


def test_skip_bind() -> None:
    # "skip-bind": Unreserve before PreBind (another PreBind plugin failed): the allocation is no
    # longer in flight, nothing was written
    case = Case(_class(), _slice(), _claim(**_owned()))
    case.pre_filter(_pod())
    case.filter(_pod())
    case.plugin.reserve(case.state, _pod(), "worker")
    case.plugin.unreserve(case.state, _pod(), "worker")
    assert not case.plugin.world.in_flight
    claim = case.claim()
    assert claim.status is None or claim.status.allocation is None
    assert not claim.metadata.finalizers


def test_bind_failure() -> None:
    # "bind-failure": Unreserve after PreBind (the binding failed): the pod is taken out of
    # reservedFor again (dynamicresources.go Unreserve); the allocation stays
    case = Case(_topology(_allocated(_claim(**_owned())), "kubernetes.io/hostname", "worker"))
    assert case.through_pre_bind(_pod()) == (None, None, None, None)
    case.plugin.unreserve(case.state, _pod(), "worker")
    claim = case.claim()
    assert _consumers(claim) == []
    assert claim.status.allocation is not None
