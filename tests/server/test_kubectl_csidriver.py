"""The real kubectl with storage.k8s.io/v1 CSIDriver on ``kbatch serve``: upstream's defaults
(``pkg/apis/storage/v1/defaults.go``), ``kubectl get`` columns (``pkg/printers/internalversion/
printers.go`` ``printCSIDriver``), validation messages (``pkg/apis/storage/validation``) and the
immutable fields of an update."""

from __future__ import annotations

import json
from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

DRIVER = """apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: %s}
spec:
  %s
"""


def test_kubectl_applies_and_lists_csidrivers(served: Any) -> None:
    kubectl(served, "apply", "-f", "-", input_=DRIVER % ("plain.csi.example.com", "podInfoOnMount: false"))
    tokens = ("tokenRequests: [{audience: vault}, {audience: gcp, expirationSeconds: 3600}]\n"
              "  volumeLifecycleModes: [Persistent, Ephemeral]\n  attachRequired: false")
    kubectl(served, "apply", "-f", "-", input_=DRIVER % ("tokens.csi.example.com", tokens))
    table = kubectl(served, "get", "csidrivers").stdout.splitlines()
    assert table[0].split() == ["NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY",
                                "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES", "AGE"]
    rows = {line.split()[0]: line.split()[1:7] for line in table[1:]}
    assert rows["plain.csi.example.com"] == ["true", "false", "false", "<unset>", "false", "Persistent"]
    assert rows["tokens.csi.example.com"] == ["false", "false", "false", "vault,gcp", "false",
                                              "Persistent,Ephemeral"]
    got = kubectl(served, "get", "csidriver", "plain.csi.example.com", "-o", "json").stdout
    spec = json.loads(got)["spec"]
    assert spec == {"attachRequired": True, "podInfoOnMount": False, "volumeLifecycleModes": ["Persistent"],
                    "storageCapacity": False, "fsGroupPolicy": "ReadWriteOnceWithFSType",
                    "requiresRepublish": False, "seLinuxMount": False}


def test_kubectl_reports_upstreams_validation(served: Any) -> None:
    bad = kubectl(served, "apply", "-f", "-", check=False, input_=DRIVER % (
        "bad.csi.example.com", "tokenRequests: [{audience: a, expirationSeconds: 60}, {audience: a}]\n"
        "  fsGroupPolicy: Sometimes"))
    assert bad.returncode == 1
    assert bad.stderr == (
        'The CSIDriver "bad.csi.example.com" is invalid: \n'
        '* spec.fsGroupPolicy: Unsupported value: "Sometimes": supported values: "File", "None", '
        '"ReadWriteOnceWithFSType"\n'
        "* spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than "
        "10 minutes\n"
        '* spec.tokenRequests[1].audience: Duplicate value: "a"\n')
    kubectl(served, "apply", "-f", "-", input_=DRIVER % ("fixed.csi.example.com", "attachRequired: true"))
    changed = kubectl(served, "apply", "-f", "-", check=False,
                      input_=DRIVER % ("fixed.csi.example.com", "attachRequired: false"))
    assert 'spec.attachedRequired: Invalid value: false: field is immutable' in changed.stderr
