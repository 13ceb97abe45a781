"""``ValidatePodCreate``'s create-only rules and ``ValidatePodStatusUpdate``, through kbatch's API
server.

Source: kubernetes ``pkg/apis/core/validation/validation.go`` (stored copy 000f2605, 1.35+):
``ValidatePodCreate`` (ephemeral containers only through their subresource, no ``nodeName`` while
scheduling gates remain, the seccomp/AppArmor annotation-field agreement checked on create only),
``ValidatePodStatusUpdate`` (``ValidatePodSpecificAnnotationUpdates``, ``validatePodConditions``,
``nominatedNodeName`` checked when changed, ``qosClass`` immutable,
``ValidateContainerStateTransition`` / ``ValidateInitContainerStateTransition`` with the error at the
old status's index, ``validatePodResourceClaimStatuses``). Each case is one branch; the
TestValidatePodStatusUpdate table itself (validation_test.go, over 1 MB) was not read in the time
this change had.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from kbatch.apiserver import APIServer
from tests.api.upstream_pod import FORBIDDEN, INVALID, ctr, server


def _pod(spec: dict[str, Any], annotations: dict[str, str] | None = None) -> Pod:
    meta: dict[str, Any] = {"name": "p", "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return Pod.model_validate({"metadata": meta, "spec": {"containers": [ctr()], **spec}})


def _causes(err: pytest.ExceptionInfo[Invalid]) -> list[tuple[str, str]]:
    return [(c["field"], c["reason"]) for c in err.value.status.to_dict()["details"]["causes"]]


def _put(api: APIServer, wire: dict[str, Any]) -> Pod:
    """Store ``wire`` behind the server's back (as an older server left it); the stored Pod."""
    wire = copy.deepcopy(wire)
    wire["metadata"].pop("resourceVersion", None)
    api.store.put(api.kind(Pod).keys.key("default", "p"), Pod.model_validate(wire).to_json())
    return api.get(Pod, "p", "default")


# --- ValidatePodCreate ---------------------------------------------------------------------------


def test_ephemeral_containers_cannot_be_set_on_create() -> None:
    debug = {"name": "dbg", "image": "busybox", "imagePullPolicy": "Always",
             "terminationMessagePolicy": "File"}
    with pytest.raises(Invalid) as err:
        server().create(_pod({"ephemeralContainers": [debug]}))
    assert _causes(err) == [("spec.ephemeralContainers", FORBIDDEN)]
    assert "cannot be set on create" in str(err.value)


def test_node_name_cannot_be_set_while_scheduling_gates_remain() -> None:
    with pytest.raises(Invalid) as err:
        server().create(_pod({"nodeName": "node-1", "schedulingGates": [{"name": "gate"}]}))
    assert _causes(err) == [("spec.nodeName", FORBIDDEN)]
    assert "cannot be set until all schedulingGates have been cleared" in str(err.value)


