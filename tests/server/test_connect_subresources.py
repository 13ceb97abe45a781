"""``pods/exec``, ``attach``, ``portforward`` and ``proxy``: listed in discovery as kube-apiserver
lists them, checked as it checks them, then refused (kbatch runs no containers; streaming.py)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.server.facade import ControlPlaneBackend, new_control_plane
from tests.server.conftest import AppClient

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "100"]}]}}


@pytest.fixture
def running(make_api: Any) -> AppClient:
    # scheduler and kubelet too, and node IPAM (off by default) so the running pod has an address
    api: AppClient = make_api(ControlPlaneBackend(new_control_plane(controllers="*,node-ipam-controller")))
    api.post("/apis/kbatch.dev/v1alpha1/actions/nodes-add", json={"count": 1})
    assert api.post("/api/v1/namespaces/default/pods", json=POD).status_code == 201
    api.post("/apis/kbatch.dev/v1alpha1/clock", json={"advance": "5s"})
    return api


def test_discovery_lists_the_connect_subresources_as_kube_apiserver(api: AppClient) -> None:
    # kubernetes api/discovery/api__v1.json: kind of the connect options, verbs from ConnectMethods
    # (pkg/registry/core/pod/rest/subresources.go; GET→get, POST→create, PUT→update, …)
    listed = {r["name"]: r for r in api.get("/api/v1").json()["resources"]}
    assert {name: (listed[name]["kind"], listed[name]["verbs"]) for name in
            ("pods/attach", "pods/exec", "pods/portforward", "pods/proxy")} == {
        "pods/attach": ("PodAttachOptions", ["create", "get"]),
        "pods/exec": ("PodExecOptions", ["create", "get"]),
        "pods/portforward": ("PodPortForwardOptions", ["create", "get"]),
        "pods/proxy": ("PodProxyOptions", ["create", "delete", "get", "patch", "update"])}
    names = [r["name"] for r in api.get("/api/v1").json()["resources"] if r["name"].startswith("pods")]
    assert names == sorted(names)


def test_aggregated_discovery_folds_them_into_pods(api: AppClient) -> None:
    accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    doc = api.get("/api", headers={"accept": accept}).json()
    pods = next(r for r in doc["items"][0]["versions"][0]["resources"] if r["resource"] == "pods")
    subs = {s["subresource"]: s["verbs"] for s in pods["subresources"]}
    assert subs["exec"] == ["create", "get"]
    assert subs["proxy"] == ["create", "delete", "get", "patch", "update"]


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
def test_proxy_is_refused_with_a_status_after_upstreams_checks(running: AppClient, method: str) -> None:
    # the running pod has its address from the simulated kubelet (10.244.0.2): ResourceLocation's
    # checks pass, and kbatch refuses what it cannot do
    pod = running.get("/api/v1/namespaces/default/pods/p").json()
    assert pod["status"]["podIPs"] == [{"ip": "10.244.0.2"}]
    out = running.request(method, "/api/v1/namespaces/default/pods/p/proxy/metrics")
    assert out.status_code == 400, out.text
    body: dict[str, Any] = out.json()
    assert body["kind"] == "Status" and body["reason"] == "BadRequest"
    assert body["message"].startswith("kbatch serve runs no containers: proxying to pod p")


def test_proxy_checks_as_resource_location(running: AppClient) -> None:
    # pkg/registry/core/pod/strategy.go ResourceLocation: SplitSchemeNamePort, getPod, the pod's IP
    base = "/api/v1/namespaces/default/pods"
    assert running.get(f"{base}/https:p:8443/proxy").json()["message"].startswith("kbatch serve runs no")
    assert running.post(base, json={**POD, "metadata": {"name": "unbound"},
                                    "spec": {**POD["spec"], "nodeName": "gone"}}).status_code == 201
    assert running.get(f"{base}/unbound/proxy").json()["message"] == "address not allowed"  # no address
    assert running.get(f"{base}/ftp:p:21/proxy").json()["message"] == 'invalid pod request "ftp:p:21"'
    assert running.get(f"{base}/a:b:c:d/proxy").json()["message"] == 'invalid pod request "a:b:c:d"'
    missing = running.get(f"{base}/nope:80/proxy")
    assert (missing.status_code, missing.json()["message"]) == (404, 'pods "nope" not found')
    for ip in ("127.0.0.1", "169.254.1.1", "fe80::1", "not-an-ip"):
        running.patch(f"{base}/p/status", json={"status": {"podIPs": [{"ip": ip}]}},
                      headers={"content-type": "application/merge-patch+json"})
        out = running.get(f"{base}/p/proxy")
        assert (out.status_code, out.json()["message"]) == (400, "address not allowed"), ip


UPGRADE = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1"}


@pytest.mark.parametrize(("sub", "what"), [("exec", "exec into"), ("attach", "attach to"),
                                           ("portforward", "port forwarding to")])
def test_an_upgrade_is_answered_as_a_kubelet_that_cannot_be_dialed(running: AppClient, sub: str,
                                                                   what: str) -> None:
    # apimachinery pkg/util/proxy/upgradeaware.go: dial's "error dialing backend: …", written by the
    # connect responder as an error that is no Status (ErrorToAPIStatus: 500, no reason)
    node = running.get("/api/v1/namespaces/default/pods/p").json()["spec"]["nodeName"]
    for headers in (UPGRADE, {"connection": "keep-alive, upgrade", "upgrade": "websocket"}):
        out = running.post(f"/api/v1/namespaces/default/pods/p/{sub}?command=ls", headers=headers)
        assert out.status_code == 500, out.text
        assert out.json() == {
            "apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure", "code": 500,
            "message": f"error dialing backend: the kubelet of node {node} is simulated by kbatch, which "
                       f"runs no containers: {what} pod p is not supported (see docs/cli.md)"}


def test_a_connect_request_that_asks_no_upgrade_is_refused_first(running: AppClient) -> None:
    # UpgradeAwareHandler.ServeHTTP with UpgradeRequired: tryUpgrade declines (IsUpgradeRequest), 400
    for sub in ("exec", "attach", "portforward"):
        out = running.post(f"/api/v1/namespaces/default/pods/p/{sub}")
        assert (out.status_code, out.json()["reason"], out.json()["message"]) == (
            400, "BadRequest", "Upgrade request required")
    wrong = running.post("/api/v1/namespaces/default/pods/p/exec?container=nope", headers=UPGRADE)
    assert (wrong.status_code, wrong.json()["message"]) == (400, "container nope is not valid for pod p")
