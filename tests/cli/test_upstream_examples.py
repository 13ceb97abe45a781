"""Upstream's own example manifests, end to end, every command a separate ``kbatch`` process.

Each manifest is written from an upstream example (the file is named at each constant; read at
kubernetes/website ``content/en/examples``, kubernetes-sigs/jobset 08dfbdf ``site/static/examples``
and ``config/samples``, kubernetes-sigs/kueue ``site/static/examples`` of 2026-08-22). Commands the
simulated kubelet does not read (``perl``) are not used; the others are kept as written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .runners import CliProcesses, Commands

# kubernetes/website controllers/job-pod-failure-policy-example.yaml: exit 42 is a FailJob rule.
POD_FAILURE_POLICY = """
apiVersion: batch/v1
kind: Job
metadata: {name: job-pod-failure-policy-example}
spec:
  completions: 12
  parallelism: 3
  backoffLimit: 6
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: docker.io/library/bash:5
        command: ["bash"]
        args: [-c, 'echo "Hello world!" && sleep 5 && exit 42']
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {containerName: main, operator: In, values: [42]}
    - action: Ignore
      onPodConditions: [{type: DisruptionTarget, status: "True"}]
"""

# kubernetes/website application/job/cronjob.yaml (batch/v1 since 1.21): a Job every minute.
CRONJOB = """
apiVersion: batch/v1
kind: CronJob
metadata: {name: hello}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: hello
            image: busybox:1.28
            imagePullPolicy: IfNotPresent
            command: [/bin/sh, -c, date; echo Hello from the Kubernetes cluster]
"""

# kubernetes-sigs/jobset site/static/examples/depends-on/depends-on.yaml: launcher after the
# initializer is Complete, workers once the launcher is Ready (its startup probe waits 5 s).
DEPENDS_ON = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: depends-on}
spec:
  replicatedJobs:
  - name: initializer
    template:
      spec:
        template:
          spec:
            containers:
            - {name: initializer, image: busybox,
               command: [/bin/sh, -c, "echo 'initializer runs for 10 seconds' && sleep 10"]}
  - name: launcher
    dependsOn: [{name: initializer, status: Complete}]
    template:
      spec:
        template:
          spec:
            containers:
            - name: launcher
              image: busybox
              command: [/bin/sh, -c, "echo 'launcher runs for 20 seconds' && sleep 20"]
              startupProbe: {exec: {command: [echo, started]}, initialDelaySeconds: 5}
  - name: worker
    dependsOn: [{name: launcher, status: Ready}]
    template:
      spec:
        parallelism: 4
        completions: 4
        template:
          spec:
            containers:
            - {name: worker, image: busybox,
               command: [/bin/sh, -c, "echo 'worker runs for 20 seconds' && sleep 20"]}
"""

# kubernetes-sigs/jobset site/static/examples/simple/failure-policy.yaml, as written: index 0 of the
# leader counts down 10 s and exits 1 (an `if` and `for` in bash), the other pods count to 1000.
FAILURE_POLICY = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: failure-policy
spec:
  failurePolicy:
    restartStrategy: BlockingRecreate
    maxRestarts: 3
  replicatedJobs:
  - name: leader
    replicas: 1
    template:
      spec:
        backoffLimit: 0
        completions: 2
        parallelism: 2
        template:
          spec:
            containers:
            - name: leader
              image: bash:latest
              command:
              - bash
              - -xc
              - |
                echo "JOB_COMPLETION_INDEX=$JOB_COMPLETION_INDEX"
                if [[ "$JOB_COMPLETION_INDEX" == "0" ]]; then
                  for i in $(seq 10 -1 1)
                  do
                    echo "Sleeping in $i"
                    sleep 1
                  done
                  exit 1
                fi
                for i in $(seq 1 1000)
                do
                  echo "$i"
                  sleep 1
                done
  - name: workers
    replicas: 1
    template:
      spec: {backoffLimit: 0, completions: 2, parallelism: 2, template: {spec: {containers: [
        {name: worker, image: "bash:latest", command: [bash, -xc, "sleep 1000\n"]}]}}}
