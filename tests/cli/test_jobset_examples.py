"""kubernetes-sigs/jobset v0.12.0's own example manifests (``site/static/examples``), applied as a user
would through the CLI and checked against what upstream's docs (``site/content/en/docs/tasks``) say
they do.

``tests/cli/test_upstream_examples.py`` covers ``depends-on/depends-on.yaml`` and
``simple/failure-policy.yaml``; here are the failure-policy page's rules and actions, and the
placement, labelling, ordering, storage and clean-up examples. Every command goes through the CLI's
``main`` over one state directory (:class:`~tests.cli.runners.CliInProcess`: the load, act, save of
a separate process, without the interpreter start). Examples the simulated kubelet cannot run are
not here: ``in-place-restart`` (its agent image is a placeholder and its containers' restart rules
are a Kubernetes feature kbatch does not model), ``pytorch``/``tensorflow`` (Python training).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .runners import CliInProcess, Commands

# The failure-policy examples share their leader and workers: the leader's index 0 counts down and
# exits 1 (``seq 10`` steps; ``seq 120`` in host-maintenance-event-model.yaml), its other pod counts
# to 1000, the workers sleep. Each manifest below is the upstream file with only this part factored.
_COUNTDOWN = """
                echo "JOB_COMPLETION_INDEX=$JOB_COMPLETION_INDEX"
                if [[ "$JOB_COMPLETION_INDEX" == "0" ]]; then
                  for i in $(seq {steps} -1 1)
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
                done"""


def _failure_policy_example(name: str, policy: str, *, steps: int = 10, leader_pod: str = "",
                            leader_job: str = "") -> str:
    """``site/static/examples/failure-policy/<file>.yaml``: ``policy`` is its ``failurePolicy``
    block, ``leader_pod`` / ``leader_job`` what it adds to the leader's pod spec / Job spec."""
    script = _COUNTDOWN.replace("{steps}", str(steps))
    return f"""
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: {name}
spec:
  failurePolicy:
{policy}
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
{leader_pod}
            containers:
            - name: leader
              image: bash:latest
              command:
              - bash
              - -xc
              - |{script}
{leader_job}
  - name: workers
    replicas: 1
    template:
      spec:
        backoffLimit: 0
        completions: 2
        parallelism: 2
        template:
          spec:
            containers:
            - name: worker
              image: bash:latest
              command:
              - bash
              - -xc
              - |
                sleep 1000
"""


_NEVER = "            restartPolicy: Never"

# failure-policy/failjobset-action.yaml
FAILJOBSET = _failure_policy_example("failjobset-action-example", """
    maxRestarts: 3
    rules:
      - action: FailJobSet
        targetReplicatedJobs:
        - leader""")

# failure-policy/restartjobsetandignoremaxrestarts-action.yaml
RJIMR = _failure_policy_example("rjimr-action-example", """
    maxRestarts: 3
    rules:
      - action: RestartJobSetAndIgnoreMaxRestarts
        targetReplicatedJobs:
        - leader""")

# failure-policy/onjobfailurereasons-present-podfailurepolicy.yaml
ON_POD_FAILURE_POLICY = _failure_policy_example("onjobfailurereasons-podfailurepolicy-example", """
    maxRestarts: 3
    rules:
      - action: RestartJobSetAndIgnoreMaxRestarts
        targetReplicatedJobs:
        - leader
        onJobFailureReasons:
        - PodFailurePolicy""", leader_pod=_NEVER, leader_job="""
        podFailurePolicy:
          rules:
            - action: FailJob
              onPodConditions: []
              onExitCodes:
                containerName: leader
                operator: In
                values: [1]""")

# failure-policy/host-maintenance-event-model.yaml
HOST_MAINTENANCE = _failure_policy_example("host-maintenance-event-model", """
    maxRestarts: 0
    rules:
      - action: RestartJobSetAndIgnoreMaxRestarts
        onJobFailureReasons:
        - PodFailurePolicy
      - action: RestartJobSet
        targetReplicatedJobs:
        - leader""", steps=120, leader_pod=_NEVER, leader_job="""
        podFailurePolicy:
          rules:
            - action: FailJob
              onPodConditions:
              - type: DisruptionTarget""")


