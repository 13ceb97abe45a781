"""A simulated DRA driver that attaches devices with binding conditions (KEP-5007,
``DRADeviceBindingConditions``, beta and on in 1.37): nodes added with
``DeviceTemplate(binding_conditions=…)`` publish devices with ``bindingConditions`` /
``bindingFailureConditions`` (/ ``bindsToNode``), and the ``dra-attach`` controller, as the driver's
attachment controller under its own ServiceAccount, sets the conditions in the claim's
``status.devices`` after the attach delay: the scheduler's PreBind, waiting, then binds the pod; a
failure condition makes PreBind fail, and the next attempt deallocates the claim (upstream Filter /
PostFilter). The kubelet plugin's device status is written once the claim is prepared for a bound
pod, not while PreBind waits (KEP-4817), and keeps the attachment's conditions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from kbatch import ControlPlane
from kbatch.api.core_v1 import Event, Node, Pod
from kbatch.api.resource_v1 import ResourceClaim, ResourceClaimTemplate, ResourceSlice
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.controllers.dra.driver.attach import AttachPool, Failures, attach_entries
from kbatch.controllers.dra.driver.entries import Owner, merged
from kbatch.sim.devices import DeviceTemplate
from kbatch.sim.nodes import NodeTemplate, create_nodes

from .test_device_status_driver import cluster_of as cluster
from .test_device_status_driver import only_claim
from .test_preemption import gpu_pod

ATTACH_USER = "system:serviceaccount:kube-system:dra-attach-controller"
t0 = datetime(2026, 1, 1, tzinfo=UTC)


def attaching(delay: float = 12, fails: bool = False, status: bool = True, **extra: Any) -> NodeTemplate:
    return NodeTemplate(devices=DeviceTemplate(count=2, binding_conditions=("attached",), attach_delay=delay,
                                               attach_fails=fails, device_status=status, **extra))


def conditions(claim: ResourceClaim) -> list[tuple[str, str, str, str]]:
    return [(d.device, c.type, c.status, c.reason) for d in (claim.status.devices or ()) if claim.status
            for c in d.conditions or ()] if claim.status else []


def events(cp: ControlPlane, reason: str) -> list[str]:
    return [e.message or "" for e in cp.client.list(Event, "default").items if e.reason == reason]


def test_the_slices_publish_binding_conditions() -> None:
    cp = cluster(attaching(binds_to_node=True))
    [slice_] = cp.client.list(ResourceSlice).items
    device = slice_.spec.devices[0]
    assert device.binding_conditions == ["attached"]
    assert device.binding_failure_conditions == ["attach-failed"]
    assert device.binds_to_node is True
    assert slice_.metadata.annotations["dra.kbatch.io/attach-delay-seconds"] == "12"


def test_a_pod_waits_for_the_attachment_then_runs() -> None:
    cp = cluster(attaching(delay=12))
    cp.client.create(gpu_pod("p"))
    cp.advance(10)
    claim = only_claim(cp)
    assert [r.name for r in claim.status.reserved_for] == ["p"]  # PreBind reserved it and waits
    assert conditions(claim) == []  # not attached yet, and not prepared: the pod is not bound
    assert cp.client.get(Pod, "p", "default").spec.node_name is None
    pending = events(cp, "BindingConditionsPending")
    assert pending == ["waiting for binding conditions for device on node node-0"]
    cp.advance(6)  # attached at 12 s; PreBind's 5-second poll sees it at 15 s
    pod = cp.client.get(Pod, "p", "default")
    assert pod.spec.node_name == "node-0" and pod.status.phase == "Running"
    assert conditions(only_claim(cp)) == [("gpu-0", "attached", "True", "Attached"),
                                          ("gpu-0", "Ready", "True", "DevicePrepared")]


def preferring(name: str, label: str) -> Pod:
    """A GPU pod that prefers nodes with ``label`` (NodeAffinity scoring)."""
    body = gpu_pod(name).to_dict()
    body["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "preference": {"matchExpressions": [{"key": label, "operator": "Exists"}]}}]}}
    return Pod.model_validate(body)


def test_a_failed_attachment_deallocates_the_claim_and_reschedules() -> None:
    """The failure condition fails PreBind; the next attempt finds the claim unavailable and
    deallocates it; the attempt after allocates anew, on the node the pod now prefers."""
    cp = cluster(attaching(delay=5, fails=True, status=False))
    cp.client.create(preferring("p", "attaches"))
    cp.advance(6)
    assert conditions(only_claim(cp)) == [("gpu-0", "attach-failed", "True", "AttachFailed")]
    cp.advance(5)
    [failed] = events(cp, "FailedScheduling")
    name = only_claim(cp).metadata.name
    assert failed == (f'claim {name} binding failed: reason=AttachFailed, message="simulated attachment '
                      'of the device to node node-0 failed"')
    good = NodeTemplate(labels={"attaches": "yes"}, devices=DeviceTemplate(
        count=2, binding_conditions=("attached",), attach_delay=5))
    create_nodes(cp, 1, good, prefix="good-")
    cp.advance(30)
    assert any("resourceclaim not available on the node. deallocation of ResourceClaim completed" in m
               for m in events(cp, "FailedScheduling"))
    pod = cp.client.get(Pod, "p", "default")
    assert pod.spec.node_name == "good-0" and pod.status.phase == "Running"
    claim = only_claim(cp)
    assert claim.metadata.name == name and claim.status.allocation.devices.results[0].pool == "good-0"
    assert conditions(claim) == [("gpu-0", "attached", "True", "Attached")]


def test_the_attachment_is_written_by_the_drivers_service_account() -> None:
    """As ``kube-system/dra-attach-controller``, made when it first writes (not at start: a cluster
    without attaching drivers has no such account, and its bootstrap writes stay as they were)."""
    from kbatch.api.core_v1 import ServiceAccount

    def accounts() -> list[str]:
        return [a.metadata.name or "" for a in cp.client.list(ServiceAccount, "kube-system").items]

    cp = cluster(attaching(delay=5, status=False))
    assert "dra-attach-controller" not in accounts()
    seen: set[tuple[str, str]] = set()

    def hook(req: AdmissionRequest) -> None:
        if isinstance(req.obj, ResourceClaim) and req.subresource == "status" and req.obj.status \
                and req.obj.status.devices:
            seen.add((req.operation, req.user.name))

    cp.server.admission.add_validating(None, hook)
    cp.client.create(gpu_pod("p"))
    cp.advance(12)
    assert seen == {("UPDATE", ATTACH_USER)}
    assert "dra-attach-controller" in accounts()


def test_devices_without_binding_conditions_bind_at_once() -> None:
    cp = cluster(NodeTemplate(devices=DeviceTemplate(count=2)))
    cp.client.create(gpu_pod("p"))
    cp.advance(2)
    assert cp.client.get(Pod, "p", "default").status.phase == "Running"
    assert events(cp, "BindingConditionsPending") == []


def test_merging_keeps_the_other_writers_conditions() -> None:
    """The kubelet plugin's part (Ready, data) and the attachment's (its condition types) of one entry:
    each writer replaces only its own; a condition whose status stays keeps its transition time; an
    entry with nothing left but its key goes."""
    ours = {("gpu.example.com", "node-0")}
    key = ("gpu.example.com", "node-0", "gpu-0", "")
    ident = {"driver": "gpu.example.com", "pool": "node-0", "device": "gpu-0"}
    attached = {"type": "attached", "status": "True", "reason": "Attached", "message": "",
                "lastTransitionTime": "2026-01-01T00:00:10Z"}
    ready = {"type": "Ready", "status": "True", "reason": "DevicePrepared", "message": "",
             "lastTransitionTime": "2026-01-01T00:00:20Z"}
    kubelet = Owner(frozenset({"Ready"}), frozenset({"data"}))
    attach = Owner(frozenset({"attached", "attach-failed"}))
    current = [{**ident, "conditions": [attached]}]
    prepared = merged(current, {key: {**ident, "conditions": [ready], "data": {"a": 1}}}, ours, kubelet)
    assert prepared == [{**ident, "conditions": [attached, ready], "data": {"a": 1}}]
    later = {**ready, "lastTransitionTime": "2026-01-01T00:05:00Z"}
    assert merged(prepared, {key: {**ident, "conditions": [later], "data": {"a": 1}}}, ours, kubelet) is None
    assert merged(prepared, {key: {**ident, "conditions": [attached]}}, ours, attach) is None
    unprepared = merged(prepared, {}, ours, kubelet)
    assert unprepared == [{**ident, "conditions": [attached]}]
    assert merged(unprepared, {}, ours, attach) == []


def claim(stamp: datetime | None, *results: dict[str, Any], devices: list[dict[str, Any]] | None = None,
          uid: str = "u1") -> ResourceClaim:
    """A claim allocated ``results`` at ``stamp`` (None: no ``allocationTimestamp``)."""
    allocation: dict[str, Any] = {"devices": {"results": list(results)}}
    if stamp is not None:
        allocation["allocationTimestamp"] = stamp.isoformat().replace("+00:00", "Z")
    status: dict[str, Any] = {"allocation": allocation}
    if devices:
        status["devices"] = devices
    return ResourceClaim.model_validate({"metadata": {"name": "c", "namespace": "default", "uid": uid},
                                         "spec": {"devices": {}}, "status": status})


def result(pool: str, device: str, conditions: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"request": "r", "driver": "d.example.com", "pool": pool, "device": device}
    if conditions:
        out |= {"bindingConditions": conditions, "bindingFailureConditions": ["f"]}
    return out


def test_the_attachment_decision() -> None:
    """:func:`attach_entries` rows: nothing for an unallocated claim, a device without binding
    conditions or of a pool that does not attach; before the delay only when it is due; after it the
    conditions (or the first failure condition), stamped when the delay ended."""
    pools = {("d.example.com", "n"): AttachPool("n", 10.0, Failures(), frozenset({"a", "b", "f"})),
             ("d.example.com", "bad"): AttachPool("bad", 10.0, Failures(every=True), frozenset({"a", "f"}))}

    unallocated = ResourceClaim.model_validate({"metadata": {"name": "c", "namespace": "default"},
                                                "spec": {"devices": {}}})
    assert attach_entries(unallocated, pools, t0).entries == {}
    c = claim(t0, result("n", "g0", ["a", "b"]), result("n", "g1", None), result("other", "g2", ["a"]))
    early = attach_entries(c, pools, t0 + timedelta(seconds=4))
    assert early.entries == {} and early.next_due == t0 + timedelta(seconds=10)
    done = attach_entries(c, pools, t0 + timedelta(seconds=30))
    assert done.next_due is None and list(done.entries) == [("d.example.com", "n", "g0", "")]
    [entry] = done.entries.values()
    assert [(x["type"], x["status"], x["reason"], x["lastTransitionTime"]) for x in entry["conditions"]] == [
        ("a", "True", "Attached", "2026-01-01T00:00:10Z"), ("b", "True", "Attached", "2026-01-01T00:00:10Z")]
    failed = attach_entries(claim(t0, result("bad", "g0", ["a"])), pools, t0 + timedelta(seconds=10))
    [entry] = failed.entries.values()
    assert [(x["type"], x["reason"]) for x in entry["conditions"]] == [("f", "AttachFailed")]



def _outcomes(decision: Any) -> dict[str, str]:
    return {key[2]: entry["conditions"][0]["reason"] for key, entry in decision.entries.items()}


def test_failures_are_per_device_and_per_attempt() -> None:
    """Which attachments fail: the named devices every time, the others per attempt with the rate's
    probability, the draw named by the attempt (claim uid, start, device): the same attempt draws the
    same, another allocation of the same device (a later ``allocationTimestamp``) draws anew."""
    pool = AttachPool("n", 5.0, Failures(devices=frozenset({"g1"}), rate=0.5), frozenset({"a", "f"}))
    pools = {("d.example.com", "n"): pool}
    labels: list[str] = []

    def draw(label: str) -> float:
        labels.append(label)
        return 0.25 if label.startswith("u1@2026-01-01T00:00:00Z/") else 0.75

    first = claim(t0, result("n", "g0", ["a"]), result("n", "g1", ["a"]))
    assert _outcomes(attach_entries(first, pools, t0 + timedelta(seconds=5), draw)) == {
        "g0": "AttachFailed", "g1": "AttachFailed"}
    assert labels == ["u1@2026-01-01T00:00:00Z/d.example.com/n/g0/"]  # g1 fails without a draw
    again = claim(t0 + timedelta(seconds=30), result("n", "g0", ["a"]), result("n", "g1", ["a"]))
    assert _outcomes(attach_entries(again, pools, t0 + timedelta(seconds=35), draw)) == {
        "g0": "Attached", "g1": "AttachFailed"}
    assert not Failures().fail("g0", lambda _: 0.0, "x")  # no rate: never drawn to fail
    assert Failures(rate=1.0).fail("g0", lambda _: 0.999, "x")


def test_an_unstamped_allocation_records_its_start_in_the_claim() -> None:
    """An allocation without ``allocationTimestamp``: the binding conditions ``False`` (reason
    ``Attaching``) since the attempt started, read back from the claim on the next decision (so a
    restarted controller keeps the start), then the outcome ``delay`` after that start."""
    pools = {("d.example.com", "n"): AttachPool("n", 10.0, Failures(), frozenset({"a", "f"}))}
    unstamped = claim(None, result("n", "g0", ["a"]))
    started = attach_entries(unstamped, pools, t0 + timedelta(seconds=5))
    [entry] = started.entries.values()
    assert [(c["type"], c["status"], c["reason"], c["lastTransitionTime"]) for c in entry["conditions"]] == [
        ("a", "False", "Attaching", "2026-01-01T00:00:05Z")]
    assert started.next_due == t0 + timedelta(seconds=15)
    recorded = claim(None, result("n", "g0", ["a"]), devices=[entry])
    later = attach_entries(recorded, pools, t0 + timedelta(seconds=12))  # e.g. after a restart
    assert later.next_due == t0 + timedelta(seconds=15) and later.entries == started.entries
    done = attach_entries(recorded, pools, t0 + timedelta(seconds=15))
    [outcome] = done.entries.values()
    assert [(c["status"], c["reason"], c["lastTransitionTime"]) for c in outcome["conditions"]] == [
        ("True", "Attached", "2026-01-01T00:00:15Z")]
    kept = attach_entries(claim(None, result("n", "g0", ["a"]), devices=[outcome]), pools,
                          t0 + timedelta(seconds=40))
    assert kept.entries == done.entries and kept.next_due is None  # the outcome's start: 15 s - 10 s


def two_gpu_pod(name: str) -> Pod:
    """A pod whose claim (from the template ``two-gpu``) asks for two devices."""
    body = gpu_pod(name).to_dict()
    body["spec"]["resourceClaims"][0]["resourceClaimTemplateName"] = "two-gpu"
    return Pod.model_validate(body)


def test_one_failing_device_fails_the_attempt_while_the_other_attaches() -> None:
    """``attach_fail_devices``: the outcome is per device. A claim holding gpu-0 (failing) and gpu-1
    reports gpu-1 attached and gpu-0 failed, and PreBind fails on gpu-0's failure condition."""
    cp = cluster(attaching(delay=5, status=False, attach_fail_devices=("gpu-0",)))
    [slice_] = cp.client.list(ResourceSlice).items
    assert slice_.metadata.annotations["dra.kbatch.io/attach-fail-devices"] == "gpu-0"
    cp.client.create(ResourceClaimTemplate.model_validate({
        "metadata": {"name": "two-gpu", "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu", "count": 2}}]}}}}))
    cp.client.create(two_gpu_pod("p"))
    cp.advance(6)
    assert conditions(only_claim(cp)) == [("gpu-0", "attach-failed", "True", "AttachFailed"),
                                          ("gpu-1", "attached", "True", "Attached")]
    cp.advance(5)
    assert [m.split(":")[0] for m in events(cp, "FailedScheduling")] == [
        f"claim {only_claim(cp).metadata.name} binding failed"]
    assert cp.client.get(Pod, "p", "default").spec.node_name is None


