"""Upstream's batch/v1 Job webhook tables, through kbatch's API server.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/job/job_webhook_test.go``
(``TestValidateCreate``, ``TestValidateUpdate``, ``TestDefault``; case names quoted per row) against
``job_webhook.go``, ``pkg/controller/jobframework/{validation,defaults}.go`` and
``pkg/util/webhook/validation_admissiongatedby.go``. Upstream calls ``validateCreate`` /
``validateUpdate`` / ``Default`` on an object; here the Job is created (and updated) through the API
as a user's Job goes, and the denial's message is compared whole with upstream's field errors
(type, path, value and detail, as upstream's ``cmp.Diff`` does).

Not translated (kbatch documents them as not modelled, ``docs/kueue.md``): the TopologyAwareScheduling
rows ("valid topology request", "invalid topology request - ...", "valid slice topology request",
"attempt to set invalid (slice) TAS request", ...), the elastic-job rows ("elastic job with ... topology
...", "partial admission and elastic job cannot be used together") and the MultiKueue ``managedBy``
rows of ``TestDefault``. The prebuilt-workload rows ("(in)valid prebuilt workload ...", "immutable
prebuilt workload ...", "migrate from label to annotation ...") are translated, with rows of
kbatch's own for ``WorkloadIdentifierAnnotations`` off and a suspended job.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.batch_v1 import Job
from kbatch.api.errors import FieldError, Forbidden, Invalid
from kbatch.api.jobset_v1alpha2 import JobSet

from .helpers import local_queue

QUEUE = "kueue.x-k8s.io/queue-name"
MAX_EXEC = "kueue.x-k8s.io/max-exec-time-seconds"
WPC = "kueue.x-k8s.io/priority-class"
MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
SYNC = "kueue.x-k8s.io/job-completions-equal-parallelism"
STOPPING = "kueue.x-k8s.io/stopping"
GATED = "kueue.x-k8s.io/admission-gated-by"
PREBUILT = "kueue.x-k8s.io/prebuilt-workload-name"
IDS_OFF = {"WorkloadIdentifierAnnotations": False}

RFC1123 = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    r"validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
BAD_PATH = r"Invalid path (regex used for validation is '[A-Za-z0-9/\-._~%!$&'()*+,;=:]+')"


def make_job(
    *,
    queue: str | None = None,
    suspend: bool | None = True,
    parallelism: int = 1,
    completions: int | None = None,
    indexed: bool | None = None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    owner: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``testingjobs/job.MakeJob("job", "default")`` and its setters (parallelism 1, suspended)."""
    meta: dict[str, Any] = {"name": "job", "namespace": "default", "labels": dict(labels or {}),
                            "annotations": dict(annotations or {})}
    if queue is not None:
        meta["labels"][QUEUE] = queue
    if owner is not None:
        meta["ownerReferences"] = [owner]
    spec: dict[str, Any] = {
        "parallelism": parallelism,
        "template": {"spec": {"restartPolicy": "Never",
                              "containers": [{"name": "c", "image": "pause"}]}},
    }
    if suspend is not None:
        spec["suspend"] = suspend
    if completions is not None:
        spec["completions"] = completions
    if indexed is not None:
        spec["completionMode"] = "Indexed" if indexed else "NonIndexed"
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}


def denial(*errors: FieldError) -> str:
    body = str(errors[0]) if len(errors) == 1 else "[" + ", ".join(str(e) for e in errors) + "]"
    return f'admission webhook "vjob.kb.io" denied the request: {body}'


def _outcome(cp: ControlPlane, doc: dict[str, Any]) -> str | None:
    try:
        cp.apply([doc])
    except Forbidden as err:
        return str(err.message)
    return None


def _plane(gates: dict[str, bool] | None = None, config: dict[str, Any] | None = None) -> ControlPlane:
    kwargs: dict[str, Any] = {}
    if gates:
        kwargs["feature_gates"] = gates
    if config:
        kwargs["kueue_config"] = config
    return ControlPlane(controllers="kueue", **kwargs)


def _q(value: str) -> str:
    return f"metadata.labels[{value}]"


def _a(value: str) -> str:
    return f"metadata.annotations[{value}]"


