"""A ValidatingAdmissionPolicy through the CLI as a user runs it: separate ``python -m kbatch --state
DIR …`` processes (docs/cli.md "How state is kept"). A policy with a ConfigMap as params and its
binding apply in one command; in later commands a Job that violates it is refused with upstream's
message (``ValidatingAdmissionPolicy 'p' with binding 'b' denied request: …``, staging apiserver
``pkg/admission/plugin/policy/validating/dispatcher.go``) and nothing of it is written, a Job
that keeps it is created, and a bad policy is refused with its field error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
POLICY = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: job-limits, namespace: default}
data: {maxCompletions: "5"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-completions}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [batch], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [jobs]}]
  validations:
  - expression: "object.spec.?completions.orValue(1) <= int(params.data.maxCompletions)"
    message: too many completions
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-completions-default}
spec:
  policyName: max-completions
  validationActions: [Deny]
  paramRef: {name: job-limits, parameterNotFoundAction: Deny}
"""
JOBS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: unrelated}
data: {a: b}
---
apiVersion: batch/v1
kind: Job
metadata: {name: %s}
spec:
  completions: %d
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: [sleep, "1"]}]
"""


def _kbatch(tmp: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("KBATCH_STATE", "KBATCH_SERVER", "KBATCH_FEATURE_GATES", "KBATCH_SCHEDULER_CONFIG"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-m", "kbatch", "--state", str(tmp / "state"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp,
        timeout=120,
    )
    assert (done.returncode == 0) == ok, f"kbatch {' '.join(args)}: {done.stderr}{done.stdout}"
    return done


def test_policy_refuses_a_job_in_a_later_command(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    out = _kbatch(tmp_path, "apply", "-f", "policy.yaml").stdout
    assert "validatingadmissionpolicy.admissionregistration.k8s.io/max-completions created" in out
    (tmp_path / "big.yaml").write_text(JOBS % ("big", 7))
    err = _kbatch(tmp_path, "apply", "-f", "big.yaml", ok=False).stderr
    assert (
        "ValidatingAdmissionPolicy 'max-completions' with binding 'max-completions-default' denied "
        "request: too many completions"
    ) in err
    assert "Traceback" not in err
    # nothing of the refused Job is written; the file's other object is applied, as kubectl apply
    # goes on with a file's next object after a refusal
    assert 'jobs.batch "big" not found' in _kbatch(tmp_path, "get", "job", "big", ok=False).stderr
    assert "unrelated" in _kbatch(tmp_path, "get", "configmap", "unrelated").stdout
    (tmp_path / "small.yaml").write_text(JOBS % ("small", 3))
    assert "job.batch/small created" in _kbatch(tmp_path, "apply", "-f", "small.yaml").stdout
    table = _kbatch(tmp_path, "get", "validatingadmissionpolicybindings").stdout.splitlines()
    assert table[1].split()[:3] == ["max-completions-default", "max-completions", "*/job-limits"]


def test_a_policy_that_does_not_compile_is_refused(tmp_path: Path) -> None:
    bad = POLICY.split("---\n")[1].replace("int(params.data.maxCompletions)", "int(param.data.max)")
    (tmp_path / "bad.yaml").write_text(bad)
    err = _kbatch(tmp_path, "apply", "-f", "bad.yaml", ok=False).stderr
    assert "spec.validations[0].expression: Invalid value" in err
    assert "compilation failed: ERROR: <input>:1:" in err and "undeclared reference to 'param" in err
    assert "Traceback" not in err


def test_a_warn_binding_prints_the_warning_and_creates(tmp_path: Path) -> None:
    """``validationActions: [Warn]``: ``Warning: Validation failed for ValidatingAdmissionPolicy …``
    on stderr (dispatcher.go ``warning.AddWarning``), and the Job is created."""
    warn = POLICY.replace("validationActions: [Deny]", "validationActions: [Warn]")
    (tmp_path / "policy.yaml").write_text(warn)
    _kbatch(tmp_path, "apply", "-f", "policy.yaml")
    (tmp_path / "big.yaml").write_text(JOBS.split("---\n")[1] % ("big", 7))
    done = _kbatch(tmp_path, "apply", "-f", "big.yaml")
    assert done.stdout == "job.batch/big created\n"
    assert done.stderr == ("Warning: Validation failed for ValidatingAdmissionPolicy 'max-completions' with "
                           "binding 'max-completions-default': too many completions\n")
