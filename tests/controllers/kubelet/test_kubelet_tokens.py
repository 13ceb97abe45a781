"""A pod's service-account token file holds a real token the kubelet asked the API server for
(kbatch.controllers.kubelet.tokens, kbatch.apiserver.token_requests): signed with the issuer's key,
bound to the pod and naming its node and account, requested as the node's user, refreshed by
``token_manager.go``'s rule in virtual time, refused once the pod is gone, the same in two runs,
and asked for only when something reads the file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Forbidden
from kbatch.apiserver.requester import requester, run_as
from kbatch.apiserver.token_requests import ObjectLookup, ServerObjects
from kbatch.authz.sa_claims import TokenInvalid
from kbatch.authz.user import UserInfo
from kbatch.controllers.kubelet import pod_logs
from kbatch.controllers.kubelet.tokens import Issued, requires_refresh
from kbatch.runtime.controlplane import ControlPlane

from .cluster import get_pod, sim_cluster

TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token"
ISSUER = "https://kubernetes.default.svc.cluster.local"


def pod_yaml(name: str, script: str) -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: [sh, -c, {script!r}]
"""


def reading_cluster(seed: int = 0) -> ControlPlane:
    cp = sim_cluster(1, seed=seed)
    cp.apply(pod_yaml("p", f"cat {TOKEN}; sleep 86400"))
    cp.advance(5)
    return cp


def kubelet(cp: ControlPlane) -> Any:
    return cp.manager.get("kubelet").reconciler


def projection(pod: Any) -> Any:
    volume = next(v for v in pod.spec.volumes if v.name.startswith("kube-api-access-"))
    return next(s.service_account_token for s in volume.projected.sources if s.service_account_token)


def authenticate(cp: ControlPlane, token: str) -> Any:
    lookup = ObjectLookup(ServerObjects(cp.server))
    return cp.server.tokens.authenticator.authenticate(token, cp.now().timestamp(), lookup)


def test_the_file_holds_a_token_signed_by_the_issuer_naming_pod_node_and_account() -> None:
    cp = reading_cluster()
    token = pod_logs(cp, "default", "p").strip()
    claims = cp.server.tokens.key.verify(token)
    pod = get_pod(cp, "p")
    node = pod.spec.node_name
    private = claims["kubernetes.io"]
    assert claims["sub"] == "system:serviceaccount:default:default"
    assert claims["iss"] == ISSUER and claims["aud"] == [ISSUER]
    assert private["pod"] == {"name": "p", "uid": pod.metadata.uid}
    assert private["node"]["name"] == node and private["node"]["uid"]
    assert private["serviceaccount"]["name"] == "default"
    # what the kubelet asks for a kube-api-access volume: 3607 s, extended to a year, warn after 3607 s
    assert claims["exp"] - claims["iat"] == 365 * 24 * 3600
    assert private["warnafter"] - claims["iat"] == 3607
    user = authenticate(cp, token)
    assert user.name == "system:serviceaccount:default:default"
    assert dict(user.extra)["authentication.kubernetes.io/pod-name"] == ("p",)


def test_the_kubelet_asks_as_its_node_with_a_pod_bound_request() -> None:
    cp = sim_cluster(1)
    seen: list[tuple[str, dict[str, Any]]] = []
    original = cp.server.create_token

    def recording(namespace: str, name: str, body: dict[str, Any]) -> Any:
        seen.append((requester().name, body))
        return original(namespace, name, body)

    cp.server.create_token = recording  # type: ignore[method-assign]
    cp.apply(pod_yaml("p", f"cat {TOKEN}"))
    cp.advance(5)
    pod = get_pod(cp, "p")
    bound = {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": pod.metadata.uid}
    assert seen == [(f"system:node:{pod.spec.node_name}", {
        "apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
        "spec": {"audiences": [], "expirationSeconds": 3607, "boundObjectRef": bound}})]


def test_the_token_is_refreshed_after_80_percent_of_its_lifetime_in_virtual_time() -> None:
    cp = reading_cluster()
    pod, manager = get_pod(cp, "p"), kubelet(cp).tokens
    first = manager.token(pod, projection(pod))
    assert first == pod_logs(cp, "default", "p").strip()
    iat = cp.server.tokens.key.verify(first)["iat"]
    # 3607 - 3607*20//100 = 2886 s after the issue: due only once past it
    cp.advance((datetime.fromtimestamp(iat + 2886, UTC) - cp.now()).total_seconds())
    assert manager.token(pod, projection(pod)) == first
    cp.advance(1)
    second = manager.token(pod, projection(pod))
    assert second != first
    assert cp.server.tokens.key.verify(second)["iat"] == iat + 2887
    assert authenticate(cp, first).name == authenticate(cp, second).name  # the old one still holds


def test_a_token_bound_to_a_deleted_pod_is_refused_and_forgotten() -> None:
    cp = reading_cluster()
    token = pod_logs(cp, "default", "p").strip()
    assert len(kubelet(cp).tokens) == 1
    cp.client.delete(Pod, "p", "default", grace_period_seconds=0)
    cp.advance(1)
    with pytest.raises(TokenInvalid, match="service account token has been invalidated"):
        authenticate(cp, token)
    assert len(kubelet(cp).tokens) == 0  # DeleteServiceAccountToken


def test_a_pod_whose_file_nobody_reads_asks_for_no_token() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "echo hi > /tmp/x; cat /tmp/x"))
    cp.advance(5)
    assert pod_logs(cp, "default", "p") == "hi\n"
    assert (len(kubelet(cp).tokens), cp.server.tokens.issued) == (0, 0)