GATE_OFF = {"AdmissionGatedBy": False}
CREATE = [
    ("simple", make_job(queue="queue"), None, None),
    # "invalid queue-name label": upstream's value "queue name" is not a label value, so an API
    # server refuses it before any webhook (test_invalid_label_value_is_refused_by_the_api_server);
    # a valid label value that is no RFC 1123 subdomain reaches the webhook's rule.
    ("invalid queue-name label", make_job(queue="Queue_Name"), None,
     denial(FieldError.invalid(_q(QUEUE), "Queue_Name", RFC1123))),
    ("invalid partial admission annotation (format)",
     make_job(parallelism=4, completions=6, annotations={MIN_PARALLELISM: "NaN"}), None,
     denial(FieldError.invalid(_a(MIN_PARALLELISM), "NaN", 'strconv.Atoi: parsing "NaN": invalid syntax'))),
    ("invalid partial admission annotation (badValue)",
     make_job(parallelism=4, completions=6, annotations={MIN_PARALLELISM: "5"}), None,
     denial(FieldError.invalid(_a(MIN_PARALLELISM), 5, "should be between 0 and 3"))),
    ("valid partial admission annotation",
     make_job(parallelism=4, completions=6, annotations={MIN_PARALLELISM: "3"}), None, None),
    ("invalid sync completions annotation (format)",
     make_job(parallelism=4, completions=6, indexed=True, annotations={SYNC: "-"}), None,
     denial(FieldError.invalid(_a(SYNC), "-", 'strconv.ParseBool: parsing "-": invalid syntax'))),
    ("valid sync completions annotation, wrong completions count",
     make_job(parallelism=4, completions=6, indexed=True, annotations={SYNC: "true"}), None,
     denial(FieldError.invalid("spec.completions", 6,
                               f"should be equal to parallelism when {SYNC} annotation is true"))),
    ("valid sync completions annotation, wrong job completions type (default)",
     make_job(parallelism=4, completions=4, annotations={SYNC: "true"}), None,
     denial(FieldError.invalid(_a(SYNC), "true", "should not be enabled for NonIndexed jobs"))),
    ("valid sync completions annotation, wrong job completions type",
     make_job(parallelism=4, completions=4, indexed=False, annotations={SYNC: "true"}), None,
     denial(FieldError.invalid(_a(SYNC), "true", "should not be enabled for NonIndexed jobs"))),
    ("valid sync completions annotation",
     make_job(parallelism=4, completions=4, indexed=True, annotations={SYNC: "true"}), None, None),
    ("invalid maximum execution time",
     make_job(parallelism=4, completions=4, indexed=True, labels={MAX_EXEC: "NaN"}), None,
     denial(FieldError.invalid(_q(MAX_EXEC), "NaN", 'strconv.Atoi: parsing "NaN": invalid syntax'))),
    ("zero maximum execution time",
     make_job(parallelism=4, completions=4, indexed=True, labels={MAX_EXEC: "0"}), None,
     denial(FieldError.invalid(_q(MAX_EXEC), 0, "should be greater than 0"))),
    # "negative maximum execution time": "-10" is no label value (test_label_values_refused_...).
    ("valid maximum execution time",
     make_job(parallelism=4, completions=4, indexed=True, labels={MAX_EXEC: "10"}), None, None),
    ("valid AdmissionGatedBy annotation with single gate",
     make_job(queue="queue", annotations={GATED: "example.com/controller"}), None, None),
    ("AdmissionGatedBy annotation - trailing space",
     make_job(queue="queue", annotations={GATED: "example.com/gate "}), None, None),
    ("AdmissionGatedBy annotation - space before comma",
     make_job(queue="queue", annotations={GATED: "example.com/gate ,example.com/gate2"}), None, None),
    ("AdmissionGatedBy annotation - space after comma",
     make_job(queue="queue", annotations={GATED: "example.com/gate, example.com/gate2"}), None, None),
    ("AdmissionGatedBy annotation - leading space",
     make_job(queue="queue", annotations={GATED: " example.com/gate"}), None, None),
    ("valid AdmissionGatedBy annotation with multiple gates",
     make_job(queue="queue", annotations={GATED: "example.com/a,not.example.com/b"}), None, None),
    ("invalid AdmissionGatedBy annotation - not in subdomain/path format",
     make_job(queue="queue", annotations={GATED: "this is an invalid value"}), None,
     denial(FieldError.invalid(_a(GATED), "this is an invalid value",
                               'must be a domain-prefixed path (such as "acme.io/foo")'))),
    ("invalid AdmissionGatedBy annotation - duplicate gates",
     make_job(queue="queue", annotations={GATED: "duplicates.are/invalid,duplicates.are/invalid"}), None,
     denial(FieldError.invalid(_a(GATED), "duplicates.are/invalid,duplicates.are/invalid",
                               "duplicate gate name: duplicates.are/invalid"))),
    ("invalid AdmissionGatedBy annotation - gate name too long",
     make_job(queue="queue", annotations={GATED: "cannot.be.too.long/" + "but-this-is-too-long" * 20}), None,
     denial(FieldError.too_long(_a(GATED), 63))),
    ("invalid AdmissionGatedBy annotation - space in path component",
     make_job(queue="queue", annotations={GATED: "example.com/gate name"}), None,
     denial(FieldError.invalid(_a(GATED), "gate name", BAD_PATH))),
    ("invalid AdmissionGatedBy annotation - space in domain component",
     make_job(queue="queue", annotations={GATED: "example .com/gate"}), None,
     denial(FieldError.invalid(_a(GATED), "example .com", RFC1123))),
    ("invalid AdmissionGatedBy annotation - multiple gates with one containing space",
     make_job(queue="queue", annotations={GATED: "valid.com/gate,invalid gate.com/controller"}), None,
     denial(FieldError.invalid(_a(GATED), "invalid gate.com", RFC1123))),
    ("AdmissionGatedBy annotation with feature gate disabled - valid value",
     make_job(queue="queue", annotations={GATED: "example.com/gate"}), GATE_OFF, None),
    ("AdmissionGatedBy annotation with feature gate disabled - invalid value",
     make_job(queue="queue", annotations={GATED: "this is an invalid value"}), GATE_OFF, None),
    ("AdmissionGatedBy annotation with feature gate enabled - empty string",
     make_job(queue="queue", annotations={GATED: ""}), None, None),
    # "invalid prebuilt workload": "workload name" is no label value (refused by the API server,
    # below); a label value that is no RFC 1123 subdomain reaches the webhook's rule.
    ("invalid prebuilt workload (valid label value)",
     make_job(parallelism=4, completions=4, indexed=True, labels={PREBUILT: "Workload_Name"}), None,
     denial(FieldError.invalid(_q(PREBUILT), "Workload_Name", RFC1123))),
    ("valid prebuilt workload",
     make_job(parallelism=4, completions=4, indexed=True, labels={PREBUILT: "workload-name"}), None, None),
    ("invalid prebuilt workload annotation, WorkloadIdentifierAnnotations enabled",
     make_job(parallelism=4, completions=4, indexed=True, annotations={PREBUILT: "workload name"}), None,
     denial(FieldError.invalid(_a(PREBUILT), "workload name", RFC1123))),
    ("valid prebuilt workload annotation, WorkloadIdentifierAnnotations enabled",
     make_job(parallelism=4, completions=4, indexed=True, annotations={PREBUILT: "workload-name"}), None,
     None),
    ("different prebuilt workload label and annotation, label ignored, WorkloadIdentifierAnnotations enabled",
     make_job(labels={PREBUILT: "workload-label"}, annotations={PREBUILT: "workload-annotation"}), None,
     None),
    # kbatch's rows: with the gate off a short annotation is not read (nor checked), the label is
    ("prebuilt workload annotation ignored, WorkloadIdentifierAnnotations disabled",
     make_job(annotations={PREBUILT: "workload name"}), IDS_OFF, None),
    ("invalid prebuilt workload label, WorkloadIdentifierAnnotations disabled",
     make_job(labels={PREBUILT: "Workload_Name"}, annotations={PREBUILT: "workload-name"}), IDS_OFF,
     denial(FieldError.invalid(_q(PREBUILT), "Workload_Name", RFC1123))),
    ("a prebuilt workload annotation too long for a label is read, WorkloadIdentifierAnnotations disabled",
     make_job(annotations={PREBUILT: "Long" + "x" * 60}), IDS_OFF,
     denial(FieldError.invalid(_a(PREBUILT), "Long" + "x" * 60, RFC1123))),
]


