"""``kubectl apply --server-side`` (the real kubectl on this machine) against ``kbatch serve``: apply-create,
an unchanged re-apply, a conflict between field managers and ``--force-conflicts``
(kubernetes.io/docs/reference/using-api/server-side-apply/)."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from tests.server.test_kubectl import kubectl

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: ssa
  labels:
    team: a
spec:
  parallelism: {parallelism}
  completions: 4
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
"""


def _job(served: Any) -> dict[str, Any]:
    return json.loads(kubectl(served, "get", "job", "ssa", "-o", "json", "--show-managed-fields").stdout)


def test_server_side_apply_conflict_and_force(served: Any) -> None:
    created = kubectl(served, "apply", "--server-side", "-f", "-", input_=JOB.format(parallelism=2))
    assert "serverside-applied" in created.stdout
    first = _job(served)
    entry = next(m for m in first["metadata"]["managedFields"] if m["operation"] == "Apply")
    assert entry["manager"] == "kubectl" and entry["fieldsType"] == "FieldsV1"
    assert entry["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"] == {
        'k:{"name":"main"}': {".": {}, "f:image": {}, "f:name": {}}}

    again = kubectl(served, "apply", "--server-side", "-f", "-", input_=JOB.format(parallelism=2))
    assert "serverside-applied" in again.stdout
    assert _job(served)["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]

    clash = kubectl(served, "apply", "--server-side", "--field-manager=ops", "-f", "-",
                    input_=JOB.format(parallelism=3), check=False)
    assert clash.returncode != 0
    assert 'Apply failed with 1 conflict: conflict with "kubectl": .spec.parallelism' in clash.stderr
    assert _job(served)["spec"]["parallelism"] == 2

    forced = kubectl(served, "apply", "--server-side", "--field-manager=ops", "--force-conflicts", "-f", "-",
                     input_=JOB.format(parallelism=3))
    assert "serverside-applied" in forced.stdout
    job = _job(served)
    assert job["spec"]["parallelism"] == 3
    owners = {m["manager"]: m["fieldsV1"] for m in job["metadata"]["managedFields"]
              if m["operation"] == "Apply"}
    assert "f:parallelism" in owners["ops"]["f:spec"] and "f:parallelism" not in owners["kubectl"]["f:spec"]


APPLY = {"Content-Type": "application/apply-patch+yaml"}
JOBS = "/apis/batch/v1/namespaces/default/jobs"


def test_apply_without_field_manager_is_refused(api: Any) -> None:
    # apimachinery ValidatePatchOptions: kubectl always sends one, other clients must
    reply = api.patch(f"{JOBS}/ssa", content=JOB.format(parallelism=1), headers=APPLY)
    assert reply.status_code == 422
    assert reply.json()["message"] == ('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required '
                                       "value: is required for apply patch")


def test_force_on_a_non_apply_patch_is_refused(api: Any) -> None:
    merge = {"Content-Type": "application/merge-patch+json"}
    reply = api.patch(f"{JOBS}/ssa?force=true", json={}, headers=merge)
    assert reply.status_code == 422 and "may not be specified for non-apply patch" in reply.json()["message"]


def test_apply_over_http_and_tracked_update(api: Any) -> None:
    reply = api.patch(f"{JOBS}/ssa?fieldManager=alice", content=JOB.format(parallelism=1), headers=APPLY)
    assert reply.status_code == 201, reply.text  # apply-create answers Created, as upstream
    patched = api.patch(f"{JOBS}/ssa?fieldManager=scaler", json={"spec": {"parallelism": 2}},
                        headers={"Content-Type": "application/merge-patch+json"})
    assert patched.status_code == 200, patched.text
    entries = {(m["manager"], m["operation"]): m for m in patched.json()["metadata"]["managedFields"]}
    assert entries[("scaler", "Update")]["fieldsV1"] == {"f:spec": {"f:parallelism": {}}}
    clash = api.patch(f"{JOBS}/ssa?fieldManager=alice", content=JOB.format(parallelism=1), headers=APPLY)
    assert clash.status_code == 409
    body = clash.json()
    assert body["reason"] == "Conflict"
    assert body["details"]["causes"] == [{"reason": "FieldManagerConflict", "field": ".spec.parallelism",
                                          "message": 'conflict with "scaler" using batch/v1'}]


def test_apply_body_is_yaml_with_timestamps_kept_as_text(api: Any) -> None:
    stamped = "  annotations:\n    at: 2026-01-01T00:00:00Z\n  labels:\n"
    body = JOB.format(parallelism=1).replace("  labels:\n", stamped)
    reply = api.patch(f"{JOBS}/ssa?fieldManager=alice", content=body, headers=APPLY)
    assert reply.status_code == 201, reply.text
    assert reply.json()["metadata"]["annotations"] == {"at": "2026-01-01T00:00:00Z"}
    bad = api.patch(f"{JOBS}/ssa?fieldManager=alice", content=b"a: [", headers=APPLY)
    assert bad.status_code == 400 and "error decoding YAML" in bad.json()["message"]


@pytest.mark.skipif(shutil.which("diff") is None, reason="kubectl diff needs diff")
def test_server_side_dry_run_and_diff(served: Any) -> None:
    original = JOB.format(parallelism=2).replace("ssa", "dry")
    kubectl(served, "apply", "--server-side", "-f", "-", input_=original)
    changed = JOB.format(parallelism=5).replace("ssa", "dry")
    dry = kubectl(served, "apply", "--server-side", "--dry-run=server", "-f", "-", input_=changed)
    assert "serverside-applied (server dry run)" in dry.stdout
    diff = kubectl(served, "diff", "--server-side", "-f", "-", input_=changed, check=False)
    assert diff.returncode == 1 and "-  parallelism: 2" in diff.stdout and "+  parallelism: 5" in diff.stdout
    job = json.loads(kubectl(served, "get", "job", "dry", "-o", "json").stdout)
    assert job["spec"]["parallelism"] == 2 and "managedFields" not in job["metadata"]
