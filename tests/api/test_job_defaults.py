"""Job and CronJob defaulting and create/update preparation (pkg/apis/batch/v1/defaults.go,
pkg/registry/batch/job/strategy.go)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api import batch_constants as bc
from kbatch.api.batch_v1 import CronJob, Job, JobStatus
from kbatch.api.strategies.batch import CronJobStrategy, JobStrategy, default_cronjob, default_job

UID = "3f2a1c0e-0000-4000-8000-00000000abcd"


def job(spec: dict[str, Any] | None = None, **meta: Any) -> Job:
    base: dict[str, Any] = {
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    }
    return Job.from_dict({"metadata": {"name": "pi", **meta}, "spec": {**base, **(spec or {})}})


@pytest.mark.parametrize(
    ("given", "want"),
    [
        ({}, {"parallelism": 1, "completions": 1}),
        ({"completions": 5}, {"parallelism": 1, "completions": 5}),
        ({"parallelism": 3}, {"parallelism": 3, "completions": None}),  # work queue
        ({"parallelism": 0, "completions": 0}, {"parallelism": 0, "completions": 0}),
    ],
)
def test_parallelism_and_completions(given: dict[str, int], want: dict[str, int | None]) -> None:
    j = job(given)
    default_job(j)
    assert (j.spec.parallelism, j.spec.completions) == (want["parallelism"], want["completions"])


def test_scalar_defaults() -> None:
    j = job()
    default_job(j)
    spec = j.spec
    assert spec.backoff_limit == 6
    assert spec.completion_mode == "NonIndexed"
    assert spec.suspend is False
    assert spec.manual_selector is False
    assert spec.pod_replacement_policy == "TerminatingOrFailed"
    assert spec.active_deadline_seconds is None and spec.ttl_seconds_after_finished is None
    assert spec.backoff_limit_per_index is None and spec.max_failed_indexes is None
    assert spec.success_policy is None and spec.managed_by is None


def test_backoff_limit_with_per_index_limit_is_max_int32() -> None:
    j = job({"completionMode": "Indexed", "completions": 3, "backoffLimitPerIndex": 1})
    default_job(j)
    assert j.spec.backoff_limit == 2**31 - 1
    explicit = job(
        {"completionMode": "Indexed", "completions": 3, "backoffLimitPerIndex": 1, "backoffLimit": 2}
    )
    default_job(explicit)
    assert explicit.spec.backoff_limit == 2


def test_pod_failure_policy_defaults() -> None:
    j = job(
        {
            "podFailurePolicy": {
                "rules": [
                    {
                        "action": "Ignore",
                        "onPodConditions": [{"type": "DisruptionTarget"}, {"type": "X", "status": "False"}],
                    },
                ]
            }
        }
    )
    default_job(j)
    assert j.spec.pod_replacement_policy == "Failed"
    patterns = j.spec.pod_failure_policy.rules[0].on_pod_conditions  # type: ignore[union-attr]
    assert [p.status for p in patterns or ()] == ["True", "False"]


def test_explicit_values_are_kept() -> None:
    j = job(
        {
            "backoffLimit": 0,
            "suspend": True,
            "completionMode": "Indexed",
            "completions": 2,
            "podReplacementPolicy": "Failed",
            "manualSelector": True,
        }
    )
    default_job(j)
    assert (j.spec.backoff_limit, j.spec.suspend, j.spec.completion_mode) == (0, True, "Indexed")
    assert (j.spec.pod_replacement_policy, j.spec.manual_selector) == ("Failed", True)


def test_job_labels_copied_from_template_only_when_empty() -> None:
    bare = job()
    default_job(bare)
    assert bare.metadata.labels is None  # no template labels: nothing to copy
    template = {
        "metadata": {"labels": {"app": "x"}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]},
    }
    copied = job({"template": template})
    default_job(copied)
    assert copied.metadata.labels == {"app": "x"}
    own = job({"template": template}, labels={"team": "a"})
    default_job(own)
    assert own.metadata.labels == {"team": "a"}


def test_prepare_for_create_generates_selector_and_labels() -> None:
    strategy = JobStrategy()
    j = job(uid=UID)
    j.status = JobStatus(active=3)
    strategy.default(j)
    strategy.prepare_for_create(j)
    generated = {
        "batch.kubernetes.io/controller-uid": UID,
        "controller-uid": UID,
        "batch.kubernetes.io/job-name": "pi",
        "job-name": "pi",
    }
    assert j.spec.template.metadata is not None and j.spec.template.metadata.labels == generated
    assert j.spec.selector is not None and j.spec.selector.match_labels == {bc.CONTROLLER_UID_LABEL: UID}
    assert j.metadata.labels == generated  # upstream: the Job carries its template's labels
    assert j.status is None and j.metadata.generation == 1
    assert strategy.validate(j) == []


def test_selector_generation_keeps_user_labels_and_user_values() -> None:
    template = {
        "metadata": {"labels": {"app": "x", "job-name": "y"}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]},
    }
    j = job({"template": template}, uid=UID, labels={"team": "a"})
    strategy = JobStrategy()
    strategy.default(j)
    strategy.prepare_for_create(j)
    labels = j.spec.template.metadata.labels if j.spec.template.metadata else {}
    assert labels["app"] == "x" and labels["job-name"] == "y"  # conflicting value left for validation
    assert j.metadata.labels == {"team": "a"}
    errors = [str(e) for e in strategy.validate(j)]
    assert any(e.startswith("spec.template.metadata.labels[job-name]: Invalid value") for e in errors)


def test_manual_selector_is_not_generated() -> None:
    j = job(
        {
            "manualSelector": True,
            "selector": {"matchLabels": {"app": "x"}},
            "template": {
                "metadata": {"labels": {"app": "x"}},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]},
            },
        },
        uid=UID,
    )
    strategy = JobStrategy()
    strategy.default(j)
    strategy.prepare_for_create(j)
    assert j.spec.selector is not None and j.spec.selector.match_labels == {"app": "x"}
    assert j.spec.template.metadata is not None and j.spec.template.metadata.labels == {"app": "x"}
    assert strategy.validate(j) == []


def test_update_keeps_status_and_generation_follows_spec() -> None:
    strategy = JobStrategy()
    old = job(uid=UID)
    strategy.default(old)
    strategy.prepare_for_create(old)
    old.status = JobStatus(active=1)
    new = old.clone()
    new.status = JobStatus(active=7)
    strategy.prepare_for_update(new, old)
    assert new.status == old.status
    assert not strategy.spec_changed(new, old)
    new.spec.parallelism = 4
    assert strategy.spec_changed(new, old)


def test_status_update_keeps_spec() -> None:
    strategy = JobStrategy()
    old = job(uid=UID)
    new = old.clone()
    new.spec.parallelism = 9
    new.status = JobStatus(active=1)
    strategy.prepare_for_status_update(new, old)
    assert new.spec == old.spec and new.status == JobStatus(active=1)


def test_cronjob_defaults() -> None:
    cj = CronJob.from_dict(
        {
            "metadata": {"name": "hello"},
            "spec": {
                "schedule": "* * * * *",
                "jobTemplate": {
                    "spec": {
                        "podFailurePolicy": {
                            "rules": [{"action": "Ignore", "onPodConditions": [{"type": "A"}]}]
                        },
                        "template": {
                            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}
                        },
                    }
                },
            },
        }
    )
    default_cronjob(cj)
    assert cj.spec.concurrency_policy == "Allow" and cj.spec.suspend is False
    assert (cj.spec.successful_jobs_history_limit, cj.spec.failed_jobs_history_limit) == (3, 1)
    template = cj.spec.job_template.spec
    # SetDefaults_Job is not applied to job templates; only nested-type defaults are.
    assert (
        template.parallelism is None and template.backoff_limit is None and template.completion_mode is None
    )
    assert template.pod_failure_policy.rules[0].on_pod_conditions[0].status == "True"  # type: ignore[union-attr,index]
    strategy = CronJobStrategy()
    strategy.prepare_for_create(cj)
    assert cj.status is None and cj.metadata.generation == 1
    assert strategy.validate(cj) == []


def test_create_through_the_api_server_generates_the_selector_from_the_uid() -> None:
    out = _api_server().create(job())
    uid = out.metadata.uid
    assert uid and out.spec.selector is not None
    assert out.spec.selector.match_labels == {bc.CONTROLLER_UID_LABEL: uid}
    assert out.metadata.labels is not None and out.metadata.labels[bc.JOB_NAME_LABEL] == "pi"
    assert out.metadata.generation == 1 and out.status == JobStatus()  # upstream: "status": {}


def _api_server() -> Any:
    import random
    from datetime import UTC, datetime

    from kbatch.apiserver import APIServer
    from kbatch.families import builtin_registry
    from kbatch.store import MemoryStore

    return APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2024, 1, 1, tzinfo=UTC),
                     rng=random.Random(1))


def test_create_with_generate_name_labels_pods_with_the_generated_name() -> None:
    generated = _api_server().create(Job.from_dict({**job().to_dict(), "metadata": {"generateName": "pi-"}}))
    labels = generated.spec.template.metadata.labels if generated.spec.template.metadata else {}
    assert labels and labels[bc.JOB_NAME_LABEL] == generated.metadata.name != "pi-"