def test_a_random_failure_is_drawn_per_attempt_from_the_seed() -> None:
    """``attach_fail_rate``: each allocation of a device is an attempt with its own draw, from the
    control plane's seed; the same seed replays the same attempts, and at rate 0.5 both outcomes come
    up over the attempts of one pod."""
    def run() -> list[tuple[str, str]]:
        cp = cluster(attaching(delay=3, status=False, attach_fail_rate=0.5))
        cp.client.create(gpu_pod("p"))
        seen: dict[tuple[str, str], str] = {}
        for _ in range(120):
            cp.advance(1)
            claim = only_claim(cp)
            allocation = claim.status.allocation if claim.status else None
            for device, kind, _status, _reason in conditions(claim):
                if allocation is not None:
                    seen.setdefault((str(allocation.allocation_timestamp), device), kind)
            if cp.client.get(Pod, "p", "default").status.phase == "Running":
                break
        return sorted(seen.items())

    first = run()
    assert first == run()
    assert {kind for _, kind in first} == {"attached", "attach-failed"}, first


def test_an_unstamped_allocation_keeps_its_start_over_a_restart() -> None:
    """An allocation written without ``allocationTimestamp`` (not by kbatch's scheduler, which stamps
    it in PreBind as upstream's ``bindClaim`` does) is attached ``delay`` after the driver first saw
    it, and a restarted control plane (a fresh controller over the same store, as a CLI option change
    does) keeps that start: it is recorded in the claim (``Attaching``), not in the controller."""
    cp = cluster(attaching(delay=10, status=False))
    cp.client.create(ResourceClaim.model_validate({
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}))
    claim = cp.client.get(ResourceClaim, "c", "default").to_dict()
    claim["status"] = {"allocation": {"devices": {"results": [{
        "request": "gpu", "driver": "gpu.example.com", "pool": "node-0", "device": "gpu-0",
        "bindingConditions": ["attached"], "bindingFailureConditions": ["attach-failed"]}]}}}
    cp.client.update_status(ResourceClaim.model_validate(claim))
    start = cp.now()
    cp.advance(4)
    assert conditions(cp.client.get(ResourceClaim, "c", "default")) == [
        ("gpu-0", "attached", "False", "Attaching")]
    again = ControlPlane(seed=0, store=cp.store, start=cp.now())
    again.advance(5)
    assert conditions(again.client.get(ResourceClaim, "c", "default"))[0][2] == "False"
    again.advance(2)
    [entry] = again.client.get(ResourceClaim, "c", "default").status.devices
    [attached] = entry.conditions
    assert (attached.status, attached.reason) == ("True", "Attached")
    assert attached.last_transition_time == start + timedelta(seconds=10)


def test_a_restart_on_an_earlier_clock_keeps_the_node_owned_slices() -> None:
    """The last session saw the garbage collector delete a node's ResourceSlice after a restart whose
    clock started before the slice's creation; over the same store, a control plane starting a year
    earlier (a virtual start, or ``kbatch serve --clock real`` over a state made with a later
    ``--clock-start``) keeps the Node and its slice, whose owner reference names the Node's uid."""
    cp = ControlPlane(seed=0, start=datetime(2030, 1, 1, tzinfo=UTC))
    create_nodes(cp, 1, attaching())
    cp.run_until_idle()
    [before] = cp.client.list(ResourceSlice).items
    again = ControlPlane(seed=1, store=cp.store, start=datetime(2029, 1, 1, tzinfo=UTC))
    again.advance(120)
    [after] = again.client.list(ResourceSlice).items
    assert after.metadata.uid == before.metadata.uid
    [owner] = after.metadata.owner_references
    assert owner.uid == again.client.get(Node, "node-0").metadata.uid