@pytest.mark.parametrize(("case", "job", "gates", "want"), CREATE, ids=[c[0] for c in CREATE])
def test_validate_create(
    case: str, job: dict[str, Any], gates: dict[str, bool] | None, want: str | None
) -> None:
    assert _outcome(_plane(gates), job) == want


@pytest.mark.parametrize(
    ("case", "labels"),
    [
        ("invalid queue-name label", {QUEUE: "queue name"}),
        ("negative maximum execution time", {MAX_EXEC: "-10"}),
        ("invalid prebuilt workload", {PREBUILT: "workload name"}),
    ],
)
def test_label_values_refused_by_the_api_server_before_the_webhook(case: str, labels: dict[str, str]) -> None:
    """Upstream's values here are no label values: an API server validates metadata before validating
    admission runs, so the Job is refused (as upstream's unit test wants) at ``metadata.labels``."""
    value = next(iter(labels.values()))
    with pytest.raises(Invalid) as err:
        _plane().apply([make_job(labels=labels)])
    assert f'metadata.labels: Invalid value: "{value}"' in str(err.value)


def _admitted(job: dict[str, Any]) -> dict[str, Any]:
    """``job`` created with a queue name (suspended by the webhook), then started as Kueue starts it."""
    started = {**job, "spec": {**job["spec"], "suspend": False}}
    return started


