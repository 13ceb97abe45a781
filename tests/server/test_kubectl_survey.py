"""The kubectl commands a batch user runs, through the real kubectl against ``kbatch serve``: the
survey of docs/serve.md ("kubectl, command by command"). Each test holds what kubectl prints or does,
as against kube-apiserver; where kbatch differs on purpose (the virtual clock, no exec, the kinds
kbatch does not serve), the test holds the difference the docs describe."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_kubectl import KUBECTL, TIMEOUT, kubectl
from tests.server.test_kubectl_logs_follow import Follower as _Follower
from tests.server.test_kubectl_logs_follow import kb

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: %s%s}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: main, image: busybox, command: [sh, -c, "echo hi; sleep 5"]}
"""


class Follower(_Follower):
    def lines_within(self, seconds: float) -> list[str]:
        """The lines kubectl printed within ``seconds`` of the first; [] if none came."""
        try:
            lines = [self.lines.get(timeout=seconds)]
        except queue.Empty:
            return []
        while True:
            try:
                lines.append(self.lines.get(timeout=0.5))
            except queue.Empty:
                return lines


@pytest.fixture(scope="module")
def cluster(served: Any) -> Any:
    kb(served, "nodes", "add", "--count", "1")
    return served


def _later(action: Any) -> threading.Thread:
    """``action`` in a second thread, once kubectl has had time to start waiting (the server side
    decides nothing by it: the waits below end only when the object changes)."""
    timer = threading.Timer(1.0, action)
    timer.start()
    return timer


def test_diff_exits_1_on_a_change_and_0_without(cluster: Any) -> None:
    kubectl(cluster, "apply", "-f", "-", input_=JOB % ("diffed", ""))
    same = kubectl(cluster, "diff", "-f", "-", input_=JOB % ("diffed", ""), check=False)
    assert (same.returncode, same.stdout) == (0, "")
    changed = kubectl(cluster, "diff", "-f", "-", input_=JOB % ("diffed", ", labels: {team: x}"), check=False)
    assert changed.returncode == 1, changed.stderr
    assert "+    team: x" in changed.stdout.splitlines()


def test_events_for_an_object_and_by_type(cluster: Any) -> None:
    kubectl(cluster, "apply", "-f", "-", input_=JOB % ("evented", ""))
    kb(cluster, "advance", "1s")
    table = kubectl(cluster, "events", "--for", "job/evented").stdout.splitlines()
    assert table[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert any("SuccessfulCreate" in line and "Job/evented" in line for line in table[1:])
    none = kubectl(cluster, "events", "--for", "job/evented", "--types=Warning")
    assert none.stdout == "" and "No events found in default namespace." in none.stderr


def test_wait_for_create_delete_and_jsonpath(cluster: Any) -> None:
    timer = _later(lambda: kubectl(cluster, "create", "configmap", "waited"))
    created = kubectl(cluster, "wait", "--for=create", "configmap/waited", f"--timeout={TIMEOUT}s")
    timer.join()
    assert created.stdout.strip() == "configmap/waited condition met"
    timer = _later(lambda: kubectl(cluster, "delete", "configmap", "waited", "--wait=false"))
    deleted = kubectl(cluster, "wait", "--for=delete", "configmap/waited", f"--timeout={TIMEOUT}s")
    timer.join()
    # (a delete that came before kubectl began waiting is met at once, silently)
    assert deleted.stdout.strip() in ("configmap/waited condition met", "")
    kubectl(cluster, "apply", "-f", "-", input_=JOB % ("waited", ""))
    timer = _later(lambda: kb(cluster, "advance", "1m"))
    done = kubectl(cluster, "wait", "--for=jsonpath={.status.succeeded}=1", "job/waited",
                   f"--timeout={TIMEOUT}s")
    timer.join()
    assert done.stdout.strip() == "job.batch/waited condition met"


def test_delete_foreground_waits_for_the_dependents_grace_period_in_virtual_time(cluster: Any) -> None:
    """Deliberately different: the pods' 30 s grace period passes only when the clock is advanced."""
    kubectl(cluster, "apply", "-f", "-", input_=JOB % ("fg", ""))
    kb(cluster, "advance", "1s")
    waiting = subprocess.Popen([KUBECTL, "delete", "job", "fg", "--cascade=foreground", "--wait"],
                               env=cluster.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with pytest.raises(subprocess.TimeoutExpired):
        waiting.wait(timeout=3)
    job = json.loads(kubectl(cluster, "get", "job", "fg", "-o", "json").stdout)
    assert job["metadata"]["finalizers"] == ["foregroundDeletion"]
    kb(cluster, "advance", "40s")
    out, err = waiting.communicate(timeout=TIMEOUT)
    assert waiting.returncode == 0, err
    assert out.strip() == 'job.batch "fg" deleted'


def test_delete_orphan_keeps_the_pods_without_owner(cluster: Any) -> None:
    kubectl(cluster, "apply", "-f", "-", input_=JOB % ("orphaner", ""))
    kubectl(cluster, "delete", "job", "orphaner", "--cascade=orphan", "--wait")
    pods = json.loads(kubectl(cluster, "get", "pods", "-l", "job-name=orphaner", "-o", "json").stdout)
    assert pods["items"] and all(not p["metadata"].get("ownerReferences") for p in pods["items"])


def test_apply_prune(cluster: Any, tmp_path: Path) -> None:
    """kubectl's default prune set (k8s.io/kubectl ``pkg/util/prune/prune.go``) names kinds kbatch
    does not serve (ReplicationController, Ingress, apps/v1; Endpoints is served since session 48, so
    kubectl gets past it): deliberately different, as any API server without them;
    ``--prune-allowlist`` prunes."""
    both = tmp_path / "both.yaml"
    both.write_text("".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {n}, labels: {{app: pruned}}}}\n"
        for n in ("keep", "drop")))
    kubectl(cluster, "apply", "-f", str(both))
    one = tmp_path / "one.yaml"
    one.write_text(both.read_text().split("---\n")[1])
    default = kubectl(cluster, "apply", "-f", str(one), "-l", "app=pruned", "--prune", check=False)
    assert default.returncode == 1
    assert ('invalid resource /v1, Kind=ReplicationController, Namespaced=true: no matches for kind '
            '"ReplicationController"' in default.stderr)
    pruned = kubectl(cluster, "apply", "-f", str(one), "-l", "app=pruned", "--prune",
                     "--prune-allowlist=core/v1/ConfigMap")
    assert pruned.stdout.splitlines() == ["configmap/keep unchanged", "configmap/drop pruned"]


