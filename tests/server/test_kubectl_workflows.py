"""A batch user's day-to-day kubectl commands (the real kubectl, v1.32 here) against ``kbatch serve``.

Each test is one workflow, checked against what kube-apiserver (and kubectl's own client-side code,
k8s.io/kubectl ``pkg/cmd/...``) would answer. Virtual time moves only through ``kbatch advance``, so a
``kubectl wait`` is started first and the clock moved while it waits. Deliberate differences are
listed in docs/cli.md ("kubectl and kbatch").
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta
from typing import Any

import pytest

from kbatch.cli import main
from tests.server.test_kubectl import KUBECTL, TIMEOUT, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")


def kb(served: Any, *args: str) -> None:
    try:
        main(["--server", served.url, *args])
    except SystemExit as exit_:
        assert not exit_.code, args


def get(served: Any, *args: str) -> Any:
    return json.loads(kubectl(served, "get", *args, "-o", "json").stdout)


@pytest.fixture(scope="module")
def cluster(served: Any) -> Any:
    kb(served, "nodes", "add", "--count", "2")
    return served


def test_create_job_from_cronjob_is_a_manual_instantiation(cluster: Any) -> None:
    # kubectl pkg/cmd/create/create_job.go createJobFromCronJob: the annotation, a controller
    # ownerReference to the CronJob, the CronJob's job template as the spec
    kubectl(cluster, "create", "cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *",
            "--", "echo", "night")
    kubectl(cluster, "create", "job", "nightly-manual", "--from=cronjob/nightly")
    cj, job = get(cluster, "cronjob", "nightly"), get(cluster, "job", "nightly-manual")
    assert job["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"] == "manual"
    assert job["metadata"]["ownerReferences"] == [{
        "apiVersion": "batch/v1", "kind": "CronJob", "name": "nightly", "uid": cj["metadata"]["uid"],
        "controller": True}]
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["command"] == ["echo", "night"] and container["image"] == "busybox"


CRONJOB_WITH_EMBEDDED_FIELDS = {
    "apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "rich"},
    "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": {"template": {"spec": {
        "restartPolicy": "Never",
        "volumes": [{"name": "root", "hostPath": {"path": "/"}},
                    {"name": "cfg", "configMap": {"name": "settings"}}],
        "containers": [{
            "name": "c", "image": "busybox", "command": ["echo", "rich"],
            "env": [{"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "mode"}}}],
            "readinessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 5}}]}}}}}}


def test_create_job_from_cronjob_keeps_the_template_kubectl_sends_as_protobuf(cluster: Any) -> None:
    # kubectl's typed client sends the Job as protobuf; Go's embedded structs without a JSON name
    # (core/v1 types.go: Volume.VolumeSource, Probe.ProbeHandler, ConfigMapKeySelector's
    # LocalObjectReference) are nested messages there but inline fields in JSON
    kubectl(cluster, "create", "-f", "-", input_=json.dumps(CRONJOB_WITH_EMBEDDED_FIELDS))
    kubectl(cluster, "create", "job", "rich-manual", "--from=cronjob/rich")
    spec = get(cluster, "job", "rich-manual")["spec"]["template"]["spec"]
    assert spec["volumes"] == [
        {"name": "root", "hostPath": {"path": "/", "type": ""}},
        {"name": "cfg", "configMap": {"name": "settings", "defaultMode": 420}}]
    container = spec["containers"][0]
    assert container["env"][0]["valueFrom"]["configMapKeyRef"] == {"name": "settings", "key": "mode"}
    assert container["readinessProbe"]["exec"] == {"command": ["true"]}


def test_debug_node_pod_mounts_the_host_root(cluster: Any) -> None:
    # kubectl pkg/cmd/debug: the node debugging pod mounts the host's / as a hostPath volume
    out = kubectl(cluster, "debug", "node/node-0", "--image=busybox", "--profile=general")
    assert "Warning: unknown field" not in out.stderr
    pods = [p for p in get(cluster, "pods")["items"] if p["metadata"]["name"].startswith("node-debugger-")]
    assert pods and pods[0]["spec"]["volumes"][0]["hostPath"]["path"] == "/"
    assert pods[0]["spec"]["nodeName"] == "node-0"


def test_create_job_with_a_command(cluster: Any) -> None:
    kubectl(cluster, "create", "job", "hello", "--image=busybox", "--", "echo", "hello", "world")
    job = get(cluster, "job", "hello")
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["name"] == "hello" and container["command"] == ["echo", "hello", "world"]
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"


def _background(served: Any, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([KUBECTL, *args], env=served.env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=TIMEOUT)
    return proc.returncode, out, err


def test_wait_for_complete_jsonpath_and_delete_while_the_clock_moves(cluster: Any) -> None:
    kubectl(cluster, "create", "job", "sleeper", "--image=busybox", "--", "sleep", "60")
    complete = _background(cluster, "wait", "--for=condition=complete", "job/sleeper", "--timeout=20s")
    succeeded = _background(cluster, "wait", "--for=jsonpath={.status.succeeded}=1", "job/sleeper",
                            "--timeout=20s")
    kb(cluster, "advance", "2m")
    assert _finish(complete)[:2] == (0, "job.batch/sleeper condition met\n")
    assert _finish(succeeded)[:2] == (0, "job.batch/sleeper condition met\n")
    gone = _background(cluster, "wait", "--for=delete", "job/sleeper", "--timeout=20s")
    kubectl(cluster, "delete", "job", "sleeper", "--wait=false")
    kb(cluster, "advance", "1m")
    code, _, err = _finish(gone)
    assert code == 0, err


def test_wait_times_out_when_the_clock_does_not_move(cluster: Any) -> None:
    kubectl(cluster, "create", "job", "stuck", "--image=busybox", "--", "sleep", "3600")
    out = kubectl(cluster, "wait", "--for=condition=complete", "job/stuck", "--timeout=1s", check=False)
    assert out.returncode == 1
    assert out.stderr == "error: timed out waiting for the condition on jobs/stuck\n"


def test_logs_of_a_job_by_selector_with_prefix_and_tail(cluster: Any) -> None:
    kubectl(cluster, "create", "job", "talker", "--image=busybox", "--", "sh", "-c", "echo one; echo two")
    kb(cluster, "advance", "30s")
    assert kubectl(cluster, "logs", "job/talker").stdout == "one\ntwo\n"
    pod = get(cluster, "pods", "-l", "job-name=talker")["items"][0]["metadata"]["name"]
    prefixed = kubectl(cluster, "logs", "-l", "job-name=talker", "--prefix").stdout
    assert prefixed == f"[pod/{pod}/talker] one\n[pod/{pod}/talker] two\n"
    # tailLines and limitBytes (the kubelet cuts the log: pkg/kubelet/kuberuntime/logs)
    assert kubectl(cluster, "logs", "job/talker", "--tail=1").stdout == "two\n"
    assert kubectl(cluster, "logs", "job/talker", "--tail=0").stdout == ""
    assert kubectl(cluster, "logs", "job/talker", "--limit-bytes=2").stdout == "on"
    assert kubectl(cluster, "logs", "job/talker", "-f").stdout == "one\ntwo\n"  # it has ended


def test_logs_previous_without_a_restart_is_the_kubelets_400(cluster: Any) -> None:
    # pkg/kubelet/kubelet_pods.go validateContainerLogStatus: no lastState.terminated, no previous run
    kubectl(cluster, "create", "job", "once", "--image=busybox", "--", "echo", "once")
    kb(cluster, "advance", "30s")
    pod = get(cluster, "pods", "-l", "job-name=once")["items"][0]["metadata"]["name"]
    out = kubectl(cluster, "logs", pod, "--previous", check=False)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr == (f'Error from server (BadRequest): previous terminated container "once" in pod '
                          f'"{pod}" not found\n')


def test_logs_previous_after_a_restart(cluster: Any) -> None:
    kubectl(cluster, "create", "-f", "-", input_=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "flaky"},
        "spec": {"restartPolicy": "OnFailure", "containers": [
            {"name": "c", "image": "busybox", "command": ["sh", "-c", "echo try; exit 1"]}]}}))
    kb(cluster, "advance", "40s")
    assert get(cluster, "pod", "flaky")["status"]["containerStatuses"][0]["restartCount"] >= 1
    assert kubectl(cluster, "logs", "flaky", "--previous").stdout == "try\n"


def test_events_for_a_job(cluster: Any) -> None:
    kubectl(cluster, "create", "job", "evented", "--image=busybox", "--", "echo", "x")
    kb(cluster, "advance", "30s")
    lines = kubectl(cluster, "events", "--for", "job/evented").stdout.splitlines()
    assert lines[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    reasons = [line.split()[2] for line in lines[1:]]
    assert reasons == ["SuccessfulCreate", "Completed"]
    assert all(" Job/evented " in line for line in lines[1:])


def test_get_pods_printing_options(cluster: Any) -> None:
    kubectl(cluster, "create", "job", "printed", "--image=busybox", "--", "sleep", "3600")
    kb(cluster, "advance", "5s")
    pod = get(cluster, "pods", "-l", "job-name=printed")["items"][0]["metadata"]["name"]
    cols = kubectl(cluster, "get", "pods", "-l", "job-name=printed",
                   "-o", "custom-columns=NAME:.metadata.name,PHASE:.status.phase").stdout
    assert [line.split() for line in cols.splitlines()] == [["NAME", "PHASE"], [pod, "Running"]]
    assert kubectl(cluster, "get", "pods", "-l", "job-name=printed",
                   "-o", "jsonpath={.items[*].spec.nodeName}").stdout in ("node-0", "node-1")
    assert kubectl(cluster, "get", "pods", "-l", "job-name=printed", "-L", "job-name").stdout \
        .splitlines()[0].split()[-1] == "JOB-NAME"
    assert "job-name=printed" in kubectl(cluster, "get", "pod", pod, "--show-labels").stdout
    running = kubectl(cluster, "get", "pods", "--field-selector", "status.phase=Running", "-o", "name").stdout
    assert f"pod/{pod}" in running.split()
    by_start = kubectl(cluster, "get", "pods", "--sort-by=.status.startTime", "-o", "name").stdout.split()
    assert set(by_start) == {f"pod/{p['metadata']['name']}" for p in get(cluster, "pods")["items"]}
    chunked = kubectl(cluster, "get", "pods", "--chunk-size=1", "-o", "name").stdout.split()
    assert chunked == kubectl(cluster, "get", "pods", "-o", "name").stdout.split()


def test_get_jobs_watch_json_prints_the_current_objects(cluster: Any) -> None:
    out = subprocess.run([KUBECTL, "get", "jobs", "-w", "-o", "json", "--request-timeout=2s"],
                         env=cluster.env(), capture_output=True, text=True, timeout=TIMEOUT)
    names = {obj["metadata"]["name"] for obj in _json_stream(out.stdout)}
    assert {"hello", "printed"} <= names


def _json_stream(text: str) -> list[Any]:
    decoder, pos, out = json.JSONDecoder(), 0, []
    while pos < len(text.rstrip()):
        obj, pos = decoder.raw_decode(text, pos)
        out.append(obj)
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


def _running_pod(served: Any, job: str) -> str:
    kubectl(served, "create", "job", job, "--image=busybox", "--", "sleep", "3600")
    kb(served, "advance", "5s")
    return str(get(served, "pods", "-l", f"job-name={job}")["items"][0]["metadata"]["name"])


DIAL = "error dialing backend: the kubelet of node {node} is simulated by kbatch, which runs no containers: "


@pytest.mark.parametrize("args, line", [
    (["exec", "{pod}", "--", "ls"], "Error from server: " + DIAL + "exec into pod {pod} is not supported"),
    (["cp", "{pod}:/etc/hosts", "{tmp}/hosts"],
     "Error from server: " + DIAL + "exec into pod {pod} is not supported"),
    (["attach", "{pod}"], "Error from server: " + DIAL + "attach to pod {pod} is not supported"),
    (["port-forward", "pod/{pod}", ":80"],
     "error: error upgrading connection: " + DIAL + "port forwarding to pod {pod} is not supported"),
])
def test_streaming_commands_fail_as_with_a_kubelet_that_cannot_be_dialed(cluster: Any, tmp_path: Any,
                                                                        args: list[str], line: str) -> None:
    # upstream upgrades pods/exec|attach|portforward to a stream proxied to the kubelet
    # (pkg/registry/core/pod/rest/subresources.go); a kubelet it cannot dial is a 500 without a reason,
    # "error dialing backend: …" (apimachinery pkg/util/proxy/upgradeaware.go): kubectl prints it as
    # "Error from server: …". kbatch's kubelets cannot be dialed either, and the message says why.
    pod = _running_pod(cluster, f"stream-{args[0]}")
    node = get(cluster, "pod", pod)["spec"]["nodeName"]
    out = kubectl(cluster, *(a.format(pod=pod, tmp=tmp_path) for a in args), check=False)
    assert out.returncode == 1
    want = line.format(pod=pod, node=node) + " (see docs/cli.md)"
    assert out.stderr.splitlines()[-1] == want, out.stderr
    assert "Traceback" not in out.stderr


def test_exec_checks_the_request_as_kube_apiserver(cluster: Any) -> None:
    # pkg/registry/core/pod/strategy.go streamLocation: container name, then the pod's node
    pod = _running_pod(cluster, "stream-checks")
    wrong = kubectl(cluster, "exec", pod, "-c", "nope", "--", "ls", check=False)
    assert wrong.stderr == f"Error from server (BadRequest): container nope is not valid for pod {pod}\n"
    kubectl(cluster, "run", "unbound", "--image=busybox", "--restart=Never",
            '--overrides={"spec":{"nodeSelector":{"zone":"nowhere"}}}', "--", "sleep", "100")
    pending = kubectl(cluster, "exec", "unbound", "--", "ls", check=False)
    assert pending.stderr == "Error from server (BadRequest): pod unbound does not have a host assigned\n"
    missing = kubectl(cluster, "exec", "no-such-pod", "--", "ls", check=False)
    assert missing.stderr == 'Error from server (NotFound): pods "no-such-pod" not found\n'


def test_debug_a_pod_adds_an_ephemeral_container(cluster: Any) -> None:
    # kubectl pkg/cmd/debug/debug.go debugByEphemeralContainer: a strategic merge patch of
    # pods/ephemeralcontainers (pkg/registry/core/pod/storage EphemeralContainersREST); without -i it
    # does not wait for the container
    pod = _running_pod(cluster, "debugged")
    out = kubectl(cluster, "debug", pod, "--image=busybox", "--target=debugged", "--profile=general",
                  "--container=dbg")
    assert out.stderr == ""
    assert out.stdout.startswith('Targeting container "debugged".')
    added = get(cluster, "pod", pod)["spec"]["ephemeralContainers"]
    assert [(c["name"], c["image"], c["targetContainerName"]) for c in added] == [
        ("dbg", "busybox", "debugged")]
    again = kubectl(cluster, "debug", pod, "--image=busybox", "--target=nope", "--profile=general",
                    check=False)
    assert again.returncode == 1
    assert again.stderr.endswith(f'The Pod "{pod}" is invalid: '
                                 'spec.ephemeralContainers[1].targetContainerName: Not found: "nope"\n')


def test_debug_runs_the_ephemeral_container_and_logs_read_it(cluster: Any) -> None:
    # the kubelet starts it (kuberuntime_manager.go computePodActions, EphemeralContainersToStart) and
    # reports it in status.ephemeralContainerStatuses; kubectl logs -c reads its run
    pod = _running_pod(cluster, "debug-logs")
    kubectl(cluster, "debug", pod, "--image=busybox", "--profile=general", "--container=hello",
            "--", "sh", "-c", "echo hi; exit 2")
    (status,) = get(cluster, "pod", pod)["status"]["ephemeralContainerStatuses"]
    ended = status["state"]["terminated"]
    assert (status["name"], ended["exitCode"], status["restartCount"]) == ("hello", 2, 0)
    assert kubectl(cluster, "logs", pod, "-c", "hello").stdout == "hi\n"


def test_debug_interactive_falls_back_to_the_log_at_once(cluster: Any) -> None:
    # kubectl pkg/cmd/debug/debug.go handleAttachPod: waitForContainer until the container runs, then
    # attach; kbatch refuses the attach (no stdin stream), so kubectl warns and prints the log
    pod = _running_pod(cluster, "debug-interactive")
    out = kubectl(cluster, "debug", "-i", pod, "--image=busybox", "--profile=general", "--container=shell",
                  "--", "sh", "-c", "echo ready; sleep 600", input_="")
    assert out.stdout == "ready\n"
    assert f"warning: couldn't attach to pod/{pod}, falling back to streaming logs: " in out.stderr
    assert f"runs no containers: attach to pod {pod} is not supported" in out.stderr
    # a container that has already ended: straight to its log (Ephemeral container terminated)
    done = kubectl(cluster, "debug", "-i", pod, "--image=busybox", "--profile=general", "--container=quick",
                   "--", "sh", "-c", "echo done", input_="")
    assert (done.stdout, done.stderr) == ("done\n", "")


def test_job_writes_a_user_makes(cluster: Any) -> None:
    kubectl(cluster, "create", "job", "edited", "--image=busybox", "--", "sleep", "3600")
    # suspend and resume by patch, each patch type (pkg/cmd/patch)
    kubectl(cluster, "patch", "job", "edited", "-p", '{"spec":{"suspend":true}}')
    assert get(cluster, "job", "edited")["spec"]["suspend"] is True
    kubectl(cluster, "patch", "job", "edited", "--type=merge", "-p", '{"spec":{"suspend":false}}')
    kubectl(cluster, "patch", "job", "edited", "--type=json",
            "-p", '[{"op":"replace","path":"/spec/suspend","value":true}]')
    assert get(cluster, "job", "edited")["spec"]["suspend"] is True
    # the pod template is immutable (pkg/apis/batch/validation ValidateJobSpecUpdate): a 422
    image = kubectl(cluster, "set", "image", "job/edited", "edited=busybox:2", check=False)
    assert image.returncode == 1
    assert image.stderr.startswith('error: failed to patch image update to pod template: Job.batch "edited" '
                                   "is invalid: spec.template: Invalid value: ")
    assert image.stderr.rstrip().endswith("field is immutable")
    # Job has no scale subresource upstream (batch/v1 jobs serve status only)
    scale = kubectl(cluster, "scale", "job", "edited", "--replicas=2", check=False)
    assert scale.stderr == "Error from server (NotFound): the server could not find the requested resource\n"
    # label/annotate with a stale resourceVersion: the optimistic-concurrency 409
    rv = get(cluster, "job", "edited")["metadata"]["resourceVersion"]
    kubectl(cluster, "label", "job", "edited", "tier=a", "--resource-version", rv)
    stale = kubectl(cluster, "annotate", "job", "edited", "note=x", "--overwrite", "--resource-version", rv,
                    check=False)
    assert stale.stderr == (
        'Error from server (Conflict): Operation cannot be fulfilled on jobs.batch "edited": the object has '
        "been modified; please apply your changes to the latest version and try again\n")
    kubectl(cluster, "label", "job", "edited", "tier=b", "--overwrite")
    assert get(cluster, "job", "edited")["metadata"]["labels"]["tier"] == "b"


def _configmap(name: str, value: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"set": "flows"}},
            "data": {"k": value}}


def test_diff_apply_prune_server_side_replace_and_edit(cluster: Any, tmp_path: Any) -> None:
    both = tmp_path / "both.json"
    both.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": [_configmap("cm-a", "1"), _configmap("cm-b", "1")]}))
    kubectl(cluster, "apply", "-f", str(both))
    one = tmp_path / "one.json"
    one.write_text(json.dumps(_configmap("cm-a", "2")))
    diff = kubectl(cluster, "diff", "-f", str(one), check=False)
    assert diff.returncode == 1 and '-  k: "1"' in diff.stdout and '+  k: "2"' in diff.stdout
    pruned = kubectl(cluster, "apply", "--prune", "-l", "set=flows", "--prune-allowlist=core/v1/ConfigMap",
                     "-f", str(one))
    assert pruned.stdout == "configmap/cm-a configured\nconfigmap/cm-b pruned\n"
    assert kubectl(cluster, "diff", "-f", str(one)).stdout == ""
    # server-side apply: another manager owns data.k, a conflict unless forced
    kubectl(cluster, "apply", "--server-side", "--field-manager=other", "-f", str(one))
    one.write_text(json.dumps(_configmap("cm-a", "3")))
    conflict = kubectl(cluster, "apply", "--server-side", "-f", str(one), check=False)
    assert conflict.stderr.startswith('error: Apply failed with 1 conflict: conflict with "other": .data.k\n')
    forced = kubectl(cluster, "apply", "--server-side", "--force-conflicts", "-f", str(one))
    assert forced.stdout == "configmap/cm-a serverside-applied\n"
    replaced = kubectl(cluster, "replace", "--force", "-f", str(one))
    assert replaced.stdout == 'configmap "cm-a" deleted\nconfigmap/cm-a replaced\n'
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nsed -i \'s/k: "3"/k: "4"/\' "$1"\n')
    editor.chmod(0o755)
    edited = subprocess.run([KUBECTL, "edit", "configmap", "cm-a"], capture_output=True, text=True,
                            env={**cluster.env(), "EDITOR": str(editor)}, timeout=TIMEOUT)
    assert edited.stdout == "configmap/cm-a edited\n", edited.stderr
    assert get(cluster, "configmap", "cm-a")["data"] == {"k": "4"}


def test_read_only_cluster_commands(cluster: Any) -> None:
    pod = _running_pod(cluster, "topped")
    top = kubectl(cluster, "top", "pod", pod).stdout.splitlines()
    assert top[0].split() == ["NAME", "CPU(cores)", "MEMORY(bytes)"] and top[1].split()[0] == pod
    assert kubectl(cluster, "top", "nodes").stdout.splitlines()[0].split() == \
        ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]
    explained = kubectl(cluster, "explain", "job.spec", "--recursive").stdout
    assert explained.startswith("GROUP:      batch\nKIND:       Job\nVERSION:    v1\n\nFIELD: spec <JobSpec>")
    assert "\n  backoffLimitPerIndex\t<integer>\n" in explained
    wide = kubectl(cluster, "api-resources", "-o", "wide").stdout.splitlines()
    jobs = next(line.split() for line in wide if line.startswith("jobs "))
    assert jobs == ["jobs", "batch/v1", "true", "Job",
                    "create,delete,deletecollection,get,list,patch,update,watch", "all"]
    versions = kubectl(cluster, "api-versions").stdout.split()
    assert {"v1", "batch/v1", "jobset.x-k8s.io/v1alpha2", "kueue.x-k8s.io/v1beta2"} <= set(versions)
    assert "Server Version: v1.37" in kubectl(cluster, "version").stdout
    info = kubectl(cluster, "cluster-info").stdout
    assert info.startswith(f"Kubernetes control plane is running at {cluster.url}")


def test_logs_of_init_containers_and_all_containers(cluster: Any) -> None:
    # the kubelet serves any container's log, init ones too (pkg/kubelet/kubelet_pods.go
    # validateContainerLogStatus); kubectl --all-containers asks for each (pkg/cmd/logs)
    kubectl(cluster, "create", "-f", "-", input_=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "layered"},
        "spec": {"restartPolicy": "Never",
                 "initContainers": [{"name": "init", "image": "busybox", "command": ["echo", "from-init"]}],
                 "containers": [{"name": "a", "image": "busybox", "command": ["echo", "from-a"]},
                                {"name": "b", "image": "busybox",
                                 "command": ["sh", "-c", "echo from-b; sleep 1h"]}]}}))
    kb(cluster, "advance", "10s")
    assert kubectl(cluster, "logs", "layered", "-c", "init").stdout == "from-init\n"
    every = kubectl(cluster, "logs", "layered", "--all-containers", "--prefix").stdout
    # kubectl keeps the requests in a Go map (pkg/polymorphichelpers/logsforobject.go): any order
    assert sorted(every.splitlines()) == ["[pod/layered/a] from-a", "[pod/layered/b] from-b",
                                          "[pod/layered/init] from-init"]


def test_logs_while_init_containers_run(cluster: Any) -> None:
    kubectl(cluster, "create", "-f", "-", input_=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "initializing"},
        "spec": {"restartPolicy": "Never",
                 "initContainers": [{"name": "init", "image": "busybox",
                                     "command": ["sh", "-c", "echo setting up; sleep 1h"]}],
                 "containers": [{"name": "main", "image": "busybox", "command": ["echo", "main"]}]}}))
    kb(cluster, "advance", "10s")
    assert kubectl(cluster, "logs", "initializing", "-c", "init").stdout == "setting up\n"
    main_ = kubectl(cluster, "logs", "initializing", "-c", "main", check=False)
    assert main_.stderr == ('Error from server (BadRequest): container "main" in pod "initializing" is '
                            "waiting to start: PodInitializing\n")


def test_create_quota_is_sent_as_protobuf_and_read(cluster: Any) -> None:
    # kubectl pkg/cmd/create/create_quota.go creates through the typed client (protobuf)
    out = kubectl(cluster, "create", "quota", "batch-quota", "--hard=pods=3,requests.cpu=2",
                  "--scopes=NotTerminating")
    assert out.stdout == "resourcequota/batch-quota created\n"
    spec = get(cluster, "resourcequota", "batch-quota")["spec"]
    assert spec == {"hard": {"pods": "3", "requests.cpu": "2"}, "scopes": ["NotTerminating"]}
    kubectl(cluster, "delete", "resourcequota", "batch-quota")  # the module's later jobs set no requests


def test_logs_of_a_running_container_stop_where_its_command_is(cluster: Any) -> None:
    # the kubelet serves what the container has written so far; the second echo comes after a minute
    kubectl(cluster, "create", "job", "slow-talker", "--image=busybox", "--",
            "sh", "-c", "echo started; sleep 60; echo finished")
    kb(cluster, "advance", "20s")
    assert kubectl(cluster, "logs", "job/slow-talker").stdout == "started\n"
    kb(cluster, "advance", "1m")
    assert kubectl(cluster, "logs", "job/slow-talker").stdout == "started\nfinished\n"


def test_logs_timestamps_and_since(cluster: Any) -> None:
    # the kubelet prefixes each line with its time in RFC3339NanoFixed and keeps the lines written at
    # or after `since` (pkg/kubelet/kuberuntime/logs/logs.go); a simulated line's time is the run's
    # startedAt plus when the command printed it
    kubectl(cluster, "create", "job", "stamped", "--image=busybox", "--",
            "sh", "-c", "echo early; sleep 30; echo late")
    kb(cluster, "advance", "1m")
    pod = get(cluster, "pods", "-l", "job-name=stamped")["items"][0]
    terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    started = datetime.fromisoformat(terminated["startedAt"])
    late = started + timedelta(seconds=30)
    stamped = kubectl(cluster, "logs", "job/stamped", "--timestamps").stdout
    assert stamped == (f"{started:%Y-%m-%dT%H:%M:%S}.000000000Z early\n"
                       f"{late:%Y-%m-%dT%H:%M:%S}.000000000Z late\n")
    since = kubectl(cluster, "logs", "job/stamped", f"--since-time={late:%Y-%m-%dT%H:%M:%SZ}").stdout
    assert since == "late\n"


def test_log_options_are_validated_as_upstream(api: Any) -> None:
    # pkg/apis/core/validation ValidatePodLogOptions, a 422 from pkg/registry/core/pod/rest/log.go
    for query, message in [
        ("tailLines=-1", "tailLines: Invalid value: -1: must be greater than or equal to 0"),
        ("limitBytes=0", "limitBytes: Invalid value: 0: must be greater than 0"),
        ("sinceSeconds=0", "sinceSeconds: Invalid value: 0: must be greater than 0"),
    ]:
        resp = api.get(f"/api/v1/namespaces/default/pods/p/log?{query}")
        assert resp.status_code == 422
        assert resp.json()["message"] == f'PodLogOptions "p" is invalid: {message}'


# kubernetes/website content/en/examples/controllers/job.yaml: the pi Job of the Job concept page
PI_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: pi-docs
spec:
  template:
    spec:
      containers:
      - name: pi
        image: perl:5.34.0
        command: ["perl",  "-Mbignum=bpi", "-wle", "print bpi(2000)"]
      restartPolicy: Never
  backoffLimit: 4
"""


