"""The real kubectl with storage.k8s.io/v1 CSIDriver on ``kbatch serve``: upstream's defaults
(``pkg/apis/storage/v1/defaults.go``), ``kubectl get`` columns (``pkg/printers/internalversion/
printers.go`` ``printCSIDriver``), validation messages (``pkg/apis/storage/validation``) and the
immutable fields of an update."""

from __future__ import annotations

import json
from typing import Any

import httpx

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


def _generation(served: Any, name: str) -> Any:
    got = json.loads(kubectl(served, "get", "csidriver", name, "-o", "json").stdout)
    return got["metadata"].get("generation")


def test_generation_counts_spec_changes_from_none(served: Any) -> None:
    """``pkg/registry/storage/csidriver/strategy.go``: no generation on create, one more per spec change."""
    kubectl(served, "apply", "-f", "-", input_=DRIVER % ("gen.csi.example.com", "podInfoOnMount: false"))
    assert _generation(served, "gen.csi.example.com") is None
    kubectl(served, "label", "csidriver", "gen.csi.example.com", "a=b")
    assert _generation(served, "gen.csi.example.com") is None  # metadata is not the spec
    kubectl(served, "apply", "-f", "-", input_=DRIVER % ("gen.csi.example.com", "podInfoOnMount: true"))
    assert _generation(served, "gen.csi.example.com") == 1
    kubectl(served, "patch", "csidriver", "gen.csi.example.com", "-p", '{"spec":{"fsGroupPolicy":"File"}}')
    assert _generation(served, "gen.csi.example.com") == 2


def test_token_requests_warn_without_token_in_secrets(served: Any) -> None:
    out = kubectl(served, "apply", "-f", "-", input_=DRIVER % ("warn.csi.example.com",
                                                             "tokenRequests: [{audience: a}]"))
    assert ("Warning: spec.serviceAccountTokenInSecrets is unset; if supported by this CSI driver, set to "
            "true to prevent possible logging of tokens in volume attributes") in out.stderr
    quiet = kubectl(served, "apply", "-f", "-", input_=DRIVER % (
        "quiet.csi.example.com", "tokenRequests: [{audience: a}]\n  serviceAccountTokenInSecrets: true"))
    assert "Warning" not in quiet.stderr
    bad = kubectl(served, "apply", "-f", "-", check=False, input_=DRIVER % (
        "bad-secrets.csi.example.com", "serviceAccountTokenInSecrets: true"))
    assert ("spec.serviceAccountTokenInSecrets: Invalid value: true: serviceAccountTokenInSecrets is set but "
            "no tokenRequests are specified") in bad.stderr


def test_delete_answers_the_deleted_driver(served: Any) -> None:
    """``ReturnDeletedObject`` (``pkg/registry/storage/csidriver/storage/storage.go``)."""
    kubectl(served, "apply", "-f", "-", input_=DRIVER % ("gone.csi.example.com", "podInfoOnMount: false"))
    out = httpx.delete(served.url + "/apis/storage.k8s.io/v1/csidrivers/gone.csi.example.com", timeout=30)
    assert out.status_code == 200 and out.json()["kind"] == "CSIDriver"
    assert out.json()["spec"]["attachRequired"] is True


def test_kbatch_describe_is_kubectls_generic_page(served: Any, tmp_path: Any) -> None:
    """kubectl has no CSIDriver nor PodTemplate describer (``pkg/describe/describe.go``
    ``describerMap``): both get the generic page, and ``kbatch describe`` (a separate process) prints
    what kubectl prints."""
    from tests.cli.processes import kbatch_ok

    kubectl(served, "apply", "-f", "-", input_=DRIVER % (
        "desc.csi.example.com", "tokenRequests: [{audience: vault, expirationSeconds: 3600}]\n"
        "  nodeAllocatableUpdatePeriodSeconds: 60"))
    kubectl(served, "apply", "-f", "-", input_=TEMPLATE)
    for args in (("csidriver", "desc.csi.example.com"), ("podtemplate", "desc-template")):
        ours = kbatch_ok(tmp_path / "cli", "--server", served.url, "describe", *args)
        assert ours == kubectl(served, "describe", *args).stdout


TEMPLATE = """apiVersion: v1
kind: PodTemplate
metadata: {name: desc-template, labels: {app: x}}
template:
  metadata: {labels: {app: x}}
  spec:
    containers: [{name: c, image: busybox, command: [sleep, "10"], env: [{name: A, value: "1"}]}]
"""