def test_view_and_set_last_applied(cluster: Any, tmp_path: Path) -> None:
    config = tmp_path / "cm.yaml"
    config.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lastapplied}\ndata: {k: v}\n")
    kubectl(cluster, "create", "configmap", "lastapplied", "--from-literal=k=v")
    refused = kubectl(cluster, "apply", "set-last-applied", "-f", str(config), check=False)
    assert "no last-applied-configuration annotation found on resource: lastapplied" in refused.stderr
    kubectl(cluster, "apply", "set-last-applied", "-f", str(config), "--create-annotation")
    viewed = kubectl(cluster, "apply", "view-last-applied", "configmap", "lastapplied", "-o", "json")
    assert json.loads(viewed.stdout)["data"] == {"k": "v"}


def test_kustomize_apply_and_delete(cluster: Any, tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB % ("kustomized", ""))
    (tmp_path / "kustomization.yaml").write_text(
        "namePrefix: dev-\nlabels: [{pairs: {env: dev}}]\nresources: [job.yaml]\n"
        "configMapGenerator: [{name: settings, literals: [a=b]}]\n")
    applied = kubectl(cluster, "apply", "-k", str(tmp_path)).stdout.splitlines()
    assert applied[1] == "job.batch/dev-kustomized created"
    assert applied[0].startswith("configmap/dev-settings-")
    kubectl(cluster, "delete", "-k", str(tmp_path))


def test_create_job_from_a_cronjob(cluster: Any) -> None:
    kubectl(cluster, "create", "cronjob", "nightly", "--image=busybox", "--schedule=0 0 * * *", "--", "true")
    kubectl(cluster, "create", "job", "by-hand", "--from=cronjob/nightly")
    job = json.loads(kubectl(cluster, "get", "job", "by-hand", "-o", "json").stdout)
    assert job["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"] == "manual"
    assert [(o["kind"], o["name"], o["controller"]) for o in job["metadata"]["ownerReferences"]] == [
        ("CronJob", "nightly", True)]


def test_get_watch_only_with_watch_events(cluster: Any) -> None:
    kubectl(cluster, "create", "configmap", "watched")
    watching = Follower(cluster, "get", "configmap", "--watch-only", "--output-watch-events")
    try:
        for attempt in range(5):  # until the watch has started: an earlier change is not shown
            kubectl(cluster, "label", "configmap", "watched", f"a={attempt}", "--overwrite")
            lines = watching.lines_within(2.0)
            if lines:
                break
    finally:
        watching.proc.kill()
        watching.finish()
    assert lines[0].split() == ["EVENT", "NAME", "DATA", "AGE"]
    assert lines[1].split()[:2] == ["MODIFIED", "watched"]


def test_cp_needs_exec_which_the_simulated_kubelet_refuses(cluster: Any) -> None:
    kubectl(cluster, "run", "copied", "--image=busybox", "--restart=Never", "--", "sleep", "3600")
    kb(cluster, "advance", "1s")
    out = kubectl(cluster, "cp", "copied:/etc/hostname", "/dev/null", check=False)
    assert out.returncode == 1
    assert "error dialing backend: the kubelet of node" in out.stderr and "runs no containers" in out.stderr
