"""kubectl against ``kbatch serve`` meets the Kueue CRDs' ``maxProperties`` with apiextensions'
message (``Too many: N: must have at most M items``; the walker:
``tests/api/test_crd_property_counts.py``)."""

from __future__ import annotations

from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)


def _flavor(name: str, labels: int) -> str:
    lines = "".join(f"\n    k{i}: v" for i in range(labels))
    return (f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {{name: {name}}}\n"
            f"spec:\n  nodeLabels:{lines}\n")


def test_kubectl_sees_the_crds_max_properties(served: Any) -> None:
    assert kubectl(served, "apply", "-f", "-", input_=_flavor("eight", 8)).returncode == 0
    nine = kubectl(served, "apply", "-f", "-", check=False, input_=_flavor("nine", 9))
    assert nine.returncode == 1
    assert nine.stderr == ('The ResourceFlavor "nine" is invalid: spec.nodeLabels: Too many: 9: must have at '
                           'most 8 items\n')
    params = "".join(f"\n    p{i}: x" for i in range(101))
    config = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ProvisioningRequestConfig\nmetadata: {name: many}\n"
              f"spec:\n  provisioningClassName: check-capacity.autoscaling.x-k8s.io\n  parameters:{params}\n")
    out = kubectl(served, "apply", "-f", "-", check=False, input_=config)
    assert "spec.parameters: Too many: 101: must have at most 100 items" in out.stderr, out.stderr
