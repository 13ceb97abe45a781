"""Upstream's webhook integration table (an API server with the CRD and the webhooks), through kbatch's
API.

Source: kubernetes-sigs/jobset v0.12.0 ``test/integration/webhook/jobset_webhook_test.go``
(``DescribeTable("jobset webhook tests")``): create a JobSet (it must be refused, or its stored
object must carry the defaults), then update the stored object (the update must be refused or not,
with the wanted text). The ElasticJobSet gate, which upstream flips just before the update, is set for
the whole control plane.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kbatch.api.errors import StatusError
from kbatch.api.jobset_v1alpha2 import JobSet

from .upstream_helpers import API_VERSION, create, plane

POD = {"containers": [{"name": "test-container", "image": "busybox:latest"}]}
Doc = dict[str, Any]


def _rj(name: str = "rjob", *, mode: str | None = None, pod: Doc | None = None, pod_meta: Doc | None = None,
        **job: Any) -> Doc:
    spec: Doc = {"template": {"spec": pod or POD}, **job}
    if pod_meta:
        spec["template"]["metadata"] = pod_meta
    if mode:
        spec["completionMode"] = mode
    return {"name": name, "template": {"spec": spec}}


def _js(*rjobs: Doc, name: str = "js", **spec: Any) -> Doc:
    return {"apiVersion": API_VERSION, "kind": "JobSet", "metadata": {"name": name},
            "spec": {"replicatedJobs": list(rjobs), **spec}}


def _pod(doc: Doc) -> Doc:
    return doc["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]


def _set(path: Callable[[Doc], Doc], key: str, value: Any) -> Callable[[Doc], None]:
    def update(doc: Doc) -> None:
        path(doc)[key] = value
    return update


def _job(doc: Doc) -> Doc:
    return dict(doc["spec"]["replicatedJobs"][0]["template"]["spec"])


MOUNT = {"name": "test-volume", "mountPath": "/test"}
MOUNTED = {"restartPolicy": "Never",
           "containers": [{"name": "test-container", "image": "busybox:latest", "volumeMounts": [MOUNT]}]}
DNS = {"enableDNSHostnames": True}
NO_DNS = {"enableDNSHostnames": False, "publishNotReadyAddresses": True}
DNS_PUBLISH = {"enableDNSHostnames": True, "publishNotReadyAddresses": True}
COORDINATOR = {"replicatedJob": "rjob-a", "jobIndex": 0, "podIndex": 0}
IMMUTABLE, CEL_IMMUTABLE = "field is immutable", "Value is immutable"


def _claims(*templates: Doc) -> list[Doc]:
    return [{"templates": list(templates)}]


def _claim(name: str = "test-volume", **meta: Any) -> Doc:
    return {"metadata": {"name": name, **meta}}


def _many(policies: bool) -> Doc:
    """51 claim policies (or 51 templates in one), every one mounted."""
    names = [f"test-volume-{i}" for i in range(51)]
    pod = {"restartPolicy": "Never", "containers": [{"name": "test-container", "image": "busybox:latest",
                                                     "volumeMounts": [{"name": n, "mountPath": f"/test{i}"}
                                                                      for i, n in enumerate(names)]}]}
    claims = ([{"templates": [_claim(n)]} for n in names] if policies
              else [{"templates": [_claim(n) for n in names]}])
    return _js(_rj(mode="Indexed", pod=pod), network=DNS, volumeClaimPolicies=claims)


def _scaled(parallelism: int, completions: int) -> Callable[[Doc], None]:
    def update(doc: Doc) -> None:
        job = doc["spec"]["replicatedJobs"][0]["template"]["spec"]
        job["parallelism"], job["completions"] = parallelism, completions
    return update


def _elastic(mode: str = "Indexed") -> Doc:
    return _js(_rj(mode=mode, parallelism=2, completions=2))


def _depends(startup: str | None = None, status: str = "Ready") -> Doc:
    extra = {"startupPolicy": {"startupPolicyOrder": startup}} if startup else {}
    second = {**_rj("rjob-2"), "dependsOn": [{"name": "rjob-1", "status": status}]}
    return _js(_rj("rjob-1"), second, **extra)


def _annotated(suspend: bool) -> Doc:
    return _js(_rj(mode="Indexed", pod_meta={"annotations": {"old": "annotation"}}), suspend=suspend)


def _add_annotation_and_gate(doc: Doc) -> None:
    pod = _pod(doc)
    pod["metadata"]["annotations"]["new"] = "annotation"
    pod["spec"]["schedulingGates"] = [{"name": "example.com/gate"}]


def _add_annotation(doc: Doc) -> None:
    _pod(doc)["metadata"]["annotations"]["new"] = "annotation"


def _hostname(doc: Doc) -> None:
    _pod(doc)["spec"].update(hostname="test", subdomain="test")


# (upstream entry, manifest, gates, creation fails, defaults check, update, update fails, wanted text)
Entry = tuple[str, Doc, str, bool, Callable[[Doc], bool] | None, Callable[[Doc], None] | None, bool, str]
ENTRIES: list[Entry] = [
    ("job.spec.completionMode defaults to indexed if unset", _js(_rj(), network=DNS),
     "", False, lambda d: _job(d)["completionMode"] == "Indexed", None, False, ""),
    ("job.spec.completionMode unchanged if already set",
     _js(_rj(mode="NonIndexed"), network={"enableDNSHostnames": False}), "", False,
     lambda d: _job(d)["completionMode"] == "NonIndexed", None, False, ""),
    ("enableDNSHostnames defaults to true if unset", _js(_rj(mode="Indexed")), "", False,
     lambda d: d["spec"]["network"]["enableDNSHostnames"] is True, None, False, ""),
    ("publishNotReadyAddresses defaults to true if unset",
     _js(_rj(mode="Indexed"), network=DNS), "", False,
     lambda d: d["spec"]["network"]["publishNotReadyAddresses"] is True, None, False, ""),
    ("pod restart policy defaults to OnFailure if unset", _js(_rj(mode="Indexed")), "", False,
     lambda d: _pod(d)["spec"]["restartPolicy"] == "OnFailure", None, False, ""),
    ("validate jobSet should not fail on NodeSelectors Update when jobset is suspended",
     _js(_rj(), suspend=True, network=NO_DNS), "", False,
     None, lambda d: _pod(d)["spec"].update(nodeSelector={"test": "test"}), False, ""),
    ("validate jobSet should fail on NodeSelectors Update", _js(_rj(), network=DNS), "",
     False, None, lambda d: _pod(d)["spec"].update(nodeSelector={"test": "test"}), True, IMMUTABLE),
    ("validate jobSet immutable for fields over than NodeSelector when jobSet is not suspended",
     _js(_rj(), network=DNS_PUBLISH), "", False, None,
     _hostname, True, IMMUTABLE),
    ("success policy defaults to all", _js(_rj(), network=DNS), "", False,
     lambda d: d["spec"]["successPolicy"] == {"operator": "All"}, None, False, ""),
    ("success policy with invalid replicatedJob name is rejected",
     _js(_rj(), network=DNS,
         successPolicy={"operator": "All", "targetReplicatedJobs": ["does-not-exist"]}), "", True, None, None,
     False, ""),
    ("suspend jobset", _js(_rj(), network=DNS_PUBLISH), "",
     False, None, _set(lambda d: d["spec"], "suspend", True), False, ""),
    ("resume jobset", _js(_rj(), suspend=True, network={"enableDNSHostnames": True,
                                                         "publishNotReadyAddresses": True}), "",
     False, None, _set(lambda d: d["spec"], "suspend", False), False, ""),
    ("SuccessPolicy should be immutable", _js(_rj(), network=DNS), "", False, None,
     lambda d: d["spec"]["successPolicy"].update(targetReplicatedJobs=["test", "test2"]), True,
     CEL_IMMUTABLE),
    ("FailurePolicy should be immutable",
     _js(_rj(), network=DNS, failurePolicy={"maxRestarts": 3}), "", False, None,
     _set(lambda d: d["spec"], "failurePolicy", {"maxRestarts": 21}), True, CEL_IMMUTABLE),
    ("FailurePolicy defaults are applied when empty",
     _js(_rj(mode="Indexed"), network=DNS, failurePolicy={}), "", False,
     lambda d: d["spec"]["failurePolicy"]["restartStrategy"] == "Recreate", None, False, ""),
    ("validate jobSet immutable for managedBy field", _js(_rj(), suspend=True, network=DNS),
     "", False, None, _set(lambda d: d["spec"], "managedBy", "new-manager"), True, ""),
    ("updating pod template in suspended jobset is allowed", _annotated(True), "", False, None,
     _add_annotation_and_gate, False, ""),
    ("updating pod template in running jobset is not allowed", _annotated(False), "", False, None,
     _add_annotation, True, ""),
    ("DependsOn and StartupPolicy: AnyOrder can be set together", _depends("AnyOrder"), "", False, None, None,
     False, ""),
    ("DependsOn and StartupPolicy: InOrder can't be set together", _depends("InOrder"), "", True, None, None,
     False, ""),
    ("DependsOn can't be set for the first ReplicatedJob",
     _js({**_rj("rjob-1"), "dependsOn": [{"name": "rjob-1", "status": "Ready"}]}), "", True, None, None,
     False, ""),
    ("DependsOn list must contain valid ReplicatedJob status", _depends(status="Failed"), "", True, None,
     None, False, ""),
    ("DependsOn must be immutable", _depends(), "", False, None,
     lambda d: d["spec"]["replicatedJobs"][1].update(dependsOn=[{"name": "rjob-1", "status": "Complete"}]),
     True, ""),
    ("JobSet can create with no replicated jobs",
     {"apiVersion": API_VERSION, "kind": "JobSet", "metadata": {"name": "depends-on"}}, "", False, None, None,
     False, ""),
    ("spec that will lead to invalid coordinator label value (in this case too long due to long JobSet name) "
     "should be rejected",
     _js(_rj("rjob-a"), name="a" * 60, coordinator=COORDINATOR), "", True, None, None, False, ""),
    ("VolumeClaimPolicies defaults are applied when empty",
     _js(_rj(mode="Indexed", pod=MOUNTED), network=DNS,
         volumeClaimPolicies=_claims(_claim())), "", False,
     lambda d: d["spec"]["volumeClaimPolicies"][0]["retentionPolicy"] == {"whenDeleted": "Delete"}, None,
     False, ""),
    ("VolumeClaimPolicies must be immutable",
     _js(_rj(mode="Indexed", pod=MOUNTED), network=DNS,
         volumeClaimPolicies=_claims(_claim())), "", False, None,
     lambda d: d["spec"]["volumeClaimPolicies"][0].update(retentionPolicy={"whenDeleted": "Retain"}), True,
     CEL_IMMUTABLE),
    ("VolumeClaimPolicies template with namespace should be rejected",
     _js(_rj(mode="Indexed", pod=MOUNTED), network=DNS,
         volumeClaimPolicies=_claims(_claim(namespace="invalid-namespace"))), "", True, None, None, False,
     ""),
    ("VolumeClaimPolicies exceeding MaxItems=50 should be rejected", _many(True), "", True, None, None, False,
     ""),
    ("VolumeClaimPolicies templates exceeding MaxItems=50 should be rejected", _many(False), "", True, None,
     None, False, ""),
    ("validate updating parallelism and completions is ALLOWED when ElasticJobSet is enabled", _elastic(),
     "ElasticJobSet=true", False, None, _scaled(4, 4), False, ""),
    ("validate updating parallelism and completions FAILS when values are not equal", _elastic(),
     "ElasticJobSet=true", False, None, _scaled(4, 5), True,
     "completions must be equal to parallelism for Elastic Indexed Jobs"),
    ("validate updating parallelism and completions FAILS for NonIndexed jobs", _elastic("NonIndexed"),
     "ElasticJobSet=true", False, None, _scaled(4, 4), True, IMMUTABLE),
    ("validate updating parallelism and completions FAILS when scaling to < 1", _elastic(),
     "ElasticJobSet=true", False, None, _scaled(0, 0), True, "parallelism must be >= 1"),
    ("validate updating parallelism and completions FAILS when ElasticJobSet is disabled", _elastic(), "",
     False, None, _scaled(4, 4), True, IMMUTABLE),
]


@pytest.mark.parametrize(("case", "manifest", "gates", "create_fails", "defaults", "update", "update_fails",
                          "text"), ENTRIES, ids=[e[0][:90] for e in ENTRIES])
def test_jobset_webhook(case: str, manifest: Doc, gates: str, create_fails: bool,
                        defaults: Callable[[Doc], bool] | None, update: Callable[[Doc], None] | None,
                        update_fails: bool, text: str) -> None:
    cp = plane(gates)
    err = create(cp, manifest)
    if create_fails:
        assert err is not None, case
        return
    assert err is None, f"{case}: {err}"
    stored = cp.client.get(JobSet, manifest["metadata"]["name"], "default").to_dict()
    if defaults is not None:
        assert defaults(stored), case
    if update is None:
        return
    update(stored)
    try:
        cp.client.update(JobSet.model_validate(stored))
    except StatusError as refused:
        assert update_fails, f"{case}: {refused}"
        assert text in refused.message, (case, refused.message)
        return
    assert not update_fails, case