def _immutable(path: str, value: Any) -> FieldError:
    return FieldError.invalid(path, value, "field is immutable")


UPDATE: list[tuple[str, list[dict[str, Any]], dict[str, Any], str | None]] = [
    # Each row: the old Job as a sequence of writes (the first a create), then the update.
    ("normal update", [make_job(queue="queue")], make_job(queue="queue", suspend=False), None),
    ("add queue name with suspend is false", [make_job()], make_job(queue="queue", suspend=False),
     denial(_immutable(_q(QUEUE), "queue"))),
    ("add queue name with suspend is true", [make_job()], make_job(queue="queue", suspend=True), None),
    ("change queue name with suspend is false", [make_job(queue="queue")],
     make_job(queue="queue2", suspend=False), denial(_immutable(_q(QUEUE), "queue2"))),
    # "change queue name with suspend is true, but invalid value": a label value an API server refuses.
    ("change queue name with suspend is true, but invalid value (valid label value)", [make_job()],
     make_job(queue="Queue_Name", suspend=True),
     denial(FieldError.invalid(_q(QUEUE), "Queue_Name", RFC1123))),
    ("immutable parallelism while unsuspended with partial admission enabled",
     [make_job(suspend=False, parallelism=4, completions=6, annotations={MIN_PARALLELISM: "3"})],
     make_job(suspend=False, parallelism=5, completions=6, annotations={MIN_PARALLELISM: "3"}),
     denial(FieldError.forbidden(
         "spec.parallelism",
         "cannot change when partial admission is enabled and the job is not suspended"))),
    ("mutable parallelism while suspended with partial admission enabled",
     [make_job(parallelism=4, completions=6, annotations={MIN_PARALLELISM: "3", STOPPING: "true"})],
     make_job(parallelism=5, completions=6, annotations={MIN_PARALLELISM: "3"}), None),
    # The two sync-completion rows start from a Job upstream's create rule refuses (NonIndexed,
    # completions 6 != parallelism 4); through an API server the old Job must have been accepted,
    # so these start from an Indexed Job with completions == parallelism.
    ("immutable sync completion annotation while unsuspended (old Job creatable)",
     [make_job(suspend=False, parallelism=4, completions=4, indexed=True, annotations={SYNC: "true"})],
     make_job(suspend=False, parallelism=5, completions=4, indexed=True, annotations={SYNC: "false"}),
     denial(FieldError.forbidden(_a(SYNC), "field is immutable while the job is not suspended"))),
    ("mutable sync completion annotation while suspended (old Job creatable)",
     [make_job(suspend=True, parallelism=4, completions=4, indexed=True, annotations={SYNC: "true"})],
     make_job(suspend=False, parallelism=5, completions=4, indexed=True, annotations={SYNC: "false"}), None),
    ("set priority-class when job not suspend", [make_job(suspend=False)],
     make_job(suspend=False, labels={WPC: "test"}),
     denial(FieldError.invalid(
         _q(WPC), "test", "WorkloadPriorityClass cannot be added to a non-suspended workload"))),
    ("update priority-class when job not suspend", [make_job(suspend=False, labels={WPC: "test"})],
     make_job(suspend=False, labels={WPC: "new-test"}), None),
    ("delete priority-class when job not suspend", [make_job(suspend=False, labels={WPC: "test"})],
     make_job(suspend=False),
     denial(FieldError.invalid(_q(WPC), "", "WorkloadPriorityClass cannot be removed from a workload"))),
    ("set priority-class when job suspend", [make_job()], make_job(labels={WPC: "test"}), None),
    ("update priority-class when job suspend", [make_job(labels={WPC: "test"})],
     make_job(labels={WPC: "new-test"}), None),
    ("delete priority-class when job suspend", [make_job(labels={WPC: "test"})], make_job(),
     denial(FieldError.invalid(_q(WPC), "", "WorkloadPriorityClass cannot be removed from a workload"))),
    # "immutable queue name not suspend": a Job with a queue name is created suspended (the
    # defaulting webhook), so the old Job is that Job started, as Kueue starts it.
    ("immutable queue name not suspend",
     [make_job(queue="old-queue"), make_job(queue="old-queue", suspend=False)],
     make_job(queue="new-queue", suspend=False), denial(_immutable(_q(QUEUE), "new-queue"))),
    ("queue name can changes when it is  suspend", [make_job(queue="old-queue")],
     make_job(queue="new-queue"), None),
    ("can update the kueue.x-k8s.io/job-min-parallelism  annotation",
     [make_job(parallelism=4, completions=6, annotations={MIN_PARALLELISM: "3"})],
     make_job(parallelism=4, completions=6, annotations={MIN_PARALLELISM: "2"}), None),
    ("validates kueue.x-k8s.io/job-min-parallelism annotation value (bad format)",
     [make_job(parallelism=4, completions=6, annotations={MIN_PARALLELISM: "3"})],
     make_job(parallelism=4, completions=6, annotations={MIN_PARALLELISM: "NaN"}),
     denial(FieldError.invalid(_a(MIN_PARALLELISM), "NaN", 'strconv.Atoi: parsing "NaN": invalid syntax'))),
    ("immutable max exec time while unsuspended", [make_job(suspend=False, labels={MAX_EXEC: "10"})],
     make_job(suspend=False, labels={MAX_EXEC: "20"}), denial(_immutable(_q(MAX_EXEC), "20"))),
    ("immutable max exec time while transitioning to unsuspended", [make_job(labels={MAX_EXEC: "10"})],
     make_job(suspend=False, labels={MAX_EXEC: "20"}), denial(_immutable(_q(MAX_EXEC), "20"))),
    ("mutable max exec time while suspended", [make_job(labels={MAX_EXEC: "10"})],
     make_job(labels={MAX_EXEC: "20"}), None),
    ("reject adding AdmissionGatedBy annotation after Job creation", [make_job(queue="queue")],
     make_job(queue="queue", annotations={GATED: "example.com/controller1"}),
     denial(FieldError.forbidden(_a(GATED), "cannot add admission gate after creation"))),
    ("allow removing AdmissionGatedBy annotation with single gate",
     [make_job(queue="queue", annotations={GATED: "example.com/controller1"})],
     make_job(queue="queue"), None),
    ("allow removing AdmissionGatedBy annotation with multiple gates",
     [make_job(queue="queue", annotations={GATED: "example.com/controller1,example.com/controller2"})],
     make_job(queue="queue"), None),
    ("allow removing one gate from AdmissionGatedBy annotation",
     [make_job(queue="queue", annotations={GATED: "example.com/controller1,example.com/controller2"})],
     make_job(queue="queue", annotations={GATED: "example.com/controller2"}), None),
    ("reject injecting new gate in AdmissionGatedBy annotation",
     [make_job(queue="queue", annotations={GATED: "example.com/controller1,example.com/controller2"})],
     make_job(queue="queue", annotations={GATED: "example.com/controller3"}),
     denial(FieldError.forbidden(_a(GATED), "can only remove gates, not add new ones"))),
    ("allow reordering gates in AdmissionGatedBy annotation",
     [make_job(queue="queue", annotations={GATED: "example.com/controller1,example.com/controller2"})],
     make_job(queue="queue", annotations={GATED: "example.com/controller2,example.com/controller1"}), None),
    ("immutable prebuilt workload ", [make_job(labels={PREBUILT: "old-workload"})],
     make_job(suspend=False, labels={PREBUILT: "new-workload"}),
     denial(_immutable(_q(PREBUILT), "new-workload"))),
    ("immutable prebuilt workload annotation, WorkloadIdentifierAnnotations enabled",
     [make_job(annotations={PREBUILT: "old-workload"})],
     make_job(suspend=False, annotations={PREBUILT: "new-workload"}),
     denial(_immutable(_a(PREBUILT), "new-workload"))),
    ("migrate from label to annotation, WorkloadIdentifierAnnotations enabled",
     [make_job(labels={PREBUILT: "workload-name"})],
     make_job(suspend=False, annotations={PREBUILT: "workload-name"}), None),
    # kbatch's rows: a suspended job may rename it (checked as on create, each message once)
    ("prebuilt workload renamed while suspended", [make_job(labels={PREBUILT: "old-workload"})],
     make_job(labels={PREBUILT: "new-workload"}), None),
    ("invalid prebuilt workload while suspended", [make_job(labels={PREBUILT: "old-workload"})],
     make_job(annotations={PREBUILT: "new workload"}),
     denial(FieldError.invalid(_a(PREBUILT), "new workload", RFC1123))),
    ("prebuilt workload removed from a running job", [make_job(suspend=False, labels={PREBUILT: "wl"})],
     make_job(suspend=False), denial(_immutable(_q(PREBUILT), ""))),
]