def _restartable(name: str) -> str:
    """A replicated job of failure-policy/restartjob-action.yaml: 2 pods looping until /tmp/fail or
    /tmp/succeed exists (upstream's instructions create it with ``kubectl exec``)."""
    return f"""
  - name: rj-{name}
    replicas: 1
    template:
      spec:
        parallelism: 2
        completions: 2
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            terminationGracePeriodSeconds: 0
            containers:
            - name: {name}
              image: busybox:1.37
              command: ["/bin/sh", "-c"]
              args:
              - |
                echo "Start"
                while true; do
                  if [ -f /tmp/fail ]; then
                    echo "Exiting 1"
                    exit 1
                  elif [ -f /tmp/succeed ]; then
                    echo "Exiting 0"
                    exit 0
                  fi
                  sleep 1
                done"""


# failure-policy/restartjob-action.yaml: a leader failure recreates every Job, a worker failure its Job
RESTART_JOB = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: js
spec:
  failurePolicy:
    maxRestarts: 2
    rules:
    - name: r_leader
      action: RestartJobSet
      targetReplicatedJobs:
      - rj-leader
    - name: r_worker
      action: RestartJob
      targetReplicatedJobs:
      - rj-worker
  replicatedJobs:""" + _restartable("leader") + _restartable("worker")

# simple/exclusive-placement.yaml: one worker Job per node pool
EXCLUSIVE_PLACEMENT = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: exclusive-placement
  annotations:
    alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool
spec:
  failurePolicy:
    maxRestarts: 3
  replicatedJobs:
  - name: workers
    replicas: 3
    template:
      spec:
        parallelism: 3
        completions: 3
        backoffLimit: 10
        template:
          spec:
            containers:
            - {name: sleep, image: busybox, command: [sleep], args: [1000s]}
"""


def _sleeper(name: str, parallelism: int, seconds: str = "100s", extra: str = "") -> str:
    """A replicated job of the simple examples: ``parallelism`` pods sleeping ``seconds``."""
    return f"""
  - name: {name}{extra}
    template:
      spec:
        parallelism: {parallelism}
        completions: {parallelism}
        backoffLimit: 0
        template:
          spec:
            containers:
            - {{name: sleep, image: busybox, command: [sleep], args: [{seconds}]}}"""


# simple/coordinator.yaml
COORDINATOR = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: coordinator-example}
spec:
  coordinator: {replicatedJob: driver, jobIndex: 0, podIndex: 0}
  replicatedJobs:""" + _sleeper("workers", 4) + _sleeper("driver", 1)

# simple/group.yaml
GROUP = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: group-example}
spec:
  replicatedJobs:""" + _sleeper("rj-1", 2, extra="\n    replicas: 1") + _sleeper(
    "rj-2", 2, extra="\n    groupName: group-b\n    replicas: 1")

# simple/ttl-after-finished.yaml
TTL = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: jobset-with-ttl}
spec:
  ttlSecondsAfterFinished: 60
  replicatedJobs:""" + _sleeper("workers", 4)

# startup-policy/startup-driver-ready.yaml: the workers once the driver is ready (a 30 s probe delay)
STARTUP = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: startup-driver-ready}
spec:
  startupPolicy: {startupPolicyOrder: InOrder}
  replicatedJobs:
  - name: driver
    template:
      spec:
        parallelism: 1
        completions: 1
        backoffLimit: 0
        template:
          spec:
            containers:
            - name: sleep
              image: busybox
              command: [sleep]
              args: [1000s]
              readinessProbe:
                exec: {command: [echo, "ready"]}
                initialDelaySeconds: 30""" + _sleeper("workers", 4)

# depends-on/multiple-depends-on.yaml: the workers once both initializers are Complete
MULTIPLE_DEPENDS_ON = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: multiple-depends-on}
spec:
  replicatedJobs:
    - name: dataset-initializer
      template: {spec: {template: {spec: {containers: [{name: initializer, image: busybox, command:
        [/bin/sh, -c, "echo 'dataset-initializer runs for 10 seconds' && sleep 10"]}]}}}}
    - name: model-initializer
      template: {spec: {template: {spec: {containers: [{name: initializer, image: busybox, command:
        [/bin/sh, -c, "echo 'model-initializer runs for 10 seconds' && sleep 10"]}]}}}}
    - name: worker
      dependsOn:
        - {name: dataset-initializer, status: Complete}
        - {name: model-initializer, status: Complete}
      template:
        spec:
          parallelism: 4
          completions: 4
          template: {spec: {containers: [{name: worker, image: busybox, command:
            [/bin/sh, -c, "echo 'worker runs for 20 seconds' && sleep 20"]}]}}
