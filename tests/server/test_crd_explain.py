"""``kubectl explain`` of the custom resources (JobSet, Kueue, PodGroup) against ``kbatch serve``: the
real kubectl reads ``/openapi/v3`` and must see what it sees from a CRD published by the
apiextensions-apiserver (``pkg/controller/openapi/builder/builder.go``): nested objects inline
(``<Object>``, ``<[]Object>``), the top-level metadata ``<ObjectMeta>``, and each served version's own
fields (Kueue v1beta1's CRDs, ``config/components/crd/bases/kueue.x-k8s.io_*.yaml`` at v0.19.2)."""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

import pytest

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
V1BETA1 = "kueue.x-k8s.io/v1beta1"


def explain(served: Any, *args: str) -> str:
    out = subprocess.run([str(KUBECTL), "explain", *args], env=served.env(), capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout


def field_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("FIELD:"))


@pytest.mark.parametrize(("path", "shown"), [
    ("clusterqueue.spec", "FIELD: spec <Object>"),
    ("clusterqueue.spec.resourceGroups", "FIELD: resourceGroups <[]Object>"),
    ("jobset.spec.replicatedJobs", "FIELD: replicatedJobs <[]Object>"),
    ("jobset.spec.replicatedJobs.template", "FIELD: template <Object>"),
    ("podgroups.scheduling.x-k8s.io.spec", "FIELD: spec <Object>"),
    ("jobset.metadata", "FIELD: metadata <ObjectMeta>"),
])
def test_a_custom_resource_shows_object_not_a_model_name(served: Any, path: str, shown: str) -> None:
    assert field_line(explain(served, path)) == shown


@pytest.mark.parametrize("kind", ["clusterqueue", "cohort"])
def test_v1beta1_fair_sharing_status_has_admission_fair_sharing(served: Any, kind: str) -> None:
    """Both v1beta1 CRDs have ``status.fairSharing.admissionFairSharingStatus`` (v1beta2's do not);
    kbatch's v1beta1 Cohort lacked it, and its same-named class then stood for ClusterQueue's too."""
    v1 = explain(served, f"{kind}.status.fairSharing", "--api-version", V1BETA1)
    assert "admissionFairSharingStatus" in v1
    v2 = explain(served, f"{kind}.status.fairSharing", "--api-version", "kueue.x-k8s.io/v1beta2")
    assert "admissionFairSharingStatus" not in v2 and "weightedShare" in v2


def test_a_built_in_still_shows_its_type_name(served: Any) -> None:
    assert field_line(explain(served, "jobs.spec")) == "FIELD: spec <JobSpec>"


def test_a_custom_resource_carries_no_kbatch_docstrings(served: Any) -> None:
    """kbatch's model docstrings are not the CRD's descriptions; a property named ``description``
    (WorkloadPriorityClass) is a field and stays."""
    text = explain(served, "jobset.spec.replicatedJobs.template.spec.template")
    assert text.split("DESCRIPTION:")[1].split("FIELDS:")[0].strip() == "<empty>"
    assert "description\t<string>" in explain(served, "workloadpriorityclass")
