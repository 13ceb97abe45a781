"""storage.k8s.io/v1 CSIDriver through the ``kbatch`` CLI, each command its own process: ``apply``,
``get`` with kubectl's columns (``printCSIDriver``), and NodeRestriction reading the driver's
token audiences (docs/storage.md, docs/rbac.md)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.processes import kbatch_ok, kbatch_process

DRIVER = """apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: secrets.csi.example.com}
spec:
  podInfoOnMount: true
  tokenRequests: [{audience: vault}]
"""


def test_apply_and_get_csidrivers(tmp_path: Path) -> None:
    manifest = tmp_path / "driver.yaml"
    manifest.write_text(DRIVER)
    assert kbatch_ok(tmp_path / "state", "apply", "-f", str(manifest)) == \
        "csidriver.storage.k8s.io/secrets.csi.example.com created\n"
    table = kbatch_ok(tmp_path / "state", "get", "csidrivers").splitlines()
    assert table[0].split() == ["NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY",
                                "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES", "AGE"]
    assert table[1].split()[:7] == ["secrets.csi.example.com", "true", "true", "false", "vault", "false",
                                    "Persistent"]
    manifest.write_text(DRIVER.replace("[{audience: vault}]", "[{audience: vault}, {audience: vault}]"))
    refused = kbatch_process(tmp_path / "state", "apply", "-f", str(manifest))
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert 'spec.tokenRequests[1].audience: Duplicate value: "vault"' in refused.stderr