def _update(cp: ControlPlane, doc: dict[str, Any]) -> str | None:
    """An update as ``kubectl replace``: the stored object's metadata with ``doc``'s labels,
    annotations and spec."""
    stored = cp.client.get(Job, "job", "default").to_dict()
    stored["metadata"]["labels"] = doc["metadata"]["labels"]
    stored["metadata"]["annotations"] = doc["metadata"]["annotations"]
    spec = stored["spec"]
    for key in ("suspend", "parallelism"):
        spec[key] = doc["spec"].get(key)
    try:
        cp.client.update(Job.from_dict(stored))
    except Forbidden as err:
        return str(err.message)
    return None


@pytest.mark.parametrize(("case", "old", "new", "want"), UPDATE, ids=[c[0] for c in UPDATE])
def test_validate_update(case: str, old: list[dict[str, Any]], new: dict[str, Any], want: str | None) -> None:
    cp = _plane()
    cp.apply([old[0]])
    for doc in old[1:]:
        assert _update(cp, doc) is None
    assert _update(cp, new) == want


CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}
JOB_ONLY = {**CONFIG, "integrations": {"frameworks": ["batch/job"]}}
WITH_JOBSET = {**CONFIG, "integrations": {"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]}}
JOBSET_OWNER = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "owner",
                "uid": "owner", "controller": True}
_POD = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}
OWNER = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
         "metadata": {"name": "owner", "namespace": "default"},
         "spec": {"suspend": True, "replicatedJobs": [
             {"name": "r", "replicas": 1, "template": {"spec": {"template": {"spec": _POD}}}}]}}
