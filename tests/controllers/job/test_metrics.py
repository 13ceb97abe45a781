"""The Job controller's metrics move as upstream's do (pkg/controller/job/metrics/metrics.go and the
recording calls in job_controller.go), on the control plane's own registry (``cp.metrics``)."""

from __future__ import annotations

from kbatch.api.batch_v1 import Job
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.metrics import Counter
from kbatch.sim.nodes import NodeTemplate, create_nodes

P = "job_controller_"


def _job(name: str, spec: str) -> str:
    return f"""
apiVersion: batch/v1
kind: Job
metadata: {{name: {name}}}
spec:
{spec}
"""


def _run(manifest: str, until: str = "Complete", name: str = "work") -> ControlPlane:
    cp = ControlPlane(seed=5, controllers="job,scheduler,kubelet")
    create_nodes(cp, 2, NodeTemplate(cpu="8", memory="16Gi", pods=20))
    cp.apply(manifest)
    cp.wait_for((Job, name, until), timeout="10m")
    cp.advance("2s")
    return cp


def _counter(cp: ControlPlane, name: str) -> Counter:
    family = cp.metrics.get(P + name)
    assert isinstance(family, Counter)
    return family


INDEXED = _job("work", """
  completions: 3
  parallelism: 3
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sleep, "5"]}]
""")


def test_an_indexed_job_that_completes_moves_the_success_counters() -> None:
    cp = _run(INDEXED)
    assert _counter(cp, "jobs_finished_total").value("Indexed", "succeeded", "CompletionsReached") == 1
    assert _counter(cp, "job_pods_finished_total").value("Indexed", "succeeded") == 3
    assert _counter(cp, "job_pods_finished_total").value("Indexed", "failed") == 0
    assert _counter(cp, "job_finished_indexes_total").value("succeeded", "global") == 3
    assert _counter(cp, "job_pods_creation_total").value("new", "succeeded") == 3
    tracking = _counter(cp, "terminated_pods_tracking_finalizer_total")
    assert tracking.value("add") == 3 and tracking.value("delete") == 3  # every finalizer released
    syncs = _counter(cp, "job_syncs_total")
    assert syncs.value("Indexed", "success", "pods_created") == 1
    assert syncs.value("Indexed", "success", "tracking") >= 1
    assert syncs.value("Indexed", "error", "pods_created") == 0
    hist = cp.metrics.get(P + "job_sync_duration_seconds")
    total = sum(syncs.value("Indexed", "success", a) for a in ("pods_created", "tracking", "reconciling"))
    assert hist is not None and sum(hist.count("Indexed", "success", a)  # type: ignore[union-attr]
                                    for a in ("pods_created", "tracking", "reconciling")) == total


def test_pod_failure_policy_fail_job_counts_the_action_and_the_failed_job() -> None:
    cp = _run(_job("boom", """
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {operator: In, values: [42]}
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sh, -c, "sleep 2; exit 42"]}]
"""), until="Failed", name="boom")
    assert _counter(cp, "pod_failures_handled_by_failure_policy_total").value("FailJob") == 1
    assert _counter(cp, "jobs_finished_total").value("NonIndexed", "failed", "PodFailurePolicy") == 1
    assert _counter(cp, "job_pods_finished_total").value("NonIndexed", "failed") == 1


def test_a_failed_pod_is_recreated_with_reason_recreate_terminating_or_failed() -> None:
    cp = _run(_job("retry", """
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sh, -c, "exit 1"]}]
"""), until="Failed", name="retry")
    created = _counter(cp, "job_pods_creation_total")
    assert created.value("new", "succeeded") == 1
    assert created.value("recreate_terminating_or_failed", "succeeded") == 1
    assert _counter(cp, "jobs_finished_total").value("NonIndexed", "failed", "BackoffLimitExceeded") == 1
    assert _counter(cp, "job_pods_finished_total").value("NonIndexed", "failed") == 2


def test_a_job_managed_elsewhere_is_counted_and_not_synced() -> None:
    cp = ControlPlane(seed=5, controllers="job")
    cp.apply(_job("ext", """
  managedBy: example.com/queue
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox}]
"""))
    cp.advance("2s")
    assert _counter(cp, "jobs_by_external_controller_total").value("example.com/queue") == 1
    assert _counter(cp, "job_syncs_total").samples() == []


def test_the_exposition_names_every_moved_family_with_help_and_type() -> None:
    text = _run(INDEXED).metrics.render()
    assert "# TYPE job_controller_job_syncs_total counter" in text
    assert "# TYPE job_controller_job_sync_duration_seconds histogram" in text
    assert 'job_controller_jobs_finished_total{completion_mode="Indexed",result="succeeded",' \
           'reason="CompletionsReached"} 1' in text
    # under the virtual clock a sync takes no time: every observation is in the first bucket
    assert 'job_controller_job_sync_duration_seconds_sum{completion_mode="Indexed",result="success",' \
           'action="pods_created"} 0' in text


def test_two_control_planes_do_not_share_counts() -> None:
    one = _run(INDEXED)
    two = ControlPlane(seed=5, controllers="job")
    assert one.metrics is not two.metrics
    assert two.metrics.get(P + "jobs_finished_total").samples() == []  # type: ignore[union-attr]
