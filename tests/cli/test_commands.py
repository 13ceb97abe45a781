"""Every CLI command through the real entry point, on a local state directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PI = str(EXAMPLES / "pi-job.yaml")


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip().splitlines()]


def test_missing_state_dir_is_created_empty(kb: Any) -> None:
    res = kb("get", "nodes")
    assert res.code == 0 and "No resources found" in res.err
    assert kb.state.is_dir()


def test_pi_job_runs_to_completion_in_virtual_time(kb: Any) -> None:
    assert kb.ok("nodes", "add", "--count", "2").splitlines() == ["node/node-0 created",
                                                                  "node/node-1 created"]
    assert kb.ok("apply", "-f", PI).strip() == "job.batch/pi created"
    assert kb.ok("apply", "-f", PI).strip() == "job.batch/pi unchanged"
    rows = _rows(kb.ok("get", "jobs"))
    assert rows[0] == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    assert rows[1][:3] == ["pi", "Running", "0/1"]
    assert kb.ok("advance", "1m").startswith("advanced 1m to 2025-01-01T00:01:00Z")
    assert _rows(kb.ok("get", "job", "pi"))[1][:3] == ["pi", "Complete", "1/1"]
    pods = _rows(kb.ok("get", "po", "-o", "wide"))
    assert pods[0][:5] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"] and pods[1][2] == "Completed"
    assert kb.ok("wait", "job/pi", "--for", "condition=Complete", "--timeout", "10s").strip() == \
        "job.batch/pi condition met"
    described = kb.ok("describe", "job", "pi")
    assert "Pods Statuses:" in described and "SuccessfulCreate" in described


def test_wait_advances_virtual_time_and_times_out(kb: Any) -> None:
    kb.ok("nodes", "add")
    kb.ok("create", "-f", "-", input_=json.dumps({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "slow"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "c", "image": "busybox", "command": ["sleep", "300"]}]}}}}))
    res = kb("wait", "job/slow", "--for", "condition=Complete", "--timeout", "1m")
    assert res.code == 1 and res.err.strip() == "error: timed out waiting for the condition on jobs/slow"
    assert kb.ok("wait", "job/slow", "--for=condition=Complete", "--timeout", "10m").strip() == \
        "job.batch/slow condition met"
    assert json.loads(kb.ok("get", "job", "slow", "-o", "json"))["status"]["succeeded"] == 1


def test_wait_for_a_jsonpath_value_as_kubectl(kb: Any) -> None:
    """``--for=jsonpath=EXPR=VALUE`` and ``--for=jsonpath=EXPR`` (kubectl ``pkg/cmd/wait``): one value
    found, compared as Go prints it; without a value, found at all."""
    kb.ok("nodes", "add")
    kb.ok("create", "-f", "-", input_=json.dumps({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "slow"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "c", "image": "busybox", "command": ["sleep", "300"]}]}}}}))
    res = kb("wait", "job/slow", "--for=jsonpath={.status.succeeded}=1", "--timeout", "1m")
    assert res.code == 1 and res.err.strip() == "error: timed out waiting for the condition on jobs/slow"
    assert kb.ok("wait", "job/slow", "--for=jsonpath=.status.active=1", "--timeout", "1s").strip() == \
        "job.batch/slow condition met"
    assert kb.ok("wait", "job/slow", "--for=jsonpath={.status.succeeded}='1'", "--timeout", "10m").strip() \
        == "job.batch/slow condition met"
    assert json.loads(kb.ok("get", "job", "slow", "-o", "json"))["status"]["succeeded"] == 1
    assert kb.ok("wait", "job/slow", "--for=jsonpath={.status.completionTime}").strip() == \
        "job.batch/slow condition met"
    filtered = '--for=jsonpath={.status.conditions[?(@.type=="Complete")].status}=True'
    assert kb.ok("wait", "job/slow", filtered).strip() == "job.batch/slow condition met"


@pytest.mark.parametrize(("condition", "message"), [
    ("jsonpath={.a}=1=2", "error: jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or "
                          "--for=jsonpath='{.status.readyReplicas}'"),
    ("jsonpath={.a}=", "error: jsonpath wait has to have a value after equal sign, like "
                       "--for=jsonpath='{.status.readyReplicas}'=3"),
    ("jsonpath={.status.conditions[*].type}=Complete",
     "error: given jsonpath expression matches more than one value"),
    ("jsonpath={.status.conditions[?(@}=x", "error: unclosed array expect ]: '.status.conditions[?(@'"),
    ("jsonpath={.spec.template}=x",
     "error: jsonpath leads to a nested object or list which is not supported"),
])
def test_a_jsonpath_wait_kubectl_refuses_is_refused(kb: Any, condition: str, message: str) -> None:
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", PI)
    kb.ok("advance", "1m")  # Complete: two conditions (SuccessCriteriaMet, Complete)
    res = kb("wait", "job/pi", f"--for={condition}", "--timeout", "10s")
    assert res.code == 1 and res.err.strip() == message


def test_output_formats(kb: Any) -> None:
    kb.ok("apply", "-f", PI)
    one = json.loads(kb.ok("get", "job", "pi", "-o", "json"))
    assert one["kind"] == "Job" and one["metadata"]["name"] == "pi"
    listed = json.loads(kb.ok("get", "jobs", "-o", "json"))
    assert listed["kind"] == "List" and len(listed["items"]) == 1
    empty = json.loads(kb.ok("get", "cronjobs", "-o", "json"))
    assert empty == {"apiVersion": "v1", "items": [], "kind": "List", "metadata": {"resourceVersion": ""}}
    assert "name: pi" in kb.ok("get", "job/pi", "-o", "yaml")
    assert kb.ok("get", "jobs", "-o", "name").strip() == "job.batch/pi"


def test_namespaces(kb: Any) -> None:
    kb.ok("create", "-f", "-", input_=json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                  "metadata": {"name": "team"}}))
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    kb.ok("apply", "-n", "team", "-f", "-", input_=json.dumps(pod))
    assert "No resources found in default namespace." in kb("get", "pods").err
    assert _rows(kb.ok("get", "pods", "-n", "team"))[1][0] == "p"
    rows = _rows(kb.ok("get", "pods", "-A"))
    assert rows[0][:2] == ["NAMESPACE", "NAME"] and rows[1][:2] == ["team", "p"]


def test_delete_cascade(kb: Any) -> None:
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", str(EXAMPLES / "pod-failure-policy.yaml"))
    assert len(_rows(kb.ok("get", "pods"))) == 3
    assert kb.ok("delete", "job", "job-pod-failure-policy", "--cascade", "orphan").strip() == \
        'job.batch "job-pod-failure-policy" deleted'
    assert len(_rows(kb.ok("get", "pods"))) == 3  # orphaned pods stay
    kb.ok("apply", "-f", str(EXAMPLES / "indexed-job.yaml"))
    kb.ok("delete", "-f", str(EXAMPLES / "indexed-job.yaml"))
    names = [r[0] for r in _rows(kb.ok("get", "pods"))[1:]]
    assert not any(n.startswith("sample-job") for n in names)
    assert kb("delete", "job", "nope").code == 1
    assert kb("delete", "job", "x", "--cascade", "sideways").code == 1


def test_patch_metadata_spec_and_status(kb: Any) -> None:
    kb.ok("apply", "-f", PI)
    assert kb.ok("patch", "job", "pi", "--type", "merge", "-p",
                 '{"metadata":{"labels":{"team":"a"}}}').strip() \
        == "job.batch/pi patched"
    kb.ok("patch", "job/pi", "--type", "json", "-p",
          '[{"op":"replace","path":"/spec/parallelism","value":0}]')
    kb.ok("patch", "job", "pi", "-p", '{"metadata":{"annotations":{"note":"x"}}}')  # strategic (default)
    job = json.loads(kb.ok("get", "job", "pi", "-o", "json"))
    assert job["metadata"]["labels"]["team"] == "a" and job["spec"]["parallelism"] == 0
    assert job["metadata"]["annotations"]["note"] == "x"
    kb.ok("create", "-f", "-", input_=json.dumps({"apiVersion": "v1", "kind": "Pod",
                                                  "metadata": {"name": "p"},
                                                  "spec": {"containers": [{"name": "c", "image": "b"}]}}))
    kb.ok("patch", "pod", "p", "--subresource", "status", "--type", "merge",
          "-p", '{"status":{"conditions":[{"type":"ConfigIssue","status":"True"}]}}')
    pod = json.loads(kb.ok("get", "pod", "p", "-o", "json"))
    assert any(c["type"] == "ConfigIssue" for c in pod["status"]["conditions"])
    assert kb("patch", "job", "pi", "--type", "bogus", "-p", "{}").code == 1


def test_faults_and_nodes(kb: Any) -> None:
    kb.ok("nodes", "add", "--count", "1", "--gpu", "8", "--label", "zone=a", "--taint",
          "dedicated=gpu:NoSchedule")
    node = json.loads(kb.ok("get", "node", "node-0", "-o", "json"))
    assert node["metadata"]["labels"]["zone"] == "a" and node["spec"]["taints"][0]["key"] == "dedicated"
    assert node["status"]["capacity"]["nvidia.com/gpu"] == "8"
    kb.ok("node", "taint", "node-0", "dedicated-")
    kb.ok("create", "-f", "-", input_=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "victim"},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "b", "command": ["sleep",
                                                                                                  "100"]}]}}))
    kb.ok("condition", "pod", "victim", "ConfigIssue", "--reason", "BadImage")
    pod = json.loads(kb.ok("get", "pod", "victim", "-o", "json"))
    assert any(c["type"] == "ConfigIssue" and c["status"] == "True" for c in pod["status"]["conditions"])
    kb.ok("fail", "pod", "victim", "--exit-code", "42")
    pod = json.loads(kb.ok("get", "pod", "victim", "-o", "json"))
    assert pod["status"]["phase"] == "Failed"
    assert pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 42
    kb.ok("node", "down", "node-0")
    assert _rows(kb.ok("get", "nodes"))[1][1] in ("NotReady", "Unknown")
    kb.ok("advance", "1m")  # the node stays down: its kubelet does not post Ready again
    assert _rows(kb.ok("get", "nodes"))[1][1] in ("NotReady", "Unknown")
    kb.ok("node", "up", "node-0")
    assert _rows(kb.ok("get", "nodes"))[1][1] == "Ready"


def test_fail_pod_refuses_a_completed_pod(kb: Any) -> None:
    """A finished container cannot be made to fail: ``kbatch fail pod`` says so (kubectl exec's check
    in ``pkg/cmd/exec/exec.go``: ``cannot exec into a container in a completed pod; current phase is
    …``) instead of reporting ``failed`` while the pod stays ``Succeeded``."""
    kb.ok("nodes", "add")
    kb.ok("create", "-f", "-", input_=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "done"},
        "spec": {"restartPolicy": "Never",
                 "containers": [{"name": "c", "image": "b", "command": ["true"]}]}}))
    kb.ok("advance", "5s")
    assert json.loads(kb.ok("get", "pod", "done", "-o", "json"))["status"]["phase"] == "Succeeded"
    res = kb("fail", "pod", "done", "--exit-code", "3")
    assert res.code == 1 and res.out == ""
    assert res.err.strip() == ("Error from server (BadRequest): cannot fail a container in a completed pod; "
                               "current phase is Succeeded")
    assert json.loads(kb.ok("get", "pod", "done", "-o", "json"))["status"]["phase"] == "Succeeded"


def test_evict_pod(kb: Any) -> None:
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", str(EXAMPLES / "pod-failure-policy.yaml"))
    pod = _rows(kb.ok("get", "pods", "--no-headers"))[0][0]
    assert kb.ok("evict", "pod", pod).strip() == f"pod/{pod} evicted"
    kb.ok("advance", "1m")
    job = json.loads(kb.ok("get", "job", "job-pod-failure-policy", "-o", "json"))
    assert job["status"].get("failed", 0) == 0  # DisruptionTarget is ignored by the policy


def test_logs(kb: Any) -> None:
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", str(EXAMPLES / "indexed-job-with-service.yaml"))
    kb.ok("advance", "1s")
    pods = json.loads(kb.ok("get", "pods", "-l", "batch.kubernetes.io/job-completion-index=1", "-o", "json"))
    name = pods["items"][0]["metadata"]["name"]
    assert kb.ok("logs", name).strip() == "worker 1"


def test_logs_read_configmap_and_secret_env_as_the_kubelet_ran_it(kb: Any, tmp_path: Path) -> None:
    """``kbatch logs`` (and ``kubectl logs``) print what the container's command printed with the
    environment the kubelet gave it: ``envFrom`` and ``configMapKeyRef``/``secretKeyRef`` included
    (k8s.io/kubernetes ``pkg/kubelet/kubelet_pods.go`` ``makeEnvironmentVariables``)."""
    manifest = tmp_path / "env.yaml"
    manifest.write_text("""\
