"""Kueue's published examples through the real kubectl against ``kbatch serve``: what kbatch does not
model is said at once (kbatch/server/inert_warnings.py), not discovered later as an inactive queue."""

from __future__ import annotations

from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

# kubernetes-sigs/kueue site/static/examples/sample-admission-check.yaml, as published
ADMISSION_CHECK = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: prov-test
spec:
  controllerName: ProvisioningRequestController
  parameters:
    apiGroup: kueue.x-k8s.io
    kind: ProvisioningRequestConfig
    name: prov-test-config

---

apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata:
  name: prov-test-config
spec:
  provisioningClassName: test-class
  parameters:
    parma1: value1
"""

# kubernetes-sigs/kueue site/static/examples/tas/sample-queues.yaml's flavor (topology-aware scheduling)
TAS_FLAVOR = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: "tas-flavor"
spec:
  nodeLabels:
    cloud.provider.com/node-group: "tas-node-group"
  topologyName: "default"
"""


def test_the_admission_check_example_warns_that_no_controller_will_activate_it(served: Any) -> None:
    out = kubectl(served, "apply", "-f", "-", input_=ADMISSION_CHECK, check=False)
    assert out.stdout == "admissioncheck.kueue.x-k8s.io/prov-test created\n"
    assert out.stderr.startswith(
        'Warning: spec.controllerName: kbatch runs no admission check controller '
        '("ProvisioningRequestController"): nothing sets this AdmissionCheck\'s Active condition')
    # the ProvisioningRequestConfig kind is not served: kubectl's own words, and a failed apply
    assert 'no matches for kind "ProvisioningRequestConfig" in version "kueue.x-k8s.io/v1beta2"' in out.stderr
    assert out.returncode != 0
    again = kubectl(served, "apply", "--server-side", "-f", "-", input_=ADMISSION_CHECK.split("---")[0]
                    .replace("prov-test", "prov-ssa"))
    assert "kbatch runs no admission check controller" in again.stderr  # an apply-create warns too


def test_a_topology_flavor_is_created_without_a_warning_now_that_kbatch_schedules_by_topology(
    served: Any,
) -> None:
    out = kubectl(served, "create", "-f", "-", input_=TAS_FLAVOR)
    assert out.stdout == "resourceflavor.kueue.x-k8s.io/tas-flavor created\n"
    assert out.stderr == ""  # topology-aware scheduling acts on it (kbatch/controllers/kueue/tas)
    plain = kubectl(served, "create", "-f", "-", input_=TAS_FLAVOR.replace("tas-flavor", "plain").replace(
        '  topologyName: "default"\n', ""))
    assert plain.stderr == ""