"""

# kubernetes-sigs/jobset config/samples/batch_v1alpha2_jobset.yaml: a placeholder whose `spec:`
# holds only a comment, i.e. null.
JOBSET_SAMPLE = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  labels: {app.kubernetes.io/name: jobset, app.kubernetes.io/instance: jobset-sample}
  name: jobset-sample
spec:
  # TODO(user): Add fields here
"""

# kubernetes-sigs/kueue site/static/examples/admin/single-clusterqueue-setup.yaml and
# jobs/sample-job.yaml (generateName: the docs create it, kubectl refuses to apply it).
KUEUE_SETUP = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 9}
      - {name: memory, nominalQuota: 36Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: user-queue}
spec: {clusterQueue: cluster-queue}
"""
KUEUE_JOB = """
apiVersion: batch/v1
kind: Job
metadata:
  generateName: sample-job-
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  parallelism: 3
  completions: 3
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: dummy-job
        image: registry.k8s.io/e2e-test-images/agnhost:2.53
        command: [/bin/sh]
        args: [-c, sleep 60]
        resources: {requests: {cpu: "1", memory: 200Mi}}
"""


def processes(tmp_path: Path) -> Commands:
    """A session of separate ``kbatch`` processes over ``tmp_path/state``."""
    return Commands(tmp_path, CliProcesses(tmp_path / "state"))


def _condition(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(c for c in obj["status"].get("conditions", []) if c["type"] == kind)


def test_pod_failure_policy_example_fails_the_job_on_exit_42(tmp_path: Path) -> None:
    cli = processes(tmp_path)
    cli.ok("nodes", "add", "--count", "2")
    cli.ok("apply", "-f", cli.file("job.yaml", POD_FAILURE_POLICY))
    assert cli.ok("wait", "job/job-pod-failure-policy-example", "--for", "condition=Failed",
                  "--timeout", "1m").strip() == "job.batch/job-pod-failure-policy-example condition met"
    job = cli.json("get", "job", "job-pod-failure-policy-example")
    failed = _condition(job, "Failed")
    assert failed["reason"] == "PodFailurePolicy"
    assert "failed with exit code 42 matching FailJob rule at index 0" in failed["message"]
    assert "Hello world!" in cli.ok("logs", "job/job-pod-failure-policy-example")
    cli.ok("delete", "job", "job-pod-failure-policy-example")
    assert cli.json("get", "pods")["items"] == []


def test_cronjob_example_runs_a_job_every_minute(tmp_path: Path) -> None:
    cli = processes(tmp_path)
    cli.ok("nodes", "add")
    cli.ok("apply", "-f", cli.file("cronjob.yaml", CRONJOB))
    cli.ok("advance", "2m5s")  # each Job due 100 ms after its minute
    jobs = cli.json("get", "jobs")["items"]
    assert len(jobs) == 2 and all(_condition(j, "Complete")["status"] == "True" for j in jobs)
    # the page's log: `date` (coreutils' default format, the time the container ran it) then the echo
    started = cli.json("get", "pods", "-l", f"job-name={jobs[0]['metadata']['name']}")["items"][0]["status"][
        "containerStatuses"][0]["state"]["terminated"]["startedAt"]
    assert started == "2025-01-01T00:01:00Z"
    assert cli.ok("logs", f"job/{jobs[0]['metadata']['name']}") == (
        "Wed Jan  1 00:01:00 UTC 2025\nHello from the Kubernetes cluster\n")
    assert cli.json("get", "cronjob", "hello")["status"]["lastScheduleTime"] == "2025-01-01T00:02:00Z"
    cli.ok("delete", "cronjob", "hello")
    cli.ok("advance", "1s")
    assert cli.json("get", "jobs")["items"] == []  # background cascade to the Jobs


def test_jobset_depends_on_example_starts_each_job_after_its_dependency(tmp_path: Path) -> None:
    cli = processes(tmp_path)
    cli.ok("nodes", "add", "--count", "2")
    cli.ok("apply", "-f", cli.file("jobset.yaml", DEPENDS_ON))
    cli.ok("wait", "jobset/depends-on", "--for", "condition=Completed", "--timeout", "5m")
    label = "jobset.sigs.k8s.io/replicatedjob-name"
    created = {j["metadata"]["labels"][label]: j["metadata"]["creationTimestamp"]
               for j in cli.json("get", "jobs")["items"]}
    # initializer at 0 s; launcher once it is Complete (10 s of sleep); workers once the launcher's
    # pod is Ready (the startup probe's 5 s initial delay): strictly in that order, time apart
    assert created["initializer"] < created["launcher"] < created["worker"]
    described = cli.ok("describe", "jobset", "depends-on")
    assert "Depends On:" in described and "AllJobsCompleted" in described


def test_jobset_failure_policy_example_restarts_three_times_then_fails(tmp_path: Path) -> None:
    cli = processes(tmp_path)
    cli.ok("nodes", "add", "--count", "4")
    cli.ok("apply", "-f", cli.file("jobset.yaml", FAILURE_POLICY))
    cli.ok("advance", "5s")
    pod = next(p["metadata"]["name"] for p in cli.json("get", "pods")["items"]
               if p["metadata"]["name"].startswith("failure-policy-leader-0-0-"))
    # 5 s in: 10 … 5 printed, each after bash's ``-x`` trace of the commands (kbatch.sim.shell_trace)
    countdown = "".join(f"+ for i in $(seq 10 -1 1)\n+ echo 'Sleeping in {i}'\nSleeping in {i}\n+ sleep 1\n"
                        for i in range(10, 4, -1))
    trace = "+ echo JOB_COMPLETION_INDEX=0\nJOB_COMPLETION_INDEX=0\n+ [[ 0 == \\0 ]]\n++ seq 10 -1 1\n"
    assert cli.ok("logs", pod) == trace + countdown
    cli.ok("wait", "jobset/failure-policy", "--for", "condition=Failed", "--timeout", "10m")
    jobset = cli.json("get", "jobset", "failure-policy")
    assert jobset["status"]["restarts"] == 3 and jobset["status"]["terminalState"] == "Failed"
    failed = _condition(jobset, "Failed")
    assert failed["reason"] == "ReachedMaxRestarts"
    assert failed["message"].startswith("jobset failed due to reaching max number of restarts")
    events = cli.ok("events", "--for", "jobset/failure-policy")
    assert "RestartJobSetFailurePolicyAction" in events and "ReachedMaxRestarts" in events


def test_jobset_config_sample_with_a_null_spec_is_created(tmp_path: Path) -> None:
    cli = processes(tmp_path)
    out = cli.ok("apply", "-f", cli.file("sample.yaml", JOBSET_SAMPLE))
    assert out.strip() == "jobset.jobset.x-k8s.io/jobset-sample created"
    assert cli.json("get", "jobset", "jobset-sample")["spec"]["successPolicy"] == {"operator": "All"}


def test_kueue_single_clusterqueue_example_admits_the_created_sample_job(tmp_path: Path) -> None:
    cli = processes(tmp_path)
    cli.ok("nodes", "add", "--count", "3")
    cli.ok("apply", "-f", cli.file("setup.yaml", KUEUE_SETUP))
    job_file = cli.file("job.yaml", KUEUE_JOB)
    refused = cli.runner.run("apply", "-f", job_file)
    assert refused.code == 1
    assert refused.err.strip() == "error: from sample-job-: cannot use generate name with apply"
    name = cli.ok("create", "-f", job_file).split()[0]
    assert name.startswith("job.batch/sample-job-")
    [workload] = cli.json("get", "workloads")["items"]
    assert _condition(workload, "QuotaReserved")["status"] == "True"
    cli.ok("wait", name, "--for", "condition=Complete", "--timeout", "5m")
    cli.ok("advance", "1s")
    assert _condition(cli.json("get", "workloads")["items"][0], "Finished")["status"] == "True"