"""

# volume-claim-policy/single-pvc.yaml: two shared claims, the second kept when the JobSet goes
SINGLE_PVC = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: volume-claim-trainjob
spec:
  volumeClaimPolicies:
    - templates:
        - metadata:
            name: initializer
          spec:
            accessModes: ["ReadWriteOnce"]
            resources:
              requests:
                storage: 1Gi
    - templates:
        - metadata:
            name: checkpoints
          spec:
            accessModes: ["ReadWriteOnce"]
            resources:
              requests:
                storage: 1Gi
      retentionPolicy:
        whenDeleted: Retain
  replicatedJobs:
    - name: initializer
      template:
        spec:
          template:
            spec:
              containers:
                - name: initializer
                  image: busybox
                  command:
                    - /bin/sh
                    - -c
                    - |
                      echo "Download pre-trained model into /workspace/model/qwen3.txt"
                      echo 'Qwen3-30b' > /workspace/model/qwen3.txt
                  volumeMounts:
                    - mountPath: /workspace/model
                      name: initializer
    - name: node
      dependsOn:
        - name: initializer
          status: Complete
      template:
        spec:
          parallelism: 3
          completions: 3
          template:
            spec:
              containers:
                - name: node
                  image: busybox
                  command:
                    - /bin/sh
                    - -c
                    - |
                      echo "Read pre-trained model" && cat /workspace/model/qwen3.txt
                      echo "Write model checkpoint to CKPT/model_node_IDX"
                      echo "Checkpoint: model_IDX" > CKPT/model_IDX.txt
                  volumeMounts:
                    - mountPath: /workspace/model
                      name: initializer
                    - mountPath: /workspace/checkpoints
                      name: checkpoints
""".replace("CKPT", "/workspace/checkpoints").replace(
    "IDX", "${JOB_COMPLETION_INDEX}")  # (kept within the line length)


class _Cli(Commands):
    """The session's commands in process, with the JobSet pages' reads."""

    def __init__(self, tmp_path: Path) -> None:
        super().__init__(tmp_path, CliInProcess(tmp_path / "state"))

    def apply(self, *flags: str, **manifests: str) -> None:
        """Each manifest to its own file, applied as a directory (``kubectl apply -f DIR``)."""
        folder = self.tmp / "manifests"
        folder.mkdir(exist_ok=True)
        for name, text in manifests.items():
            (folder / f"{name}.yaml").write_text(text)
        self.ok(*flags, "apply", "-f", str(folder))

    def items(self, kind: str) -> list[dict[str, Any]]:
        return self.json("get", kind)["items"]

    def status(self, jobset: str) -> dict[str, Any]:
        return self.json("get", "jobset", jobset)["status"]

    def pod(self, prefix: str) -> str:
        names = (p["metadata"]["name"] for p in self.items("pods"))
        return next(n for n in names if n.startswith(prefix))


def _conditions(status: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in status.get("conditions", [])}