DEFAULTS: list[tuple[str, dict[str, Any], dict[str, Any] | None, bool, bool | None, str | None]] = [
    # (case, job, configuration, default LocalQueue exists, want suspend, want queue-name label)
    ("update the suspend field with 'manageJobsWithoutQueueName=false'",
     make_job(queue="queue", suspend=False), None, False, True, "queue"),
    ("update the suspend field 'manageJobsWithoutQueueName=true'",
     make_job(suspend=False), {**CONFIG, "manageJobsWithoutQueueName": True}, False, True, None),
    ("no change in managed by: features.MultiKueue disabled",
     make_job(queue="queue", suspend=False), None, False, True, "queue"),
    ("invalid queue name", make_job(queue="invalid-local-queue", suspend=False), None, False, True,
     "invalid-local-queue"),
    ("default lq is created, job doesn't have queue label", make_job(), None, True, True, "default"),
    ("default lq is created, job has queue label", make_job(queue="test-queue"), None, True, True,
     "test-queue"),
    ("default lq isn't created, job doesn't have queue label", make_job(), None, False, True, None),
    # "job is managed by Kueue managed owner, ...": upstream's owner is an MPIJob (an integration
    # kbatch has no kind for); a JobSet with the jobset integration enabled is the same case. The
    # owner exists in both rows: kbatch always registers the JobSet kind, and a registered owner
    # kind that is missing fails the ancestor walk (test_upstream_find_ancestor.py).
    ("job is managed by Kueue managed owner, job doesn't have queue label",
     make_job(owner=JOBSET_OWNER), WITH_JOBSET, True, True, None),
    ("job is managed by non Kueue managed owner, job has queue label",
     make_job(owner=JOBSET_OWNER), JOB_ONLY, True, True, "default"),
]


