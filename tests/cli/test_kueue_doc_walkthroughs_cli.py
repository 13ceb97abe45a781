"""Kueue v0.19.2's documentation walkthroughs, with their example manifests as published, through
``kbatch --state DIR`` commands (one in-process run a command, the state kept on disk between them).

Each manifest names its upstream file (kubernetes-sigs/kueue v0.19.2 ``site/static/examples/``); the
page it is used on is named at each test.
"""

from __future__ import annotations

from pathlib import Path

from .runners import CliInProcess, Commands

# site/static/examples/sample-validating-policy.yaml, as published
QUEUE_NAME_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: sample-validating-admission-policy
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["batch"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["jobs"]
    - apiGroups:   ["jobset.x-k8s.io"]
      apiVersions: ["v1alpha2"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["jobsets"]
  matchConditions:
  - name: exclude-jobset-owned
    expression: "!(has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(o, \
o.apiVersion=='jobset.x-k8s.io'&&o.kind=='JobSet'&&o.controller))"
  validations:
    - expression: "has(object.metadata.labels) && 'kueue.x-k8s.io/queue-name' in object.metadata.labels \
&& object.metadata.labels['kueue.x-k8s.io/queue-name'] != ''"
      message: "The label 'kueue.x-k8s.io/queue-name' is either missing or does not have a value set."
"""
# site/static/examples/sample-validating-policy-binding.yaml
QUEUE_NAME_BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: sample-validating-admission-policy-binding
spec:
  policyName: sample-validating-admission-policy
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        kueue-managed: "true"
"""
# site/static/examples/sample-enforce-requests-policy.yaml (its binding,
# sample-enforce-requests-policy-binding.yaml, is the one above with the names changed)
REQUESTS_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: sample-enforce-requests-policy
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["batch"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["jobs"]
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments", "statefulsets", "daemonsets", "replicasets"]
  validations:
    - expression: >
        object.spec.template.spec.containers.all(c,
          (has(c.resources.requests) && size(c.resources.requests) > 0) ||
          (has(c.resources.limits) && size(c.resources.limits) > 0)
        )
      message: "Every container in the job/deployment must specify resource requests or limits."
"""
REQUESTS_BINDING = QUEUE_NAME_BINDING.replace(
    "sample-validating-admission-policy", "sample-enforce-requests-policy")

JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: %s, namespace: team, labels: {%s}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: [sleep, "1"]%s}]
"""


def test_job_admission_policies_refuse_what_the_page_says(tmp_path: Path) -> None:
    """tasks/manage/enforce_job_management/setup_job_admission_policy.md: in a ``kueue-managed``
    namespace a Job without the queue-name label, or whose container states neither requests nor
    limits, is refused with the policy's message. A container without ``resources`` is refused by
    the message, not by an evaluation error: the expressions read the object as
    ``runtime.DefaultUnstructuredConverter`` writes it, ``resources: {}`` included."""
    cli = Commands(tmp_path, CliInProcess(tmp_path / "state"))
    for name, text in (("q.yaml", QUEUE_NAME_POLICY), ("qb.yaml", QUEUE_NAME_BINDING),
                       ("r.yaml", REQUESTS_POLICY), ("rb.yaml", REQUESTS_BINDING)):
        cli.ok("create", "-f", cli.file(name, text))
    cli.ok("create", "namespace", "team")
    cli.ok("label", "namespace", "team", "kueue-managed=true")
    queued = "kueue.x-k8s.io/queue-name: user-queue"
    requests = ", resources: {requests: {cpu: 100m}}"
    no_requests = cli.refused("create", "-f", cli.file("a.yaml", JOB % ("a", queued, "")))
    assert ("ValidatingAdmissionPolicy 'sample-enforce-requests-policy' with binding "
            "'sample-enforce-requests-policy-binding' denied request: Every container in the "
            "job/deployment must specify resource requests or limits.") in no_requests
    no_queue = cli.refused("create", "-f", cli.file("b.yaml", JOB % ("b", "", requests)))
    assert ("ValidatingAdmissionPolicy 'sample-validating-admission-policy' with binding "
            "'sample-validating-admission-policy-binding' denied request: The label "
            "'kueue.x-k8s.io/queue-name' is either missing or does not have a value set.") in no_queue
    cli.ok("create", "-f", cli.file("c.yaml", JOB % ("c", queued, requests)))
    cli.ok("create", "-f", cli.file("d.yaml", (JOB % ("d", "", "")).replace("team", "default")))


# site/static/examples/admission-fs/admission-fair-sharing-setup.yaml, as published
AFS_SETUP = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: "default-flavor"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: "cluster-queue"
spec:
  namespaceSelector: {} # match all.
  queueingStrategy: "StrictFIFO"
  admissionScope:
    admissionMode: "UsageBasedAdmissionFairSharing"
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: "default-flavor"
      resources:
      - name: "cpu"
        nominalQuota: 9
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  namespace: "default"
  name: "lq-a"
spec:
  clusterQueue: "cluster-queue"
  fairSharing:
    weight: "1"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  namespace: "default"
  name: "lq-b"
spec:
  clusterQueue: "cluster-queue"
  fairSharing:
    weight: "1"
"""
# site/static/examples/admission-fs/lq-a-simple-job.yaml (lq-b-simple-job.yaml: queue lq-b)
AFS_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  generateName: sample-job-
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: lq-a
spec:
  parallelism: 1
  template:
    spec:
      containers:
      - name: dummy-job
        image: alpine
        command: ["/bin/sleep", "infinity"]
        resources:
          requests:
            cpu: 3
      restartPolicy: Never
"""
# docs/kueue.md's configuration for admission fair sharing (upstream's commented example)
AFS_CONFIG = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
admissionFairSharing:
  usageHalfLifeTime: 10m
  usageSamplingInterval: 1m
"""


def _admitted_by_queue(cli: Commands) -> dict[str, list[bool]]:
    seen: dict[str, list[bool]] = {}
    for wl in sorted(cli.json("get", "workloads")["items"], key=lambda w: w["metadata"]["creationTimestamp"]):
        conditions = wl["status"].get("conditions", [])
        admitted = any(c["type"] == "Admitted" and c["status"] == "True" for c in conditions)
        seen.setdefault(wl["spec"]["queueName"], []).append(admitted)
    return seen


def test_admission_fair_sharing_example_admits_the_lighter_queue_first(tmp_path: Path) -> None:
    """concepts/admission_fair_sharing.md with admission-fs/: lq-a's three ``/bin/sleep infinity``
    Jobs fill the 9 CPUs and keep running; lq-a's fourth and then lq-b's first wait, and when one of
    lq-a's is deleted the freed quota goes to lq-b, whose consumed usage is lower."""
    cli = Commands(tmp_path, CliInProcess(tmp_path / "state"))
    cli.ok("--kueue-config", cli.file("config.yaml", AFS_CONFIG), "nodes", "add", "--count", "3")
    cli.ok("apply", "-f", cli.file("setup.yaml", AFS_SETUP))
    lq_a, lq_b = cli.file("a.yaml", AFS_JOB), cli.file("b.yaml", AFS_JOB.replace("lq-a", "lq-b"))
    first = [cli.ok("create", "-f", lq_a).split()[0] for _ in range(3)]
    cli.ok("advance", "2m")
    assert '"cpu":"' in cli.ok("get", "lq", "lq-a", "-o", "jsonpath={.status.fairSharing}")
    cli.ok("create", "-f", lq_a)
    cli.ok("advance", "1s")
    cli.ok("create", "-f", lq_b)
    cli.ok("advance", "1s")
    assert _admitted_by_queue(cli) == {"lq-a": [True, True, True, False], "lq-b": [False]}
    assert [row.split()[2] for row in cli.ok("get", "jobs").splitlines()[1:]] == ["0/1"] * 5  # still sleeping
    cli.ok("delete", first[0])
    cli.ok("advance", "2s")
    assert _admitted_by_queue(cli) == {"lq-a": [True, True, False], "lq-b": [True]}


# site/static/examples/admin/single-clusterqueue-setup.yaml (9 CPUs)
SINGLE_CQ = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: "default-flavor"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: "cluster-queue"
spec:
  namespaceSelector: {} # match all.
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: "default-flavor"
      resources:
      - name: "cpu"
        nominalQuota: 9
      - name: "memory"
        nominalQuota: 36Gi
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  namespace: "default"
  name: "user-queue"
spec:
  clusterQueue: "cluster-queue"
"""
# site/static/examples/pods-kueue/kueue-pod-group.yaml, as published
POD_GROUP = """\
---
apiVersion: v1
kind: Pod
metadata:
  generateName: sample-leader-
  labels:
    kueue.x-k8s.io/queue-name: user-queue
    kueue.x-k8s.io/pod-group-name: "sample-group"
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "2"
spec:
  restartPolicy: Never
  containers:
  - name: sleep
    image: busybox
    command: ["sh", "-c", 'echo "hello world from the leader pod" && sleep 3']
    resources:
      requests:
        cpu: 3
---
apiVersion: v1
kind: Pod
metadata:
  generateName: sample-worker-
  labels:
    kueue.x-k8s.io/queue-name: user-queue
    kueue.x-k8s.io/pod-group-name: "sample-group"
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "2"
spec:
  restartPolicy: Never
  containers:
  - name: sleep
    image: busybox
    command: ["sh", "-c", 'echo "hello world from the worker pod" && sleep 2']
    resources:
      requests:
        cpu: 3
"""


def test_deleting_a_pod_groups_workload_terminates_its_pods(tmp_path: Path) -> None:
    """tasks/run/plain_pods.md, "Termination": a Delete of the group's Workload makes Kueue
    terminate the remaining pods. While a stopped pod is still running (its grace period) the group
    gets no new Workload: upstream's ``handleJobWithNoWorkload`` waits while the job ``IsActive``
    (pkg/controller/jobframework/reconciler.go; ``Pod.IsActive`` counts a group's Running pods)."""
    cli = Commands(tmp_path, CliInProcess(tmp_path / "state"))
    cli.ok("nodes", "add", "--count", "3")
    cli.ok("apply", "-f", cli.file("setup.yaml", SINGLE_CQ))
    cli.ok("create", "-f", cli.file("group.yaml", POD_GROUP.replace("sleep 3", "sleep 60")))
    cli.ok("advance", "1s")
    assert cli.json("get", "pods")["items"][0]["status"]["phase"] == "Running"
    cli.ok("delete", "workload", "sample-group")
    for _ in range(3):
        cli.ok("advance", "1s")
        assert cli.json("get", "workloads")["items"] == []
    cli.ok("advance", "30s")
    assert cli.json("get", "pods")["items"] == [] and cli.json("get", "workloads")["items"] == []
