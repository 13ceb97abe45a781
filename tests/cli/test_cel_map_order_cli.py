"""A policy message built by iterating a map reads the same in every CLI process, as a user runs
them: separate ``python -m kbatch --state DIR`` processes with different ``PYTHONHASHSEED`` values
(kbatch.api.cel.iteration; docs/admission-policy.md "Map order")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: label-list}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: "false"
    messageExpression: "object.metadata.labels.map(k, k + '=' + object.metadata.labels[k]).join(',')"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: label-list}
spec: {policyName: label-list, validationActions: [Deny]}
"""
LABELS = {f"team-{c}": str(i) for i, c in enumerate("qwertyuiop")}
CONFIGMAP = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\n  labels:\n"
             + "".join(f"    {k}: \"{v}\"\n" for k, v in LABELS.items()))


def _kbatch(tmp: Path, seed: int, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": str(seed)}
    for name in ("KBATCH_STATE", "KBATCH_SERVER", "KBATCH_FEATURE_GATES", "KBATCH_SCHEDULER_CONFIG"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "kbatch", "--state", str(tmp / "state"), *args],
                          capture_output=True, text=True, env=env, cwd=tmp, timeout=120, check=False)


def test_the_denial_lists_the_labels_in_key_order_in_every_process(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "cm.yaml").write_text(CONFIGMAP)
    assert _kbatch(tmp_path, 0, "apply", "-f", "policy.yaml").returncode == 0
    denials = {_kbatch(tmp_path, seed, "apply", "-f", "cm.yaml").stderr for seed in (0, 1, 2, 3)}
    assert len(denials) == 1, denials
    shown = ",".join(f"{k}={LABELS[k]}" for k in sorted(LABELS))
    assert f"ValidatingAdmissionPolicy 'label-list' with binding 'label-list' denied request: {shown}" in (
        denials.pop())
