"""A JobSet's embedded Job template is the JobSpec JobSet v0.12's CRD was generated with
(``config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml``): Kubernetes 1.37's Job
``spec.scheduling`` is not in it, so the apiextensions-apiserver treats it as any field the schema
lacks (``customresource_handler.go``: pruned fields are unknown fields per fieldValidation): Strict
refuses it, Warn drops it with a warning, Ignore drops it silently."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from typing import Any

import pytest

from kbatch.server.warning_header import warning_text
from tests.server.conftest import AppClient

KUBECTL = shutil.which("kubectl")
JOBSETS = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets"
FIELD = "spec.replicatedJobs[0].template.spec.scheduling"
JOBSET: dict[str, Any] = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
    "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {
        "scheduling": {"schedulingPolicy": {"gang": {"minCount": 1}}},
        "template": {"spec": {"restartPolicy": "Never",
                              "containers": [{"name": "c", "image": "busybox"}]}}}}}]}}


def named(name: str) -> dict[str, Any]:
    out = copy.deepcopy(JOBSET)
    out["metadata"]["name"] = name
    return out


def test_strict_refuses_the_field_the_crd_lacks(api: AppClient) -> None:
    reply = api.post(JOBSETS, json=named("strict"), params={"fieldValidation": "Strict"})
    assert reply.status_code == 400, reply.text
    assert reply.json()["message"] == (
        'JobSet in version "v1alpha2" cannot be handled as a JobSet: strict decoding error: '
        f'unknown field "{FIELD}"')
    assert api.get(f"{JOBSETS}/strict").status_code == 404


def test_warn_and_ignore_drop_it(api: AppClient) -> None:
    warned = api.post(JOBSETS, json=named("warned"), params={"fieldValidation": "Warn"})
    assert warned.status_code == 201, warned.text
    assert warning_text(warned.headers.get("warning", "")) == f'unknown field "{FIELD}"'
    ignored = api.post(JOBSETS, json=named("ignored"), params={"fieldValidation": "Ignore"})
    assert ignored.status_code == 201 and "warning" not in ignored.headers
    for name in ("warned", "ignored"):
        stored = api.get(f"{JOBSETS}/{name}").json()
        assert "scheduling" not in stored["spec"]["replicatedJobs"][0]["template"]["spec"]


def test_the_openapi_schema_lacks_it_and_keeps_the_rest(api: AppClient) -> None:
    doc = api.get("/openapi/v3/apis/jobset.x-k8s.io/v1alpha2").json()
    jobset = doc["components"]["schemas"]["io.x-k8s.jobset.v1alpha2.JobSet"]
    rjob = jobset["properties"]["spec"]["properties"]["replicatedJobs"]["items"]
    job_spec = rjob["properties"]["template"]["properties"]["spec"]["properties"]
    assert "scheduling" not in job_spec and "parallelism" in job_spec


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_apply_is_refused_and_explain_does_not_list_it(served: Any) -> None:
    """kubectl's default ``--validate=strict`` sends fieldValidation=Strict."""
    applied = subprocess.run([str(KUBECTL), "apply", "-f", "-"], input=json.dumps(named("kubectl")),
                             env=served.env(), capture_output=True, text=True, timeout=30)
    assert applied.returncode != 0 and f'unknown field "{FIELD}"' in applied.stderr
    explained = subprocess.run([str(KUBECTL), "explain", "jobset.spec.replicatedJobs.template.spec"],
                               env=served.env(), capture_output=True, text=True, timeout=30)
    assert explained.returncode == 0, explained.stderr
    assert "parallelism" in explained.stdout and "scheduling" not in explained.stdout


def test_embedded_metadata_keeps_only_the_crds_keys(api: AppClient) -> None:
    """The CRD's template metadata has name, namespace, labels, annotations and finalizers only
    (controller-gen's embedded ObjectMeta); ``creationTimestamp: null``, which Go clients write into
    templates, is an unknown field there like any other."""
    body = named("meta")
    template = body["spec"]["replicatedJobs"][0]["template"]
    del template["spec"]["scheduling"]
    template["metadata"] = {"labels": {"a": "b"}, "generateName": "x-"}
    template["spec"]["template"]["metadata"] = {"creationTimestamp": None, "annotations": {"k": "v"}}
    strict = api.post(JOBSETS, json=body, params={"fieldValidation": "Strict"})
    assert strict.status_code == 400, strict.text
    assert strict.json()["message"].endswith(
        'strict decoding error: unknown field "spec.replicatedJobs[0].template.metadata.generateName", '
        'unknown field "spec.replicatedJobs[0].template.spec.template.metadata.creationTimestamp"')
    warned = api.post(JOBSETS, json=body, params={"fieldValidation": "Warn"})
    assert warned.status_code == 201, warned.text
    stored = api.get(f"{JOBSETS}/meta").json()["spec"]["replicatedJobs"][0]["template"]
    assert stored["metadata"] == {"labels": {"a": "b"}}
    assert stored["spec"]["template"]["metadata"]["annotations"] == {"k": "v"}
    doc = api.get("/openapi/v3/apis/jobset.x-k8s.io/v1alpha2").json()
    rjob = doc["components"]["schemas"]["io.x-k8s.jobset.v1alpha2.JobSet"]["properties"]["spec"][
        "properties"]["replicatedJobs"]["items"]
    meta = rjob["properties"]["template"]["properties"]["metadata"]["properties"]
    assert sorted(meta) == ["annotations", "finalizers", "labels", "name", "namespace"]
