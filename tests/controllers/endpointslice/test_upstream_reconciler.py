"""k8s.io/endpointslice ``reconciler_test.go`` rows, translated to the pure plan
(:func:`kbatch.controllers.endpointslice.plan_slices`): TestReconcileEmpty, TestReconcile1Pod
(conditions, zone, node, hostname, address types), TestReconcile1EndpointSlice (the placeholder is
kept), TestReconcile1EndpointSlicePublishNotReadyAddresses, TestReconcileManyPods (100 per slice),
TestReconcileEndpointSlicesReplaceDeprecated, TestReconcileEndpointSlicesRecycling (creates become
updates of slices that would go), TestReconcilerPodMissingNode, TestReconcileTerminatingEndpoints,
and the labels rows of TestReconcileEndpointSlicesMetrics/TestSetEndpointSliceLabels."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.discovery_v1 import CONTROLLER_NAME, EndpointSlice
from kbatch.controllers.endpointslice import plan_slices
from kbatch.controllers.endpointslice.reconciler import new_slice, slice_labels

from .objects import make_pod, make_service, nodes_all, nodes_none


def _plan(service: Any, pods: list[Any], existing: list[EndpointSlice] = (), nodes: Any = nodes_all,
          most: int = 100) -> Any:
    return plan_slices(service, pods, nodes, list(existing), CONTROLLER_NAME, most)


def _stored(eps: EndpointSlice, name: str) -> EndpointSlice:
    """A planned slice as the API server would have stored it."""
    data = eps.model_dump(by_alias=True, exclude_none=True)
    data["metadata"] |= {"name": name, "resourceVersion": "1", "uid": f"uid-{name}"}
    return EndpointSlice.model_validate(data)


def _wire(eps: EndpointSlice) -> dict[str, Any]:
    return eps.model_dump(by_alias=True, exclude_none=True)


def test_empty_service_gets_one_placeholder() -> None:
    plan = _plan(make_service(), [])
    assert (len(plan.create), plan.update, plan.delete) == (1, [], [])
    placeholder = _wire(plan.create[0])
    assert placeholder["addressType"] == "IPv4"
    assert "endpoints" not in placeholder and "ports" not in placeholder  # null on the wire
    assert placeholder["metadata"]["generateName"] == "foo-"
    assert placeholder["metadata"]["labels"] == {"kubernetes.io/service-name": "foo",
                                                 "endpointslice.kubernetes.io/managed-by": CONTROLLER_NAME}
    owner = {"apiVersion": "v1", "kind": "Service", "name": "foo", "uid": "uid-foo", "controller": True,
             "blockOwnerDeletion": True}
    assert placeholder["metadata"]["ownerReferences"] == [owner]


def test_one_pod_one_endpoint() -> None:
    plan = _plan(make_service(), [make_pod(1)])
    [eps] = plan.create
    assert _wire(eps)["ports"] == [{"name": "http", "protocol": "TCP", "port": 80}]
    assert _wire(eps)["endpoints"] == [{
        "addresses": ["1.2.0.6"], "conditions": {"ready": True, "serving": True, "terminating": False},
        "targetRef": {"kind": "Pod", "namespace": "default", "name": "pod1", "uid": "uid-pod1"},
        "nodeName": "node-1", "zone": "zone-node-1"}]


@pytest.mark.parametrize(("hostname", "subdomain", "want"), [
    ("pod-host", "foo", "pod-host"),   # the Service's name: the hostname is published
    ("pod-host", "other", None),       # another subdomain: not
    (None, "foo", None),               # no hostname: not
])
def test_hostname_only_for_the_services_subdomain(hostname: str | None, subdomain: str,
                                                  want: str | None) -> None:
    plan = _plan(make_service(headless=True), [make_pod(1, hostname=hostname, subdomain=subdomain)])
    [eps] = plan.create
    assert eps.endpoints[0].hostname == want


def test_headless_service_without_families_gets_both_address_types() -> None:
    service = make_service(headless=True)
    service.spec.ip_families = None
    plan = _plan(service, [make_pod(1)])
    assert sorted((e.address_type, len(e.endpoints or ())) for e in plan.create) == [("IPv4", 1), ("IPv6", 0)]


def test_an_existing_placeholder_is_kept() -> None:
    service = make_service()
    placeholder = _stored(new_slice(service, [], "IPv4", CONTROLLER_NAME), "foo-abcde")
    plan = _plan(service, [], [placeholder])
    assert (plan.create, plan.update, plan.delete) == ([], [], [])


def test_publish_not_ready_addresses_makes_unready_pods_ready() -> None:
    plan = _plan(make_service(publish_not_ready=True), [make_pod(1, ready=False)])
    conditions = plan.create[0].endpoints[0].conditions
    assert (conditions.ready, conditions.serving, conditions.terminating) == (True, False, False)


def test_many_pods_fill_slices_of_one_hundred() -> None:
    plan = _plan(make_service(), [make_pod(i) for i in range(250)])
    assert sorted(len(e.endpoints) for e in plan.create) == [50, 100, 100]


def test_a_deprecated_address_type_is_replaced() -> None:
    service = make_service()
    old = _stored(new_slice(service, [], "IPv4", CONTROLLER_NAME), "foo-old")
    old.address_type = "IP"
    plan = _plan(service, [make_pod(1)], [old])
    assert [e.metadata.name for e in plan.delete] == ["foo-old"]
    assert [e.address_type for e in plan.create] == ["IPv4"]


def test_creates_recycle_slices_that_would_be_deleted() -> None:
    service = make_service()
    first = _plan(service, [make_pod(i) for i in range(10)])
    stored = [_stored(e, f"foo-{i}") for i, e in enumerate(first.create)]
    # every pod replaced by another: the old slice is emptied, the new endpoints go into it
    plan = _plan(service, [make_pod(i) for i in range(100, 110)], stored)
    assert (plan.create, plan.delete) == ([], [])
    [updated] = plan.update
    assert updated.metadata.name == "foo-0"
    assert [e.target_ref.name for e in updated.endpoints] == [f"pod{i}" for i in range(100, 110)]


def test_a_pod_on_a_missing_node_is_left_out_and_retried() -> None:
    plan = _plan(make_service(), [make_pod(1)], nodes=nodes_none)
    assert plan.missing_node and not plan.create[0].endpoints
    published = _plan(make_service(publish_not_ready=True), [make_pod(1)], nodes=nodes_none)
    assert not published.missing_node and len(published.create[0].endpoints) == 1
    assert published.create[0].endpoints[0].zone is None


@pytest.mark.parametrize(("ready", "want"), [(True, (False, True, True)), (False, (False, False, True))])
def test_terminating_endpoints(ready: bool, want: tuple[bool, bool, bool]) -> None:
    plan = _plan(make_service(), [make_pod(1, ready=ready, terminating=True)])
    conditions = plan.create[0].endpoints[0].conditions
    assert (conditions.ready, conditions.serving, conditions.terminating) == want


@pytest.mark.parametrize("pod", [
    {"phase": "Succeeded"}, {"phase": "Failed"}, {"ip": None},
], ids=["succeeded", "failed", "no-address"])
def test_pods_left_out(pod: dict[str, Any]) -> None:
    plan = _plan(make_service(), [make_pod(1, **pod)])
    assert not plan.create[0].endpoints


def test_a_named_target_port_is_looked_up_with_its_protocol() -> None:
    ports = [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": "web"}]
    pods = [make_pod(1, container_ports=[{"name": "web", "containerPort": 8080, "protocol": "TCP"}]),
            make_pod(2, container_ports=[{"name": "web", "containerPort": 8080, "protocol": "UDP"}])]
    plan = _plan(make_service(ports=ports), pods)
    by_ports = {tuple((p.name, p.port) for p in e.ports or ()): [x.target_ref.name for x in e.endpoints or ()]
                for e in plan.create}
    assert by_ports == {(("http", 8080),): ["pod1"], (): ["pod2"]}


def test_labels_follow_the_service_but_the_reserved_ones() -> None:
    service = make_service(labels={"team": "a", "kubernetes.io/service-name": "evil"}, headless=True)
    labels, changed = slice_labels({"old": "x"}, service, CONTROLLER_NAME)
    assert changed
    assert labels == {"team": "a", "service.kubernetes.io/headless": "", "kubernetes.io/service-name": "foo",
                      "endpointslice.kubernetes.io/managed-by": CONTROLLER_NAME}


def test_a_slice_whose_labels_lag_is_updated() -> None:
    service = make_service()
    [eps] = _plan(service, [make_pod(1)]).create
    stored = _stored(eps, "foo-1")
    relabelled = make_service(labels={"team": "b"})
    plan = _plan(relabelled, [make_pod(1)], [stored])
    assert [e.metadata.labels["team"] for e in plan.update] == ["b"]


def test_slices_not_owned_by_the_service_go() -> None:
    service = make_service()
    [eps] = _plan(service, [make_pod(1)]).create
    stored = _stored(eps, "foo-1")
    stored.metadata.owner_references[0].uid = "uid-an-older-foo"
    plan = _plan(service, [make_pod(1)], [stored])
    assert [e.metadata.name for e in plan.delete] == ["foo-1"] and len(plan.create) == 1
