"""Deleting a batch/v1 Job with the official ``kubernetes`` client and no propagation policy: the
pods are orphaned (the Job strategy's ``DefaultGarbageCollectionPolicy`` for batch/v1) and the
answer warns about it, as kube-apiserver's Job ``REST.Delete``/``DeleteCollection``
(``pkg/registry/batch/job/storage/storage.go``, ``deleteOptionWarnings``). An explicit policy, or
``orphanDependents``, is not warned about.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.server.warning_header import warning_text

kubernetes = pytest.importorskip("kubernetes", reason="the official Python client (pip install kubernetes)")
from kubernetes import client, config  # noqa: E402

WARNING = ("child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to "
           "remove them or set propagationPolicy=Orphan to suppress this warning")


@pytest.fixture(scope="module")
def batch(served: Any) -> Any:
    return client.BatchV1Api(config.new_client_from_config(config_file=str(served.kubeconfig)))


def _job(batch: Any, name: str) -> None:
    batch.create_namespaced_job("default", client.V1Job(
        metadata=client.V1ObjectMeta(name=name, labels={"del": name}),
        spec=client.V1JobSpec(suspend=True, template=client.V1PodTemplateSpec(spec=client.V1PodSpec(
            restart_policy="Never", containers=[client.V1Container(name="c", image="busybox")])))))


def _warnings(headers: Any) -> list[str]:
    value = headers.get("Warning")
    return [warning_text(value)] if value else []


@pytest.mark.parametrize(("kwargs", "warned"), [
    ({}, True),
    ({"propagation_policy": "Background"}, False),
    ({"propagation_policy": "Orphan"}, False),
    ({"orphan_dependents": True}, False),
    ({"orphan_dependents": False}, False),  # given, so not the default either
], ids=["default", "background", "orphan", "orphanDependents", "not-orphanDependents"])
def test_a_job_delete_warns_only_when_the_policy_is_left_to_the_default(batch: Any, kwargs: dict[str, Any],
                                                                       warned: bool) -> None:
    _job(batch, "warned")
    _, code, headers = batch.delete_namespaced_job_with_http_info("warned", "default", **kwargs)
    assert code == 200
    assert _warnings(headers) == ([WARNING] if warned else [])


def test_a_job_collection_delete_warns_too(batch: Any) -> None:
    delete = batch.delete_collection_namespaced_job_with_http_info
    _job(batch, "coll")
    _, code, headers = delete("default", label_selector="del=coll")
    assert code == 200 and _warnings(headers) == [WARNING]
    _job(batch, "coll")
    _, _, headers = delete("default", label_selector="del=coll", propagation_policy="Background")
    assert _warnings(headers) == []