@pytest.mark.parametrize(("case", "job", "config", "default_lq", "suspend", "queue"), DEFAULTS,
                         ids=[c[0] for c in DEFAULTS])
def test_default(case: str, job: dict[str, Any], config: dict[str, Any] | None, default_lq: bool,
                 suspend: bool | None, queue: str | None) -> None:
    cp = _plane(config=config)
    if job["metadata"].get("ownerReferences"):
        cp.apply([OWNER])
        uid = cp.client.get(JobSet, "owner", "default").metadata.uid
        job["metadata"]["ownerReferences"] = [{**JOBSET_OWNER, "uid": uid}]
    if default_lq:
        cp.apply([local_queue("default", "cluster-queue")])
    cp.apply([job])
    got = cp.client.get(Job, "job", "default")
    assert (got.spec.suspend, (got.metadata.labels or {}).get(QUEUE)) == (suspend, queue)
    assert got.spec.managed_by is None


QUEUE_ROWS = [
    # jobframework/validation_test.go TestValidateJobOnUpdate (queue rows; upstream compares type
    # and path only): (case, default LocalQueue exists, old queue, started, new queue, want error)
    ("local queue cannot be changed if job is not suspended", False, "lq1", True, "lq2",
     _immutable(_q(QUEUE), "lq2")),
    ("local queue can be changed", True, "lq1", False, "lq2", None),
    ("local queue can be changed from default", True, "default", False, "lq2", None),
    ("local queue cannot be removed if default queue exists and feature is enabled", True, "lq1", False, None,
     FieldError.invalid(_q(QUEUE), "", "queue-name must not be empty in namespace with default queue")),
    ("local queue can be removed if default queue does not exists and feature is enabled",
     False, "lq1", False, None, None),
]


@pytest.mark.parametrize(("case", "default_lq", "old_queue", "started", "new_queue", "want"), QUEUE_ROWS,
                         ids=[r[0] for r in QUEUE_ROWS])
def test_validate_job_on_update_queue_name(
    case: str, default_lq: bool, old_queue: str, started: bool, new_queue: str | None, want: FieldError | None
) -> None:
    cp = _plane()
    if default_lq:
        cp.apply([local_queue("default", "cluster-queue")])
    cp.apply([make_job(queue=old_queue)])
    if started:
        assert _update(cp, make_job(queue=old_queue, suspend=False)) is None
    got = _update(cp, make_job(queue=new_queue, suspend=not started))
    assert got == (denial(want) if want is not None else None)


# --- kbatch's own rows: the annotation and label are read with Go's strconv.Atoi -------------------------
@pytest.mark.parametrize(("value", "want"), [
    ("+3", None),  # Atoi takes a sign
    ("4294967297", None),  # Atoi takes it; upstream compares int32(v) == 1 with the pods count
    ("3\n", denial(FieldError.invalid(
        _a(MIN_PARALLELISM), "3\n", 'strconv.Atoi: parsing "3\\n": invalid syntax'))),
    ("99999999999999999999", denial(FieldError.invalid(
        _a(MIN_PARALLELISM), "99999999999999999999",
        'strconv.Atoi: parsing "99999999999999999999": value out of range'))),
])
def test_the_partial_admission_annotation_is_read_as_go_atoi_reads_it(value: str, want: str | None) -> None:
    job = make_job(parallelism=4, completions=6, annotations={MIN_PARALLELISM: value})
    assert _outcome(_plane(), job) == want


def test_a_maximum_execution_time_out_of_atois_range_is_refused() -> None:
    text = "99999999999999999999"
    job = make_job(parallelism=4, completions=4, indexed=True, labels={MAX_EXEC: text})
    assert _outcome(_plane(), job) == denial(
        FieldError.invalid(_q(MAX_EXEC), text, f'strconv.Atoi: parsing "{text}": value out of range'))