def test_a_command_the_simulation_does_not_run_is_named_in_a_warning(cluster: Any) -> None:
    # kbatch's own warning (kbatch/sim/unmodelled.py): the docs' pi Job completes, but its logs
    # cannot hold 2000 digits of pi; the user is told so at once instead of finding empty logs
    out = kubectl(cluster, "apply", "-f", "-", input_=PI_JOB)
    assert out.stdout == "job.batch/pi-docs created\n"
    assert out.stderr == ('Warning: spec.template.spec.containers[0]: kbatch does not run "perl '
                          '-Mbignum=bpi -wle print bpi(2000)"; the simulated container runs the default '
                          "duration (1s) and exits 0 (docs/simulation.md)\n")
    assert kubectl(cluster, "apply", "-f", "-", input_=PI_JOB).stderr == ""  # unchanged: no create
    kb(cluster, "advance", "5s")
    assert get(cluster, "job", "pi-docs")["status"]["succeeded"] == 1


def test_a_server_side_apply_that_creates_warns_as_a_create_does(cluster: Any) -> None:
    # upstream's apply patcher creates a missing object through BeforeCreate, so the create warnings
    # come with an apply-create (k8s.io/apiserver pkg/endpoints/handlers/patch.go, forceAllowCreate)
    manifest = PI_JOB.replace("pi-docs", "pi-ssa")
    warning = ('Warning: spec.template.spec.containers[0]: kbatch does not run "perl -Mbignum=bpi -wle print '
               'bpi(2000)"; the simulated container runs the default duration (1s) and exits 0 '
               "(docs/simulation.md)\n")
    out = kubectl(cluster, "apply", "--server-side", "-f", "-", input_=manifest)
    assert (out.stdout, out.stderr) == ("job.batch/pi-ssa serverside-applied\n", warning)
    again = kubectl(cluster, "apply", "--server-side", "-f", "-", input_=manifest)
    assert again.stderr == ""  # the object exists: an update, no create warnings
    # the kbatch CLI in its own process, over HTTP, says the same
    cli = subprocess.run([sys.executable, "-m", "kbatch.cli", "--server", cluster.url, "apply",
                          "--server-side", "-f", "-"], input=manifest.replace("pi-ssa", "pi-ssa-cli"),
                         capture_output=True, text=True, timeout=TIMEOUT, env=cluster.env())
    assert cli.returncode == 0 and warning in cli.stderr
