"""Containers whose behaviour comes from their image (kbatch.sim.images) on the simulated kubelet:
servers run until deleted, a shell image with no command exits at once, agnhost's entrypoint-tester
prints its argv, and what nothing models follows KWOK's default stages (a Job's pod completes after
the default delay, any other pod stays Running: kubernetes-sigs/kwok
kustomize/stage/pod/fast/pod-complete.yaml)."""

from __future__ import annotations

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.controllers.kubelet import pod_logs
from kbatch.sim.unmodelled import unmodelled_warnings

from .cluster import get_pod, sim_cluster

HOUR = 3600.0
AGNHOST = "registry.k8s.io/e2e-test-images/agnhost:2.53"


def bare_pod(image: str, extra: str = "", restart: str = "Always") -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  restartPolicy: {restart}
  containers:
  - name: main
    image: {image}{extra}
"""


def job(image: str, extra: str = "") -> str:
    return f"""
apiVersion: batch/v1
kind: Job
metadata: {{name: j, namespace: default}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: {image}{extra}
"""


def test_a_bare_pause_pod_is_still_running_after_an_hour_without_restarts() -> None:
    cp = sim_cluster(1)
    cp.apply(bare_pod("registry.k8s.io/pause:3.10"))
    cp.advance(HOUR)
    pod = get_pod(cp, "p")
    status = pod.status.container_statuses[0]
    assert pod.status.phase == "Running" and status.restart_count == 0 and status.state.running is not None
    assert status.ready


def test_server_images_and_agnhost_servers_keep_running() -> None:
    for image, extra in [("nginx:1.27", ""), ("httpd", ""), ("redis:7", "\n    args: [--appendonly, 'yes']"),
                         (AGNHOST, "\n    args: [netexec, --http-port=8080]")]:
        cp = sim_cluster(1)
        cp.apply(bare_pod(image, extra))
        cp.advance(HOUR)
        pod = get_pod(cp, "p")
        assert pod.status.phase == "Running", image
        assert pod.status.container_statuses[0].restart_count == 0, image


def test_an_unknown_image_in_a_bare_pod_stays_running_as_kwok_keeps_it() -> None:
    cp = sim_cluster(1)
    cp.apply(bare_pod("myorg/server:v1", restart="Never"))
    cp.advance(HOUR)
    assert get_pod(cp, "p").status.phase == "Running"


def test_an_unknown_command_in_a_bare_pod_stays_running_and_lines_after_it_are_not_printed() -> None:
    cp = sim_cluster(1)
    cp.apply(bare_pod("python:3.12", "\n    command: [sh, -c, 'echo starting; python serve.py; echo done']",
                      restart="Never"))
    cp.advance(HOUR)
    assert get_pod(cp, "p").status.phase == "Running"
    assert pod_logs(cp, "default", "p") == "starting\n"


def job_run(text: str) -> tuple[float, int]:
    """Run the Job ``j`` to Complete; its pod's run time and exit code."""
    cp = sim_cluster(1, controllers="job,scheduler,kubelet")
    cp.apply(text)
    cp.wait_for((Job, "j", "Complete"), timeout="1h")
    pod = cp.client.list(Pod, "default").items[0]
    terminated = pod.status.container_statuses[0].state.terminated
    return (terminated.finished_at - terminated.started_at).total_seconds(), terminated.exit_code


def test_a_job_with_no_command_completes_after_the_default_delay_as_before() -> None:
    assert job_run(job("myorg/trainer:v1")) == (1.0, 0)


def test_a_job_running_an_unknown_command_completes_after_the_default_delay() -> None:
    pi = '\n        command: [perl, -Mbignum=bpi, -wle, "print bpi(2000)"]'
    assert job_run(job("perl:5.34.0", pi)) == (1.0, 0)


def test_busybox_without_a_command_exits_0_at_once() -> None:
    cp = sim_cluster(1)
    cp.apply(bare_pod("busybox", restart="Never"))
    cp.advance(0)
    pod = get_pod(cp, "p")
    terminated = pod.status.container_statuses[0].state.terminated
    assert pod.status.phase == "Succeeded" and terminated.exit_code == 0
    assert terminated.started_at == terminated.finished_at


def test_agnhost_entrypoint_tester_prints_its_argv_and_exits_0() -> None:
    """Kueue's examples run agnhost with ``args: [entrypoint-tester, …]`` and no command; upstream's
    e2e (test/e2e/common/node/containers.go) expects the line ``[/agnhost entrypoint-tester …]``."""
    cp = sim_cluster(1, controllers="job,scheduler,kubelet")
    cp.apply(job(AGNHOST, "\n        args: [entrypoint-tester, hello, world]"))
    cp.wait_for((Job, "j", "Complete"), timeout="1h")
    pod = cp.client.list(Pod, "default").items[0]
    terminated = pod.status.container_statuses[0].state.terminated
    assert terminated.exit_code == 0 and terminated.started_at == terminated.finished_at
    assert pod_logs(cp, "default", pod.metadata.name) == "[/agnhost entrypoint-tester hello world]\n"


def test_warnings_say_what_kbatch_guessed() -> None:
    import yaml

    def warnings(text: str) -> list[str]:
        return unmodelled_warnings(yaml.safe_load(text))

    assert warnings(bare_pod("registry.k8s.io/pause:3.10")) == []
    assert warnings(bare_pod("nginx")) == []
    assert warnings(job(AGNHOST, "\n        args: [entrypoint-tester]")) == []
    assert warnings(bare_pod("myorg/server:v1")) == [
        'spec.containers[0]: kbatch does not know what image "myorg/server:v1" runs; the simulated container '
        "runs until its pod is deleted, as KWOK keeps a pod no Job owns Running (docs/simulation.md)"]
    assert warnings(job("myorg/trainer:v1")) == [
        'spec.template.spec.containers[0]: kbatch does not know what image "myorg/trainer:v1" runs; the '
        "simulated container runs the default duration (1s) and exits 0 (docs/simulation.md)"]
    assert warnings(bare_pod("python:3.12", "\n    command: [python, serve.py]")) == [
        'spec.containers[0]: kbatch does not run "python serve.py"; the simulated container runs until its '
        "pod is deleted, as KWOK keeps a pod no Job owns Running (docs/simulation.md)"]