def test_annotation_and_field_disagreeing_is_a_create_rule_only() -> None:
    """validateSeccompAnnotationsAndFields is called by ValidatePodCreate, not ValidatePodUpdate: a
    stored pod whose annotation and field disagree can still be relabelled."""
    bad = _pod({"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}},
               {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"})
    with pytest.raises(Invalid) as err:
        server().create(bad)
    assert _causes(err) == [("spec.securityContext.seccompProfile.type", FORBIDDEN)]
    api = server()
    stored = api.create(_pod({"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}}))
    wire = stored.to_dict()
    wire["metadata"]["annotations"] = {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}
    current = _put(api, wire).to_dict()
    current["metadata"]["labels"] = {"touched": "yes"}
    assert api.update(Pod.model_validate(current)).metadata.labels == {"touched": "yes"}


# --- ValidatePodStatusUpdate ---------------------------------------------------------------------


def _status_write(api: APIServer, change: Any) -> Pod:
    current = api.get(Pod, "p", "default").to_dict()
    change(current)
    return api.update_status(Pod.model_validate(current))


def _refused(api: APIServer, change: Any) -> list[tuple[str, str]]:
    with pytest.raises(Invalid) as err:
        _status_write(api, change)
    return _causes(err)


def test_a_status_write_may_not_add_an_apparmor_annotation() -> None:
    api = server()
    api.create(_pod({}))

    def add(wire: dict[str, Any]) -> None:
        wire["metadata"]["annotations"] = {"container.apparmor.security.beta.kubernetes.io/abc": "unconfined"}

    assert _refused(api, add) == [
        ("metadata.annotations[container.apparmor.security.beta.kubernetes.io/abc]", FORBIDDEN)]


def test_a_custom_condition_type_is_a_qualified_name() -> None:
    api = server()
    api.create(_pod({}))

    def bad(wire: dict[str, Any]) -> None:
        wire["status"]["conditions"] = [{"type": "not a/valid/name", "status": "True"}]

    assert _refused(api, bad) == [("metadata.conditions[0].Type", INVALID)]

    def good(wire: dict[str, Any]) -> None:
        wire["status"]["conditions"] = [{"type": "example.com/Custom", "status": "True"},
                                        {"type": "Ready", "status": "False"}]

    assert _status_write(api, good).status.conditions


def test_nominated_node_name_is_checked_only_when_changed() -> None:
    """A stored invalid nominatedNodeName does not block other status writes; writing a new invalid
    one is refused."""
    api = server()
    wire = api.create(_pod({})).to_dict()
    wire["status"]["nominatedNodeName"] = "Not_A_Node"
    _put(api, wire)

    def phase(w: dict[str, Any]) -> None:
        w["status"]["message"] = "still pending"

    assert _status_write(api, phase).status.nominated_node_name == "Not_A_Node"

    def renominate(w: dict[str, Any]) -> None:
        w["status"]["nominatedNodeName"] = "Also_Bad"

    assert _refused(api, renominate) == [("status.nominatedNodeName", INVALID)]


def test_the_qos_class_is_immutable() -> None:
    api = server()
    api.create(_pod({}))

    def change(w: dict[str, Any]) -> None:
        w["status"]["qosClass"] = "Guaranteed"

    assert _refused(api, change) == [("status.qosClass", INVALID)]


def _terminated(name: str, code: int = 0) -> dict[str, Any]:
    return {"name": name, "image": "image", "imageID": "", "ready": False, "restartCount": 0,
            "state": {"terminated": {"exitCode": code}}}


def _running(name: str) -> dict[str, Any]:
    return {"name": name, "image": "image", "imageID": "", "ready": True, "restartCount": 0,
            "state": {"running": {}}}


def _with_statuses(api: APIServer, field: str, statuses: list[dict[str, Any]]) -> None:
    def put(w: dict[str, Any]) -> None:
        w["status"][field] = statuses
    _status_write(api, put)


def test_a_terminated_container_is_reported_at_its_old_index() -> None:
    """ValidateContainerStateTransition walks the OLD statuses: the path has the old index."""
    api = server()
    api.create(_pod({"restartPolicy": "Never", "containers": [ctr("a"), ctr("b")]}))
    _with_statuses(api, "containerStatuses", [_running("a"), _terminated("b")])

    def revive(w: dict[str, Any]) -> None:
        w["status"]["containerStatuses"] = [_running("b"), _running("a")]

    assert _refused(api, revive) == [("status.containerStatuses[1].state", FORBIDDEN)]


def test_a_pod_that_always_restarts_may_restart_its_init_containers() -> None:
    """ValidateInitContainerStateTransition returns at once for restartPolicy Always."""
    api = server()
    api.create(_pod({"restartPolicy": "Always", "initContainers": [ctr("init")]}))
    _with_statuses(api, "initContainerStatuses", [_terminated("init")])
    _with_statuses(api, "initContainerStatuses", [_running("init")])
    assert api.get(Pod, "p", "default").status.init_container_statuses[0].state.running is not None


def test_a_sidecar_may_restart_in_a_pod_that_never_restarts() -> None:
    """A restartable init container (restartPolicy Always) is skipped."""
    api = server()
    sidecar = ctr("side", restartPolicy="Always")
    api.create(_pod({"restartPolicy": "Never", "initContainers": [sidecar, ctr("init")]}))
    _with_statuses(api, "initContainerStatuses", [_terminated("side"), _terminated("init")])

    def revive(w: dict[str, Any]) -> None:
        w["status"]["initContainerStatuses"] = [_running("side"), _running("init")]

    assert _refused(api, revive) == [("status.initContainerStatuses[1].state", FORBIDDEN)]


def test_a_resource_claim_status_names_a_claim_of_the_spec() -> None:
    api = server()
    api.create(_pod({"resourceClaims": [{"name": "gpu", "resourceClaimName": "my-gpu"}]}))

    def bad(w: dict[str, Any]) -> None:
        w["status"]["resourceClaimStatuses"] = [
            {"name": "tpu"}, {"name": "gpu", "resourceClaimName": "Bad_Name"}, {"name": "gpu"}]

    assert _refused(api, bad) == [
        ("status.resourceClaimStatuses[0].name", INVALID),
        ("status.resourceClaimStatuses[1].name", INVALID),
        ("status.resourceClaimStatuses[2].name", "FieldValueDuplicate"),
    ]
