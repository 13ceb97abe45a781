"""``pods/eviction`` over HTTP: the official Python client against ``kbatch serve`` (docs/pdb.md)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

kubernetes = pytest.importorskip("kubernetes", reason="the official Python client (pip install kubernetes)")
from kubernetes import client, config  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402


def _pod(name: str) -> client.V1Pod:
    return client.V1Pod(metadata=client.V1ObjectMeta(name=name, labels={"app": "evict-http"}),
                        spec=client.V1PodSpec(containers=[client.V1Container(
                            name="c", image="busybox", command=["sleep", "100000"])]))


def _eviction(name: str) -> client.V1Eviction:
    return client.V1Eviction(metadata=client.V1ObjectMeta(name=name, namespace="default"))


def test_eviction_respects_the_budget_over_http(served: Any) -> None:
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    core, policy = client.CoreV1Api(api_client), client.PolicyV1Api(api_client)
    base = f"{served.url}/apis/kbatch.dev/v1alpha1"
    add = httpx.post(f"{base}/actions/nodes-add", json={"count": 1, "prefix": "evict"}, timeout=10)
    add.raise_for_status()
    for name in ("ev-0", "ev-1"):
        core.create_namespaced_pod("default", _pod(name))
    httpx.post(f"{base}/clock", json={"advance": "10s"}, timeout=10).raise_for_status()
    policy.create_namespaced_pod_disruption_budget("default", client.V1PodDisruptionBudget(
        metadata=client.V1ObjectMeta(name="evict-http"),
        spec=client.V1PodDisruptionBudgetSpec(min_available=1, selector=client.V1LabelSelector(
            match_labels={"app": "evict-http"}))))
    pdb = policy.read_namespaced_pod_disruption_budget("evict-http", "default")
    assert (pdb.status.current_healthy, pdb.status.disruptions_allowed) == (2, 1)

    core.create_namespaced_pod_eviction("ev-0", "default", _eviction("ev-0"))
    assert core.read_namespaced_pod("ev-0", "default").metadata.deletion_timestamp is not None
    with pytest.raises(ApiException) as err:
        core.create_namespaced_pod_eviction("ev-1", "default", _eviction("ev-1"))
    assert err.value.status == 429
    body = json.loads(err.value.body)
    assert body["reason"] == "TooManyRequests"
    assert body["details"]["causes"][0]["reason"] == "DisruptionBudget"


def test_discovery_advertises_pods_eviction_for_kubectl_drain(served: Any) -> None:
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    resources = client.CoreV1Api(api_client).get_api_resources().resources
    entry = next(r for r in resources if r.name == "pods/eviction")
    assert (entry.group, entry.version, entry.kind) == ("policy", "v1", "Eviction")


def test_a_policy_v1beta1_eviction_body_is_served_and_bad_delete_options_are_a_422(served: Any) -> None:
    """Upstream's pods/eviction accepts a policy/v1beta1 Eviction body (eviction_test.go's request
    type is the internal ``policy.Eviction``, reached from either version); the embedded DeleteOptions
    are validated (``rest.BeforeDelete``): a 422 of ``DeleteOptions.meta.k8s.io ""``."""
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    core = client.CoreV1Api(api_client)
    base = f"{served.url}/apis/kbatch.dev/v1alpha1"
    add = httpx.post(f"{base}/actions/nodes-add", json={"count": 1, "prefix": "beta"}, timeout=10)
    add.raise_for_status()
    for name in ("beta-0", "beta-1"):
        core.create_namespaced_pod("default", _pod(name))
    httpx.post(f"{base}/clock", json={"advance": "10s"}, timeout=10).raise_for_status()
    url = f"{served.url}/api/v1/namespaces/default/pods/beta-0/eviction"
    body = {"apiVersion": "policy/v1beta1", "kind": "Eviction", "metadata": {"name": "beta-0"}}
    bad = httpx.post(url, json={**body, "deleteOptions": {"propagationPolicy": "Bogus"}}, timeout=10)
    assert bad.status_code == 422
    assert bad.json()["details"]["kind"] == "DeleteOptions"
    assert core.read_namespaced_pod("beta-0", "default").metadata.deletion_timestamp is None
    typo = httpx.post(url, json={**body, "deleteOptions": {"gracePeriodSeconds": "x"}}, timeout=10)
    assert (typo.status_code, typo.json()["message"]) == (400, (
        'Eviction in version "v1" cannot be handled as a Eviction: json: cannot unmarshal string into Go '
        "struct field DeleteOptions.deleteOptions.gracePeriodSeconds of type int64"))
    ok = httpx.post(url, json=body, timeout=10)
    # the create handler fills a returned Status's zero code with 201 (apiserver handlers/create.go)
    assert (ok.status_code, ok.json()) == (201, {"apiVersion": "v1", "kind": "Status", "metadata": {},
                                                 "status": "Success", "code": 201})
    assert core.read_namespaced_pod("beta-0", "default").metadata.deletion_timestamp is not None
