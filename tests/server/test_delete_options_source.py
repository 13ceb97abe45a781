"""Where a DELETE's options come from, over HTTP to a ``kbatch serve`` process: the body when the
request has one, else the query, never both.

Upstream (Kubernetes 1.37): k8s.io/apiserver ``pkg/endpoints/handlers/delete.go``, DeleteResource and
DeleteCollection: a non-empty body is decoded into ``metav1.DeleteOptions``; only without one does
``ParameterCodec.DecodeParameters`` read the query. The official Python client sends its ``body``
and its keyword options (``dry_run=``, ``propagation_policy=`` ...) side by side, so with a body the
keywords are ignored by kube-apiserver.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

kubernetes = pytest.importorskip("kubernetes", reason="the official Python client (pip install kubernetes)")
from kubernetes import client, config  # noqa: E402

CM = "/api/v1/namespaces/default/configmaps"
JOBS = "/apis/batch/v1/namespaces/default/jobs"


@pytest.fixture(scope="module")
def core(served: Any) -> Any:
    return client.CoreV1Api(config.new_client_from_config(config_file=str(served.kubeconfig)))


def _configmap(served: Any, name: str) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    assert httpx.post(f"{served.url}{CM}", json=body, timeout=10).status_code == 201


def _exists(served: Any, name: str) -> bool:
    return httpx.get(f"{served.url}{CM}/{name}", timeout=10).status_code == 200


def test_with_a_body_the_query_dry_run_is_ignored(served: Any, core: Any) -> None:
    _configmap(served, "body-wins")
    core.delete_namespaced_config_map("body-wins", "default", body=client.V1DeleteOptions(), dry_run="All")
    assert not _exists(served, "body-wins")


def test_without_a_body_the_query_dry_run_counts(served: Any, core: Any) -> None:
    _configmap(served, "query-counts")
    core.delete_namespaced_config_map("query-counts", "default", dry_run="All")
    assert _exists(served, "query-counts")


def test_options_from_body_and_query_are_not_checked_together(served: Any) -> None:
    # merged, propagationPolicy (body) and orphanDependents (query) would be Invalid together
    _configmap(served, "no-mix")
    resp = httpx.request("DELETE", f"{served.url}{CM}/no-mix", params={"orphanDependents": "false"},
                         content=json.dumps({"propagationPolicy": "Orphan"}), timeout=10)
    assert resp.status_code == 200, resp.text
    assert not _exists(served, "no-mix")


def test_a_collection_delete_with_a_body_ignores_the_query(served: Any) -> None:
    for name in ("coll-a", "coll-b"):
        _configmap(served, name)
    resp = httpx.request("DELETE", f"{served.url}{CM}", params={"dryRun": "All"}, content=b"{}", timeout=10)
    assert resp.status_code == 200, resp.text
    assert not _exists(served, "coll-a") and not _exists(served, "coll-b")


def test_a_job_delete_with_a_body_warns_though_the_query_names_a_policy(served: Any) -> None:
    pod = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "warned"},
           "spec": {"suspend": True, "template": {"spec": pod}}}
    assert httpx.post(f"{served.url}{JOBS}", json=job, timeout=10).status_code == 201
    resp = httpx.request("DELETE", f"{served.url}{JOBS}/warned", params={"propagationPolicy": "Background"},
                         content=b"{}", timeout=10)
    assert resp.status_code == 200, resp.text
    assert "child pods are preserved by default" in resp.headers.get("warning", "")
