"""``kbatch create <generator>`` against ``kbatch serve`` and against a state directory, as separate
processes, with kubectl 1.32 as the oracle for the generators that read the server: ``role`` and
``clusterrole`` resolve resources through discovery, ``job --from=cronjob/X`` copies the CronJob's
job template (k8s.io/kubectl ``pkg/cmd/create/create_role.go``, ``create_clusterrole.go``,
``create_job.go``). The offline generators are in ``tests/cli/test_create_generators.py``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.runners import ROOT
from tests.cli.test_create_generators import drop_null_timestamps

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

CRON = """
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    metadata:
      labels: {team: data}
      annotations: {owner: alice, cronjob.kubernetes.io/instantiate: scheduled}
    spec:
      backoffLimit: 2
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox, command: [sh, -c, "echo done"]}]
"""


def _run(argv: list[str], env: dict[str, str], input_: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, input=input_)


def kubectl(served: Any, *args: str, input_: str | None = None) -> subprocess.CompletedProcess[str]:
    assert KUBECTL is not None
    return _run([KUBECTL, *args], served.env(), input_)


def kbatch(served: Any, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**served.env(), "PYTHONPATH": str(ROOT)}
    return _run([sys.executable, "-m", "kbatch", "--server", served.url, *args], env)


def _same(served: Any, *args: str) -> None:
    """kubectl and kbatch build the same object, or fail with the same line."""
    flags = ["--dry-run=client", "-o", "json"]
    want, got = kubectl(served, "create", *args, *flags), kbatch(served, "create", *args, *flags)
    assert "Traceback" not in got.stderr
    assert got.returncode == want.returncode, (want.stderr, got.stderr)
    assert got.stderr.strip() == want.stderr.strip()
    if want.returncode == 0:
        assert drop_null_timestamps(json.loads(got.stdout)) == drop_null_timestamps(json.loads(want.stdout))


ROLES: list[tuple[str, ...]] = [
    ("role", "r", "--verb=get,list", "--verb=watch", "--verb=get",
     "--resource=pods,pods/status,jobs.batch,cj,po", "--resource-name=a", "--resource-name=a",
     "--resource-name=b"),
    ("role", "all", "--verb=*", "--verb=get", "--resource=*", "-n", "team"),
    ("role", "odd", "--verb=frobnicate", "--resource=podgroups"),
    ("role", "imp", "--verb=impersonate", "--resource=serviceaccounts,users,groups"),
    ("role", "bad", "--verb=get", "--resource=widgets"),
    ("role", "bind", "--verb=bind", "--resource=pods"),
    ("role", "nogroup", "--verb=get", "--resource=.batch"),
    ("role", "noverb", "--resource=pods"),
    ("role", "nores", "--verb=get"),
    ("clusterrole", "urls", "--verb=get,post", "--non-resource-url=/healthz,/api/*", "--resource=nodes"),
    ("clusterrole", "agg", "--aggregation-rule=rbac.example.com/aggregate=true,tier=x"),
    ("clusterrole", "both", "--aggregation-rule=a=b", "--verb=get"),
    ("clusterrole", "slash", "--verb=get", "--non-resource-url=healthz"),
    ("clusterrole", "star", "--verb=get", "--non-resource-url=/a*/b"),
    ("clusterrole", "verb", "--verb=list", "--non-resource-url=/healthz"),
    ("clusterrole", "neither", "--verb=get"),
]


@pytest.mark.parametrize("args", ROLES, ids=lambda a: "-".join(a[:2]))
def test_roles_as_kubectl_builds_them(served: Any, args: tuple[str, ...]) -> None:
    _same(served, *args)


def test_job_from_cronjob_as_kubectl_builds_it(served: Any) -> None:
    assert kubectl(served, "apply", "-f", "-", input_=CRON).returncode == 0
    _same(served, "job", "manual", "--from=cronjob/nightly")
    _same(served, "job", "manual", "--from=cronjob/missing")
    _same(served, "job", "manual", "--from=cronjob/nightly", "--", "echo")


def test_created_through_serve_as_through_kubectl(served: Any) -> None:
    """The object stored is the same whichever client created it, but for the field manager."""
    for client, name in ((kubectl, "by-kubectl"), (kbatch, "by-kbatch")):
        out = client(served, "create", "job", name, "--image=busybox", "--save-config", "--", "echo", "hi")
        assert out.returncode == 0 and out.stdout.strip() == f"job.batch/{name} created", out.stderr
    shown = {name: kubectl(served, "get", "job", name, "-o", "json", "--show-managed-fields")
             for name in ("by-kubectl", "by-kbatch")}
    jobs = {name: json.loads(out.stdout) for name, out in shown.items()}
    managers = {n: {f["manager"] for f in j["metadata"]["managedFields"]} for n, j in jobs.items()}
    assert "kubectl-create" in managers["by-kubectl"] and "kbatch-create" in managers["by-kbatch"]
    assert "kubectl-create" not in managers["by-kbatch"]
    specs = [j["spec"]["template"]["spec"]["containers"] for j in jobs.values()]
    assert specs[0][0]["command"] == specs[1][0]["command"] == ["echo", "hi"]
    again = kbatch(served, "create", "job", "by-kbatch", "--image=busybox")
    assert again.returncode == 1
    assert again.stderr.strip() == 'error: failed to create job: jobs.batch "by-kbatch" already exists'
    dry = kbatch(served, "create", "namespace", "dry-ns", "--dry-run=server")
    assert dry.stdout.strip() == "namespace/dry-ns created (server dry run)"
    assert kubectl(served, "get", "namespace", "dry-ns").returncode == 1


def test_generators_on_a_state_directory(tmp_path: Path) -> None:
    """Without a server: the embedded control plane, each command its own process."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "KBATCH_STATE": str(tmp_path / "state")}

    def kb(*args: str, input_: str | None = None) -> subprocess.CompletedProcess[str]:
        return _run([sys.executable, "-m", "kbatch", *args], env, input_)

    assert kb("apply", "-f", "-", input_=CRON).returncode == 0
    made = kb("create", "job", "manual", "--from=cronjob/nightly", "-o", "json")
    assert made.returncode == 0, made.stderr
    job = json.loads(made.stdout)
    cron = json.loads(kb("get", "cronjob", "nightly", "-o", "json").stdout)
    assert job["metadata"]["ownerReferences"] == [{"apiVersion": "batch/v1", "kind": "CronJob",
                                                   "name": "nightly", "uid": cron["metadata"]["uid"],
                                                   "controller": True}]
    # the template's annotation of the same key wins over kubectl's "manual" (createJobFromCronJob)
    assert job["metadata"]["annotations"] == {"owner": "alice",
                                              "cronjob.kubernetes.io/instantiate": "scheduled"}
    assert job["metadata"]["labels"]["team"] == "data" and job["spec"]["backoffLimit"] == 2
    assert kb("create", "configmap", "cfg", "--from-literal=a=1", "-n", "default").stdout.strip() == \
        "configmap/cfg created"
    assert json.loads(kb("get", "cm", "cfg", "-o", "json").stdout)["data"] == {"a": "1"}
    assert kb("create", "-f", "-", input_="apiVersion: v1\nkind: Namespace\nmetadata: {name: from-file}\n"
              ).stdout.strip() == "namespace/from-file created"
    missing = kb("create")
    assert missing.returncode == 1 and missing.stderr.strip() == "error: must specify one of -f and -k"
