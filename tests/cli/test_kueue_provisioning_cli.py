"""Kueue's ProvisioningRequest admission check as a user runs it: ``kbatch`` commands in separate
processes over one state directory, with Kueue's published example (kueue v0.19.2
``site/static/examples/provisioning/provisioning-setup.yaml`` and ``sample-job.yaml``, in
examples/kueue/provisioning/) on one node with 4 GPUs tainted ``nvidia.com/gpu``. kbatch's simulated
cluster-autoscaler answers the requests from the capacity there is (docs/simulation.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run

SETUP = EXAMPLES / "kueue" / "provisioning" / "provisioning-setup.yaml"
JOB = EXAMPLES / "kueue" / "provisioning" / "sample-job.yaml"
CONSUME = "autoscaling.x-k8s.io/consume-provisioning-request"


def _cluster(state: Path, setup: Path = SETUP) -> None:
    _run(
        state,
        "nodes",
        "add",
        "--count",
        "1",
        "--cpu",
        "8",
        "--gpu",
        "4",
        "--taint",
        "nvidia.com/gpu=present:NoSchedule",
    )
    created = _run(state, "apply", "-f", str(setup))
    assert "provisioningrequestconfig.kueue.x-k8s.io/prov-test-config created" in created
    assert "admissioncheck.kueue.x-k8s.io/sample-prov created" in created


def _items(state: Path, kind: str) -> list[dict[str, Any]]:
    return json.loads(_run(state, "get", kind, "-o", "json"))["items"]  # type: ignore[no-any-return]


def test_the_job_is_admitted_once_capacity_is_found_and_its_pods_consume_the_request(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _cluster(state)
    check = _items(state, "admissionchecks")[0]
    assert [(c["type"], c["status"], c["reason"]) for c in check["status"]["conditions"]] == [
        ("Active", "True", "Active")
    ]
    _run(state, "create", "-f", str(JOB))
    _run(state, "advance", "2s")

    wl = _items(state, "workloads")[0]
    name = wl["metadata"]["name"]
    (ac,) = wl["status"]["admissionChecks"]
    assert (ac["name"], ac["state"], ac["message"]) == (
        "sample-prov",
        "Ready",
        "Capacity is found in the cluster",
    )
    assert any(c["type"] == "Admitted" and c["status"] == "True" for c in wl["status"]["conditions"])

    (pr,) = _items(state, "provreq")
    assert pr["metadata"]["name"] == f"{name}-sample-prov-1"
    assert pr["spec"]["parameters"] == {"maxRunDurationSeconds": "600"}  # the Job's provreq annotation
    assert pr["spec"]["podSets"] == [
        {"podTemplateRef": {"name": f"ppt-{name}-sample-prov-1-main"}, "count": 3}
    ]
    assert [(c["type"], c["status"], c["reason"]) for c in pr["status"]["conditions"]] == [
        ("Accepted", "True", "Accepted"),
        ("Provisioned", "True", "CapacityIsFound"),
    ]

    pods = _items(state, "pods")
    assert len(pods) == 3 and all(p["status"]["phase"] == "Running" for p in pods)
    for pod in pods:
        assert pod["metadata"]["annotations"][CONSUME] == pr["metadata"]["name"]
        assert pod["metadata"]["annotations"]["autoscaling.x-k8s.io/provisioning-class-name"] == (
            "check-capacity.autoscaling.x-k8s.io"
        )
    table = _run(state, "get", "podtemplates").splitlines()
    assert table[0].split() == ["NAME", "CONTAINERS", "IMAGES", "POD", "LABELS"]
    assert table[1].split()[0] == f"ppt-{name}-sample-prov-1-main"


def test_a_job_too_large_for_the_cluster_is_retried_then_deactivated(tmp_path: Path) -> None:
    """With the autoscaler's ``noRetry`` parameter a request it cannot satisfy Fails (instead of
    staying Provisioned=False), which Kueue retries per the example's ``retryStrategy``
    (``backoffLimitCount: 2``): attempts 1 to 3, then the check is Rejected and the Job's Workload
    deactivated."""
    state = tmp_path / "state"
    setup = tmp_path / "setup.yaml"
    setup.write_text(
        SETUP.read_text().replace(
            "  managedResources:\n", '  parameters:\n    noRetry: "true"\n  managedResources:\n'
        )
    )
    job = tmp_path / "job.yaml"
    job.write_text(
        JOB.read_text()
        .replace("parallelism: 3", "parallelism: 5")
        .replace("completions: 3", "completions: 5")
    )
    _cluster(state, setup)
    _run(state, "create", "-f", str(job))
    for _ in range(4):
        _run(state, "advance", "5s")
    wl = _items(state, "workloads")[0]
    assert wl["spec"]["active"] is False
    events = _run(state, "get", "events", "--field-selector", f"involvedObject.name={wl['metadata']['name']}")
    assert "ProvisioningRequestCreated" in events and f"{wl['metadata']['name']}-sample-prov-3" in events
    assert "Retrying after failure: CA could not find requested capacity" in events
    assert (
        "updated state from Pending to Rejected with message: CA could not find requested capacity" in events
    )
    assert _items(state, "provisioningrequests") == []  # cleaned up on the eviction
    assert _items(state, "pods") == []