def test_failure_policy_examples_act_as_the_failure_policy_page_says(tmp_path: Path) -> None:
    cli = _Cli(tmp_path)
    cli.ok("nodes", "add", "--count", "4")
    cli.apply(failjobset=FAILJOBSET, rjimr=RJIMR, pfp=ON_POD_FAILURE_POLICY, maintenance=HOST_MAINTENANCE)
    cli.ok("advance", "1s")
    # "host maintenance": the eviction's DisruptionTarget matches the leader's FailJob rule
    cli.ok("evict", "pod", cli.pod("host-maintenance-event-model-leader-0-1-"))
    # a worker of rjimr fails: no rule targets workers, so the default RestartJobSet, counted
    cli.ok("fail", "pod", cli.pod("rjimr-action-example-workers-0-0-"))
    cli.ok("advance", "65s")  # the failed Jobs end once their other pods' 30 s grace is over

    failed = _conditions(cli.status("failjobset-action-example"))["Failed"]
    assert failed == ("True", "FailJobSetFailurePolicyAction", "applying FailJobSet failure policy action"
                      " (first failed job: failjobset-action-example-leader-0)")

    rjimr = cli.status("rjimr-action-example")
    assert rjimr["restartsCountTowardsMax"] == 1 <= rjimr["restarts"]
    events = cli.ok("events", "--for", "jobset/rjimr-action-example")
    assert "DefaultFailurePolicy" in events and "RestartJobSetFailurePolicyAction" in events

    # exit code 1 is the leader's FailJob rule: Job reason PodFailurePolicy, restarts not counted
    pfp = cli.status("onjobfailurereasons-podfailurepolicy-example")
    assert pfp["restarts"] >= 1 and "restartsCountTowardsMax" not in pfp
    restarting = _conditions(pfp)["RestartingJobSet"]
    assert restarting[1] == "FailurePolicy_failurePolicyRule0"
    assert restarting[2].startswith("applying RestartJobSetAndIgnoreMaxRestarts failure policy action")

    maintenance = cli.status("host-maintenance-event-model")
    assert maintenance["restarts"] == 1 and "restartsCountTowardsMax" not in maintenance
    assert _conditions(maintenance)["RestartingJobSet"][:2] == ("True", "FailurePolicy_failurePolicyRule0")
    # the new leader's index 0 exits 1 after 120 s: BackoffLimitExceeded, the second rule, maxRestarts 0
    cli.ok("wait", "jobset/host-maintenance-event-model", "--for", "condition=Failed", "--timeout", "4m")
    maintenance = cli.status("host-maintenance-event-model")
    assert maintenance["restarts"] == 1 and maintenance["terminalState"] == "Failed"
    assert _conditions(maintenance)["Failed"][:2] == ("True", "ReachedMaxRestarts")
    columns = "custom-columns=N:.metadata.name,T:.status.terminalState"
    assert cli.ok("get", "jobsets", "failjobset-action-example", "host-maintenance-event-model",
                  "-o", columns, "--no-headers").split() == [
        "failjobset-action-example", "Failed", "host-maintenance-event-model", "Failed"]


def test_exclusive_placement_example_puts_each_job_in_its_own_node_pool(tmp_path: Path) -> None:
    cli = _Cli(tmp_path)
    for pool in ("pool-a", "pool-b", "pool-c"):  # docs/jobset.md "Placement"
        label = f"cloud.google.com/gke-nodepool={pool}"
        cli.ok("nodes", "add", "--count", "2", "--prefix", pool, "--label", label)
    cli.apply(exclusive=EXCLUSIVE_PLACEMENT)
    cli.ok("advance", "3s")
    pools: dict[str, set[str]] = {}
    for pod in cli.items("pods"):
        assert pod["status"]["phase"] == "Running"
        job = pod["metadata"]["labels"]["job-name"]
        pools.setdefault(job, set()).add(pod["spec"]["nodeName"].rsplit("-", 1)[0])
    assert sorted(pools) == [f"exclusive-placement-workers-{i}" for i in range(3)]
    assert sorted(p for job in pools.values() for p in job) == ["pool-a", "pool-b", "pool-c"]


def _labels(cli: _Cli, pod_prefix: str) -> dict[str, str]:
    pod = next(p for p in cli.items("pods") if p["metadata"]["name"].startswith(pod_prefix))
    return {k.removeprefix("jobset.sigs.k8s.io/"): v for k, v in pod["metadata"]["labels"].items()}


