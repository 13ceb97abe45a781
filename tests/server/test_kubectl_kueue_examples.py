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
    assert out.stdout == ("admissioncheck.kueue.x-k8s.io/prov-test created\n"
                          "provisioningrequestconfig.kueue.x-k8s.io/prov-test-config created\n")
    # its controllerName is none kbatch runs (Kueue's is kueue.x-k8s.io/provisioning-request)
    assert out.stderr.startswith(
        'Warning: spec.controllerName: kbatch runs no admission check controller '
        '("ProvisioningRequestController"): nothing sets this AdmissionCheck\'s Active condition')
    assert out.returncode == 0
    again = kubectl(served, "apply", "--server-side", "-f", "-", input_=ADMISSION_CHECK.split("---")[0]
                    .replace("prov-test", "prov-ssa"))
    assert "kbatch runs no admission check controller" in again.stderr  # an apply-create warns too


def test_the_provisioning_example_is_served_and_answered(served: Any) -> None:
    """kueue v0.19.2 site/static/examples/provisioning/: the check Kueue runs is created without a
    warning and activated; ProvisioningRequests, their configs and PodTemplates list with their
    columns and short names (prc, provreq)."""
    from tests.cli.conftest import EXAMPLES

    setup = (EXAMPLES / "kueue" / "provisioning" / "provisioning-setup.yaml").read_text()
    out = kubectl(served, "apply", "-f", "-", input_=setup)
    assert "provisioningrequestconfig.kueue.x-k8s.io/prov-test-config " in out.stdout  # (the module shares
    assert "Warning" not in out.stderr                                                 # one server)
    prc = kubectl(served, "get", "prc", "prov-test-config", "-o", "jsonpath={.spec.retryStrategy}")
    assert prc.stdout == '{"backoffBaseSeconds":0,"backoffLimitCount":2,"backoffMaxSeconds":1800}'
    old = kubectl(served, "get", "provisioningrequestconfigs.v1beta1.kueue.x-k8s.io", "-o", "name")
    assert old.stdout == "provisioningrequestconfig.kueue.x-k8s.io/prov-test-config\n"
    kubectl(served, "apply", "-f", "-", input_=PROVREQ)
    table = kubectl(served, "get", "provreq").stdout.splitlines()
    assert table[0].split() == ["NAME", "AGE"] and table[1].split()[0] == "pr1"
    templates = kubectl(served, "get", "podtemplates").stdout.splitlines()
    assert templates[0].split() == ["NAME", "CONTAINERS", "IMAGES", "POD", "LABELS"]
    assert templates[1].split()[:3] == ["pt1", "c", "busybox"]
    bad = kubectl(served, "apply", "-f", "-", input_=PROVREQ.replace("count: 2", "count: 0"), check=False)
    assert bad.returncode != 0 and "spec.podSets[0].count" in bad.stderr
    immutable = kubectl(served, "patch", "provreq", "pr1", "--type=merge", "-p",
                        '{"spec":{"provisioningClassName":"other"}}', check=False)
    assert "Value is immutable" in immutable.stderr


PROVREQ = """\
apiVersion: v1
kind: PodTemplate
metadata:
  name: pt1
  namespace: default
template:
  spec:
    containers:
    - name: c
      image: busybox
      resources:
        requests:
          cpu: "1"
---
apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata:
  name: pr1
  namespace: default
spec:
  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  podSets:
  - podTemplateRef:
      name: pt1
    count: 2
"""


def test_a_topology_flavor_is_created_without_a_warning_now_that_kbatch_schedules_by_topology(
    served: Any,
) -> None:
    out = kubectl(served, "create", "-f", "-", input_=TAS_FLAVOR)
    assert out.stdout == "resourceflavor.kueue.x-k8s.io/tas-flavor created\n"
    assert out.stderr == ""  # topology-aware scheduling acts on it (kbatch/controllers/kueue/tas)
    plain = kubectl(served, "create", "-f", "-", input_=TAS_FLAVOR.replace("tas-flavor", "plain").replace(
        '  topologyName: "default"\n', ""))
    assert plain.stderr == ""