def test_a_token_request_writes_nothing() -> None:
    cp = reading_cluster()
    pod = get_pod(cp, "p")
    kubelet(cp).tokens.forget(pod.metadata.uid)
    revision, digest = cp.store.revision, cp.trace.digest()
    kubelet(cp).tokens.token(pod, projection(pod))
    assert (cp.store.revision, cp.trace.digest()) == (revision, digest)


def test_two_runs_give_the_same_tokens() -> None:
    assert pod_logs(reading_cluster(7), "default", "p") == pod_logs(reading_cluster(7), "default", "p")
    assert pod_logs(reading_cluster(7), "default", "p") != pod_logs(reading_cluster(8), "default", "p")


# token_manager_test.go TestRequiresRefresh: (now, exp) after the start, expirationSeconds = exp - start
REFRESH_TABLE = [
    (timedelta(minutes=10), timedelta(minutes=60), False),
    (timedelta(minutes=50), timedelta(minutes=60), True),
    (timedelta(hours=25), timedelta(hours=60), True),
    (timedelta(minutes=70), timedelta(minutes=60), True),
]


@pytest.mark.parametrize(("now", "exp", "want"), REFRESH_TABLE)
def test_requires_refresh_upstream_table(now: timedelta, exp: timedelta, want: bool) -> None:
    start = 1_000_000.0
    issued = Issued("t", start + exp.total_seconds(), int(exp.total_seconds()))
    assert requires_refresh(issued, start + now.total_seconds()) is want


@given(st.integers(600, 1 << 32), st.integers(0, 3 * 24 * 3600))
def test_refresh_is_due_past_80_percent_or_24_hours(seconds: int, elapsed: int) -> None:
    issued = Issued("t", 5_000.0 + seconds, seconds)
    due = elapsed > min(seconds - seconds * 20 // 100, 24 * 3600)
    assert requires_refresh(issued, 5_000.0 + elapsed) is due


def test_node_restriction_holds_an_in_process_token_request_to_the_nodes_own_pods() -> None:
    """The kubelet's TokenRequest goes through the API server's admission as kbatch serve's does
    (NodeRestriction ``admitServiceAccount``): another node may not ask for a token bound to this
    pod, nor for an unbound one; the pod's own node may."""
    cp = reading_cluster()
    pod = get_pod(cp, "p")
    bound = {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": pod.metadata.uid}
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
            "spec": {"audiences": [], "expirationSeconds": 3607, "boundObjectRef": bound}}
    own = UserInfo(f"system:node:{pod.spec.node_name}", groups=("system:nodes", "system:authenticated"))
    other = UserInfo("system:node:elsewhere", groups=("system:nodes", "system:authenticated"))
    assert run_as(own, cp.server.create_token, "default", "default", body)[0]["status"]["token"]
    with pytest.raises(Forbidden, match="node requested token bound to a pod scheduled on a different node"):
        run_as(other, cp.server.create_token, "default", "default", body)
    unbound = {**body, "spec": {"audiences": [], "expirationSeconds": 3607}}
    with pytest.raises(Forbidden, match="node requested token not bound to a pod"):
        run_as(own, cp.server.create_token, "default", "default", unbound)
