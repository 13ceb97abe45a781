"""Upstream's ``TestJobSetDefaulting`` table, through kbatch's API.

Source: kubernetes-sigs/jobset v0.12.0 ``pkg/webhooks/jobset_webhook_test.go``
(``TestJobSetDefaulting``) and ``jobset_webhook.go`` (``Default``). Upstream runs ``Default`` on a
Go struct and compares the whole object; here the manifest is created (the CRD's structural defaults,
then ``mjobset.kb.io``) and the stored spec's fields ``Default`` touches are compared with upstream's
``want``. Upstream lists ``startupPolicyTests`` twice; it is one case here.

Translation note: "when provided, managedBy field is preserved" uses ``other-controller``, which
``vjobset.kb.io`` refuses (not a domain-prefixed path); the case keeps upstream's value on the pure
``Default`` and sends ``example.com/other-controller`` through the API.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.controllers.jobset.webhook_rules import default_jobset_webhook

from .upstream_helpers import jobset, plane, pod_spec, rjob

CONTROLLER = "jobset.sigs.k8s.io/jobset-controller"
SUCCESS = {"operator": "All"}
STARTUP = {"startupPolicyOrder": "AnyOrder"}
NETWORK = {"enableDNSHostnames": True, "publishNotReadyAddresses": True}


def _js(*, mode: str | None = "Indexed", restart: str | None = None, **spec: Any) -> dict[str, Any]:
    pod = pod_spec(restartPolicy=restart) if restart else pod_spec()
    spec.setdefault("managedBy", CONTROLLER)
    return jobset(rjob("rj", mode=mode, pod=pod), **{k: v for k, v in spec.items() if v is not None})


def _want(*, mode: str = "Indexed", restart: str = "OnFailure", success: dict[str, Any] = SUCCESS,
          startup: dict[str, Any] = STARTUP, network: dict[str, Any] = NETWORK,
          managed_by: str | None = CONTROLLER, **extra: Any) -> dict[str, Any]:
    out = {"successPolicy": success, "startupPolicy": startup, "network": network, "completionMode": mode,
           "restartPolicy": restart, "managedBy": managed_by}
    out.update(extra)
    return out


def _project(spec: dict[str, Any]) -> dict[str, Any]:
    job = spec["replicatedJobs"][0]["template"]["spec"]
    out = {"successPolicy": spec.get("successPolicy"), "startupPolicy": spec.get("startupPolicy"),
           "network": spec.get("network"), "completionMode": job.get("completionMode"),
           "restartPolicy": job["template"]["spec"].get("restartPolicy"), "managedBy": spec.get("managedBy")}
    if "failurePolicy" in spec:
        out["rules"] = [r.get("name") for r in spec["failurePolicy"].get("rules", [])]
    if "volumeClaimPolicies" in spec:
        out["retention"] = [p.get("retentionPolicy") for p in spec["volumeClaimPolicies"]]
    return out


_PVC = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
_CLAIM = {"templates": [{"metadata": {"name": "test-volume"}, "spec": _PVC}]}


def _with_mount(manifest: dict[str, Any]) -> dict[str, Any]:
    pod = manifest["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod["containers"][0]["volumeMounts"] = [{"name": "test-volume", "mountPath": "/data"}]
    return manifest


CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("job completion mode is unset", _js(mode=None, successPolicy=SUCCESS, startupPolicy=STARTUP,
                                         network=NETWORK), _want()),
    ("job completion mode is set to non-indexed",
     _js(mode="NonIndexed", successPolicy=SUCCESS, network=NETWORK), _want(mode="NonIndexed")),
    ("enableDNSHostnames is unset", _js(successPolicy=SUCCESS, startupPolicy=STARTUP), _want()),
    ("enableDNSHostnames is false", _js(mode="NonIndexed", network={"enableDNSHostnames": False}),
     _want(mode="NonIndexed", network={"enableDNSHostnames": False, "publishNotReadyAddresses": True})),
    ("PublishNotReadyNetworkAddresess is false",
     _js(mode="NonIndexed", network={"publishNotReadyAddresses": False}),
     _want(mode="NonIndexed", network={"enableDNSHostnames": True, "publishNotReadyAddresses": False})),
    ("PublishNotReadyNetworkAddresess is true",
     _js(mode="NonIndexed", network={"enableDNSHostnames": False, "publishNotReadyAddresses": True}),
     _want(mode="NonIndexed", network={"enableDNSHostnames": False, "publishNotReadyAddresses": True})),
    ("pod restart policy unset", _js(network=NETWORK), _want()),
    ("pod restart policy set", _js(restart="Always"), _want(restart="Always")),
    ("success policy unset", _js(restart="Always", startupPolicy=STARTUP), _want(restart="Always")),
    ("success policy operator set, replicatedJobNames unset",
     _js(restart="Always", successPolicy={"operator": "Any"}),
     _want(restart="Always", success={"operator": "Any"})),
    ("startup policy order InOrder set",
     _js(restart="Always", successPolicy={"operator": "Any"},
         startupPolicy={"startupPolicyOrder": "InOrder"}),
     _want(restart="Always", success={"operator": "Any"}, startup={"startupPolicyOrder": "InOrder"})),
    ("managedBy field is left nil", _js(managedBy=None), _want(managed_by=None)),
    ("when provided, managedBy field is preserved", _js(managedBy="example.com/other-controller"),
     _want(managed_by="example.com/other-controller")),
    ("failure policy rule name is defaulted when: there is one rule and it does not have a name",
     _js(failurePolicy={"rules": [{"action": "FailJobSet"}]}), _want(rules=["failurePolicyRule0"])),
    ("failure policy rule name is defaulted when: there are two rules, the first rule has a name, the second "
     "rule does not have a name",
     _js(failurePolicy={"rules": [{"name": "ruleWithAName", "action": "FailJobSet"},
                                  {"action": "FailJobSet"}]}),
     _want(rules=["ruleWithAName", "failurePolicyRule1"])),
    ("volumeClaimPolicy retentionPolicy is defaulted to Delete when nil",
     _with_mount(_js(volumeClaimPolicies=[_CLAIM])), _want(retention=[{"whenDeleted": "Delete"}])),
]


@pytest.mark.parametrize(("case", "manifest", "want"), CASES, ids=[c[0] for c in CASES])
def test_jobset_defaulting(case: str, manifest: dict[str, Any], want: dict[str, Any]) -> None:
    cp = plane()
    cp.apply(manifest)
    spec = cp.client.get(JobSet, "js", "default").to_dict()["spec"]
    assert _project(spec) == want, case


def test_managed_by_other_controller_is_preserved_by_default() -> None:
    """Upstream's value itself, on ``Default`` alone."""
    js = JobSet.model_validate(_js(managedBy="other-controller"))
    default_jobset_webhook(js)
    assert js.spec.managed_by == "other-controller"