def test_simple_examples_label_order_store_and_clean_up_as_written(tmp_path: Path) -> None:
    cli = _Cli(tmp_path)
    cli.ok("nodes", "add", "--count", "3")
    cli.apply(coordinator=COORDINATOR, group=GROUP, ttl=TTL, startup=STARTUP, depends=MULTIPLE_DEPENDS_ON,
              pvc=SINGLE_PVC)
    cli.ok("advance", "12s")
    # coordinator.yaml's comment: every pod labelled with the driver pod's stable endpoint
    assert _labels(cli, "coordinator-example-workers-0-3-")["coordinator"] == (
        "coordinator-example-driver-0-0.coordinator-example")
    # group.yaml's comments, for rj-2
    rj2 = _labels(cli, "group-example-rj-2-0-1-")
    assert {k: rj2[k] for k in ("group-name", "group-replicas", "job-group-index", "global-replicas",
                                "job-global-index")} == {
        "group-name": "group-b", "group-replicas": "1", "job-group-index": "0", "global-replicas": "2",
        "job-global-index": "1"}
    jobs = {j["metadata"]["name"]: j for j in cli.items("jobs")}
    # InOrder: no workers while the driver is not ready (its probe waits 30 s)
    assert "startup-driver-ready-workers-0" not in jobs
    assert _conditions(cli.status("startup-driver-ready"))["StartupPolicyInProgress"][0] == "True"
    # the workers once both initializers are Complete (10 s of sleep each)
    worker = jobs["multiple-depends-on-worker-0"]["metadata"]["creationTimestamp"]
    assert worker >= max(jobs[f"multiple-depends-on-{n}-initializer-0"]["status"]["completionTime"]
                         for n in ("dataset", "model"))
    # the claims named <template>-<jobset>; the nodes ran after the initializer
    assert sorted(c["metadata"]["name"] for c in cli.items("pvc")) == [
        "checkpoints-volume-claim-trainjob", "initializer-volume-claim-trainjob"]
    assert jobs["volume-claim-trainjob-node-0"]["status"]["succeeded"] == 3

    cli.ok("advance", "25s")
    assert "startup-driver-ready-workers-0" in {j["metadata"]["name"] for j in cli.items("jobs")}
    startup = _conditions(cli.status("startup-driver-ready"))
    assert startup["StartupPolicyCompleted"][:2] == ("True", "InOrderStartupPolicyCompleted")
    assert startup["StartupPolicyInProgress"][0] == "False"
    cli.ok("delete", "jobset", "volume-claim-trainjob")
    cli.ok("advance", "1s")
    assert [c["metadata"]["name"] for c in cli.items("pvc")] == ["checkpoints-volume-claim-trainjob"]

    # ttl-after-finished.yaml: done at 101 s, deleted 60 s later; the others stay
    cli.ok("advance", "2m")
    names = {j["metadata"]["name"] for j in cli.items("jobsets")}
    assert "jobset-with-ttl" in names and "coordinator-example" in names
    cli.ok("advance", "5s")
    names = {j["metadata"]["name"] for j in cli.items("jobsets")}
    assert "jobset-with-ttl" not in names and "coordinator-example" in names


def test_restartjob_example_counts_job_restarts_towards_max_restarts(tmp_path: Path) -> None:
    cli = _Cli(tmp_path)
    gate = ("--feature-gates", "RestartJob=true")
    cli.ok(*gate, "nodes", "add", "--count", "2")
    cli.apply(*gate, restartjob=RESTART_JOB)
    cli.ok(*gate, "advance", "2s")
    for attempt in (1, 2):  # a worker fails: only its Job is recreated, counted against maxRestarts 2
        leader = cli.pod("js-rj-leader-0-0-")
        cli.ok(*gate, "fail", "pod", cli.pod("js-rj-worker-0-0-"))
        cli.ok(*gate, "advance", "2s")
        assert cli.pod("js-rj-leader-0-0-") == leader
        [worker] = [s for s in cli.status("js")["replicatedJobsStatus"] if s["name"] == "rj-worker"]
        assert (worker["jobRestarts"], worker["jobRestartsCountTowardsMax"]) == ([attempt], [attempt])
    # a leader fails: RestartJobSet, but the two Job restarts already reach maxRestarts
    cli.ok(*gate, "fail", "pod", cli.pod("js-rj-leader-0-1-"))
    cli.ok(*gate, "advance", "2s")
    status = cli.status("js")
    assert status["restarts"] == 0 and status["terminalState"] == "Failed"
    assert _conditions(status)["Failed"] == ("True", "ReachedMaxRestarts", "jobset failed due to reaching max"
                                             " number of restarts (first failed job: js-rj-leader-0)")
    assert "RestartJobFailurePolicyAction" in cli.ok(*gate, "events", "--for", "jobset/js")