apiVersion: v1
kind: ConfigMap
metadata: {name: train}
data: {EPOCHS: "3", lr: "0.1"}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {token: abc}
---
apiVersion: v1
kind: Pod
metadata: {name: env}
spec:
  restartPolicy: Never
  containers:
  - name: c
    image: busybox
    command: [sh, -c, 'echo epochs $EPOCHS lr $LR token $TOKEN']
    envFrom: [{configMapRef: {name: train}}]
    env:
    - {name: LR, valueFrom: {configMapKeyRef: {name: train, key: lr}}}
    - {name: TOKEN, valueFrom: {secretKeyRef: {name: creds, key: token}}}
""")
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", str(manifest))
    kb.ok("advance", "5s")
    assert kb.ok("logs", "env").strip() == "epochs 3 lr 0.1 token abc"


def test_events(kb: Any) -> None:
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", PI)
    rows = _rows(kb.ok("events"))
    assert rows[0] == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert any("SuccessfulCreate" in r for r in rows[1:])
    only = _rows(kb.ok("events", "--for", "job/pi"))
    assert all(r[3] == "job/pi" for r in only[1:])


def test_snapshot_save_restore_and_reset(kb: Any, tmp_path: Path) -> None:
    kb.ok("nodes", "add", "--count", "3")
    snap = tmp_path / "cluster.snap"
    assert "snapshot saved" in kb.ok("snapshot", "save", str(snap))
    kb.ok("reset")
    assert kb("get", "nodes").out == ""
    kb.ok("snapshot", "restore", str(snap))
    assert len(_rows(kb.ok("get", "nodes"))) == 4
    bad = tmp_path / "bad.snap"
    bad.write_text("nope")
    res = kb("snapshot", "restore", str(bad))
    assert res.code == 1 and "not a kbatch snapshot" in res.err


def test_trace_is_deterministic(kb: Any, tmp_path: Path) -> None:
    digests = []
    for run in ("a", "b"):
        kb.state = tmp_path / run
        kb.ok("nodes", "add", "--count", "2")
        kb.ok("apply", "-f", PI)
        kb.ok("advance", "30s")
        digests.append(kb.ok("trace", "--digest").strip())
        assert kb.ok("trace").count("\n") > 3
    assert digests[0] == digests[1] and len(digests[0]) == 64


def test_controllers_listing_and_selection(kb: Any) -> None:
    out = kb.ok("controllers").splitlines()
    assert out[0].split() == ["NAME", "DEFAULT", "ENABLED", "DESCRIPTION"]
    assert any(line.split()[:3] == ["job", "on", "yes"] for line in out)
    res = kb("--controllers", "job,nonsense", "get", "pods")
    assert res.code == 1 and "nonsense" in res.err and "known controllers" in res.err
    kb.ok("--controllers", "job", "apply", "-f", PI)  # no scheduler: the pod stays Pending
    kb.ok("--controllers", "job", "nodes", "add")
    assert _rows(kb.ok("--controllers", "job", "get", "pods"))[1][2] == "Pending"


@pytest.mark.parametrize(("args", "fragment"), [
    (("get", "widgets"), 'error: the server doesn\'t have a resource type "widgets"'),
    (("get", "pod", "missing"), 'Error from server (NotFound): pods "missing" not found'),
    (("apply", "-f", "/no/such/file.yaml"), 'error: the path "/no/such/file.yaml" does not exist'),
    (("advance", "soon"), "error: DURATION: invalid duration"),
    (("advance",), "error: give a DURATION"),
    (("get", "pods", "-o", "toml"), "error: unable to match a printer"),
    (("wait", "job/x", "--for", "ready"), 'error: unrecognized condition: "ready"'),
    (("kubeconfig",), "error: no kubeconfig"),
    (("frobnicate",), "error: No such command"),
])
def test_user_mistakes_are_one_line_and_exit_1(kb: Any, args: tuple[str, ...], fragment: str) -> None:
    res = kb(*args)
    assert res.code == 1, res
    assert fragment in res.err
    assert "Traceback" not in res.err + res.out
    assert len([line for line in res.err.splitlines() if line.strip()]) <= 2


def test_invalid_object_reports_the_field(kb: Any) -> None:
    res = kb("create", "-f", "-", input_=json.dumps({"apiVersion": "batch/v1", "kind": "Job",
                                                     "metadata": {"name": "bad"},
                                                     "spec": {"parallelism": -1, "template": {"spec": {
                                                         "restartPolicy": "Never",
                                                         "containers": [{"name": "c", "image": "i"}]}}}}))
    assert res.code == 1 and "spec.parallelism" in res.err


def test_help_everywhere(kb: Any) -> None:
    for args in (("--help",), ("get", "--help"), ("nodes", "add", "--help"), ("fail", "pod", "--help"),
                 ("node", "taint", "--help"), ("snapshot", "save", "--help"), ("serve", "--help")):
        assert "Usage" in kb.ok(*args)


def test_every_example_applies_and_settles(kb: Any) -> None:
    kb.ok("nodes", "add", "--count", "2", "--gpu", "8")
    out = kb.ok("apply", "-f", str(EXAMPLES))
    assert sorted(line.rsplit(" ", 1)[1] for line in out.splitlines()) == ["created"] * 10
    again = kb.ok("apply", "-f", str(EXAMPLES))
    # the node manifest carries a status, which the server keeps to the status subresource: like
    # kubectl, apply keeps sending it (and says configured); everything else is unchanged
    assert again.count("unchanged") == 9 and "node/kwok-node-0 configured" in again
    kb.ok("advance", "5m")
    jobs = {r[0]: r[1] for r in _rows(kb.ok("get", "jobs", "--no-headers"))}
    assert jobs["pi"] == "Complete" and jobs["sample-job"] == "Complete" and jobs["myjob"] == "Complete"
    assert _rows(kb.ok("get", "jobsets", "--no-headers"))[0][:2] == ["training", "Completed"]


def test_apply_configures_a_changed_manifest_and_dry_runs(kb: Any, tmp_path: Path) -> None:
    kb.ok("apply", "-f", PI)
    changed = tmp_path / "pi.yaml"
    changed.write_text((EXAMPLES / "pi-job.yaml").read_text().replace("backoffLimit: 6", "backoffLimit: 3"))
    assert kb.ok("apply", "-f", str(changed), "--dry-run=server").strip() == \
        "job.batch/pi configured (server dry run)"
    assert json.loads(kb.ok("get", "job", "pi", "-o", "json"))["spec"]["backoffLimit"] == 6
    assert kb.ok("apply", "-f", str(changed)).strip() == "job.batch/pi configured"
    assert json.loads(kb.ok("get", "job", "pi", "-o", "json"))["spec"]["backoffLimit"] == 3
    res = kb("create", "-f", PI)
    assert res.code == 1 and 'Error from server (AlreadyExists): jobs.batch "pi" already exists' in res.err


@pytest.mark.parametrize(("selection", "scheduled", "running"), [
    ("*", True, True),
    ("*,-kubelet", True, False),
    ("job,garbage-collector", False, False),
])
def test_controller_selection_from_the_environment(kb: Any, monkeypatch: pytest.MonkeyPatch, selection: str,
                                                   scheduled: bool, running: bool) -> None:
    monkeypatch.setenv("KBATCH_CONTROLLERS", selection)
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", PI)
    pod = json.loads(kb.ok("get", "pods", "-o", "json"))["items"][0]
    assert bool(pod["spec"].get("nodeName")) is scheduled
    assert (pod["status"].get("phase") == "Running") is running


def test_advance_until_idle_ends_when_only_housekeeping_is_left(kb: Any) -> None:
    # pod GC's 20 s sweep runs forever (as upstream); it must not make --until-idle run to its limit
    kb.ok("nodes", "add")
    assert kb.ok("advance", "--until-idle").startswith("advanced 0s")
    kb.ok("apply", "-f", PI)
    out = kb.ok("advance", "--until-idle")
    assert out.startswith("advanced ") and "stopped at the limit" not in out
    assert _rows(kb.ok("get", "job", "pi"))[1][:3] == ["pi", "Complete", "1/1"]


def test_nodes_add_refuses_a_capacity_that_is_not_a_quantity(kb: Any) -> None:
    """``--cpu abc`` is one client-side line in pflag's words for a flag it cannot parse, not the Node
    model's multi-line validation dump; nothing is created."""
    res = kb("nodes", "add", "--cpu", "abc")
    assert res.code == 1 and res.out == ""
    assert res.err == ('error: invalid argument "abc" for "--cpu" flag: quantities must match the regular '
                       "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n")
    res = kb("nodes", "add", "--memory", "lots")
    assert res.code == 1 and res.err.startswith('error: invalid argument "lots" for "--memory" flag: ')
    assert kb.ok("get", "nodes", "-o", "name") == ""
    kb.ok("nodes", "add", "--cpu", "500m", "--memory", "1.5Gi")
    node = json.loads(kb.ok("get", "node", "node-0", "-o", "json"))
    assert node["status"]["capacity"]["cpu"] == "500m" and node["status"]["capacity"]["memory"] == "1536Mi"


def test_describe_shows_the_events_of_this_object_not_of_an_earlier_one_of_the_same_name(kb: Any) -> None:
    """kubectl describe searches events by involvedObject name, namespace, kind and uid
    (k8s.io/kubectl pkg/describe searchEvents): a Job deleted and created again under the same name
    shows only the new Job's events."""
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", PI)
    kb.ok("advance", "1m")
    kb.ok("delete", "job", "pi")
    kb.ok("advance", "1m")
    kb.ok("apply", "-f", PI)
    page = kb.ok("describe", "job", "pi")
    events = page[page.index("Events:"):].splitlines()[3:]
    assert [line.split()[1] for line in events] == ["SuccessfulCreate"], page
