"""An RBAC bundle through the CLI as a user runs it: separate ``python -m kbatch --state DIR …``
processes (docs/cli.md "How state is kept"). A Role, a RoleBinding, an aggregated ClusterRole with a
part named ``system:…`` (a path-segment name, not a DNS subdomain) and a Job apply in one file; the
aggregation shows in a later command; a binding's ``roleRef`` cannot change; a bad rule is refused
with the API's error and nothing of that file is half-written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: job-runner}
rules: [{apiGroups: [batch], resources: [jobs], verbs: [get, list, create]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: job-runner}
subjects: [{kind: ServiceAccount, name: runner, namespace: default}, {kind: User, name: jane}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: job-runner}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:aggregate-to-jobs", labels: {agg: "yes"}}
rules: [{apiGroups: [batch], resources: [cronjobs], verbs: [list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: jobs}
aggregationRule: {clusterRoleSelectors: [{matchLabels: {agg: "yes"}}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: pi}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: pi, image: busybox, command: [sleep, "1"]}]
"""


def _kbatch(tmp: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("KBATCH_STATE", "KBATCH_SERVER", "KBATCH_FEATURE_GATES", "KBATCH_SCHEDULER_CONFIG"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-m", "kbatch", "--state", str(tmp / "state"), *args],
                          capture_output=True, text=True, env=env, cwd=tmp, timeout=120)
    assert (done.returncode == 0) == ok, f"kbatch {' '.join(args)}: {done.stderr}{done.stdout}"
    return done


def test_bundle_applies_and_aggregates_across_commands(tmp_path: Path) -> None:
    (tmp_path / "bundle.yaml").write_text(BUNDLE)
    out = _kbatch(tmp_path, "apply", "-f", "bundle.yaml").stdout
    assert "clusterrole.rbac.authorization.k8s.io/system:aggregate-to-jobs created" in out
    agg = json.loads(_kbatch(tmp_path, "get", "clusterrole", "jobs", "-o", "json").stdout)
    assert agg["rules"] == [{"apiGroups": ["batch"], "resources": ["cronjobs"], "verbs": ["list"]}]
    wide = _kbatch(tmp_path, "get", "rolebindings", "-o", "wide").stdout.splitlines()
    assert wide[1].split() == ["job-runner", "Role/job-runner", "0s", "jane", "default/runner"]
    page = _kbatch(tmp_path, "describe", "role", "job-runner").stdout
    assert "  jobs.batch  []                 []              [get list create]" in page

    changed = BUNDLE.split("---\n")[1].replace("kind: Role, name: job-runner}", "kind: Role, name: other}")
    (tmp_path / "changed.yaml").write_text(changed)
    err = _kbatch(tmp_path, "apply", "-f", "changed.yaml", ok=False).stderr
    assert "roleRef: Invalid value" in err and "cannot change roleRef" in err and "Traceback" not in err


def test_a_bad_rule_is_refused_with_its_field(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
                                       "metadata: {name: r}\nrules: [{resources: [pods], verbs: [get]}]\n")
    err = _kbatch(tmp_path, "apply", "-f", "bad.yaml", ok=False).stderr
    assert "rules[0].apiGroups: Required value: resource rules must supply at least one api group" in err
    assert "Traceback" not in err
    assert "No resources found" in _kbatch(tmp_path, "get", "roles").stderr + \
        _kbatch(tmp_path, "get", "roles").stdout


def test_a_deleted_cluster_admin_comes_back_at_the_next_command(tmp_path: Path) -> None:
    """kube-apiserver's ``rbac/bootstrap-roles`` post-start hook recreates a missing bootstrap role at
    each start; each CLI command starts the API server again from the state directory."""
    assert "cluster-admin" in _kbatch(tmp_path, "get", "clusterroles").stdout
    _kbatch(tmp_path, "delete", "clusterrole", "cluster-admin")
    role = json.loads(_kbatch(tmp_path, "get", "clusterrole", "cluster-admin", "-o", "json").stdout)
    assert role["rules"][0] == {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}
