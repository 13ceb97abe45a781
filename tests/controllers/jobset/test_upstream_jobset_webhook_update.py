"""Upstream's ``TestValidateUpdate`` table, through kbatch's API.

Source: kubernetes-sigs/jobset v0.12.0 ``pkg/webhooks/jobset_webhook_test.go`` (``TestValidateUpdate``)
and ``jobset_webhook.go`` (``ValidateUpdate``). Upstream calls ``ValidateUpdate(old, new)`` and, for a
refusal, checks a ``422 Invalid`` whose every cause's field and reason appear in the wanted errors.
Here the old JobSet is created (its status written through ``/status`` where the case needs a
terminal condition) and the new spec sent as an update, so the CRD's defaults and ``mjobset.kb.io``
run on both as they would in a cluster; the refusal's causes are compared with upstream's (field,
message).

Translation note: upstream's replicated jobs have no containers; the CRD requires them, so each gets
one (unchanged between old and new).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import Invalid, StatusError
from kbatch.api.jobset_v1alpha2 import JobSet

from .upstream_helpers import causes, jobset, plane, rjob

RJ0 = "test-jobset-replicated-job-0"
IMMUTABLE = ("spec.replicatedJobs", "field is immutable")
TERMINAL = "Cannot mutate parallelism or completions when JobSet is in a terminal state (Completed or Failed)"
ELASTIC = "ElasticJobSet=true"


def _valid() -> list[dict[str, Any]]:
    """upstream's ``validReplicatedJobs``."""
    return [rjob(RJ0, 1, parallelism=1), rjob("test-jobset-replicated-job-1", 1, parallelism=1)]


def _rj(name: str = RJ0, replicas: int | None = 2, **job: Any) -> dict[str, Any]:
    return rjob(name, replicas, **job)


def _annotated(**job: Any) -> dict[str, Any]:
    return _rj(pod_meta={"annotations": {"key": "value"}}, **job)


def _gated(**job: Any) -> dict[str, Any]:
    pod = {"containers": [{"name": "test", "image": "bash:latest"}],
           "schedulingGates": [{"name": "example.com/gate"}]}
    return _rj(pod=pod, **job)


def _spec(rjobs: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return jobset(*rjobs, **spec)["spec"]


def _as_stored(spec: dict[str, Any], gates: str) -> dict[str, Any]:
    """The new spec as a user editing the stored JobSet writes it: with the defaults the CRD and
    ``mjobset.kb.io`` gave the stored one (upstream's table compares two undefaulted structs;
    ``mjobset.kb.io`` runs on CREATE only, so an update is not defaulted again)."""
    created = plane(gates).client.create(JobSet.model_validate({**jobset(), "spec": spec}), dry_run=True)
    return created.to_dict()["spec"]


def _update(old: dict[str, Any], new: dict[str, Any], gates: str = "", condition: str | None = None,
            labels: dict[str, str] | None = None) -> StatusError | None:
    cp = plane(gates)
    cp.apply({**jobset(), "spec": old})
    if condition is not None:
        stored = cp.client.get(JobSet, "js", "default").to_dict()
        stored["status"] = {"conditions": [{"type": condition, "status": "True", "reason": "r",
                                            "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
        cp.client.update_status(JobSet.model_validate(stored))
    stored = cp.client.get(JobSet, "js", "default").to_dict()
    stored["spec"] = _as_stored(new, gates)
    if labels:
        stored["metadata"]["labels"] = labels
    try:
        cp.client.update(JobSet.model_validate(stored))
    except StatusError as err:
        return err
    return None


# (upstream case name, old spec, new spec, gates, old terminal condition, wanted (field, message) causes)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], str, str | None, list[tuple[str, str]]]] = [
    ("update suspend", _spec(_valid(), suspend=True), _spec(_valid()), "", None, []),
    ("managedBy is immutable", _spec(_valid(), managedBy="example.com/old"),
     _spec(_valid(), managedBy="example.com/new"), "", None,
     [("spec.managedBy", 'Invalid value: "example.com/new": field is immutable')]),
    ("replicated job pod template can be updated for suspended jobset",
     _spec([_rj(parallelism=2)], suspend=True), _spec([_annotated(parallelism=2)]), "", None, []),
    ("replicated job pod template can be updated for jobset getting suspended",
     _spec([_rj(parallelism=2)], suspend=False), _spec([_annotated(parallelism=2)], suspend=True), "", None,
     []),
    ("replicated job pod template cannot be updated for running jobset",
     _spec([_rj(parallelism=2)]), _spec([_annotated(parallelism=2)]), "", None, [IMMUTABLE]),
    ("schedulingGates for pod template can be updated for suspended JobSet",
     _spec([_rj(parallelism=2)], suspend=True), _spec([_gated(parallelism=2)]), "", None, []),
    ("schedulingGates for pod template cannot be updated for unsuspended JobSet",
     _spec([_rj(parallelism=2)]), _spec([_gated(parallelism=2)]), "", None, [IMMUTABLE]),
    ("replicated job name cannot be updated", _spec([_rj(parallelism=2)], suspend=True),
     _spec([_rj("new-replicated-job-name", parallelism=2)]), "", None, [IMMUTABLE]),
    ("valid scaling of parallelism and completions",
     _spec([_rj(mode="Indexed", parallelism=2, completions=2)]),
     _spec([_rj(mode="Indexed", parallelism=8, completions=8)]), ELASTIC, None, []),
    ("invalid scaling of parallelism to < 1", _spec([_rj(RJ0, None, mode="Indexed", parallelism=2)]),
     _spec([_rj(RJ0, None, mode="Indexed", parallelism=0)]), ELASTIC, None,
     [("spec.replicatedJobs[0].template.spec.parallelism", "Invalid value: 0: parallelism must be >= 1")]),
    ("invalid scaling of completions to < 1", _spec([_rj(RJ0, None, mode="Indexed", completions=2)]),
     _spec([_rj(RJ0, None, mode="Indexed", completions=0)]), ELASTIC, None,
     [("spec.replicatedJobs[0].template.spec.completions", "Invalid value: 0: completions must be >= 1")]),
    ("cannot scale parallelism if JobSet is Completed",
     _spec([_rj(RJ0, None, mode="Indexed", parallelism=2)]),
     _spec([_rj(RJ0, None, mode="Indexed", parallelism=4)]), ELASTIC, "Completed",
     [("spec.replicatedJobs[0].template.spec", f"Forbidden: {TERMINAL}")]),
    ("cannot scale completions if JobSet is Failed", _spec([_rj(RJ0, None, mode="Indexed", completions=2)]),
     _spec([_rj(RJ0, None, mode="Indexed", completions=4)]), ELASTIC, "Failed",
     [("spec.replicatedJobs[0].template.spec", f"Forbidden: {TERMINAL}")]),
    ("immutability still enforced for other fields during valid scale",
     _spec([_rj(RJ0, None, mode="Indexed", parallelism=2)]),
     _spec([_rj(RJ0, 2, mode="Indexed", parallelism=4)]),
     ELASTIC, None, [IMMUTABLE]),
    ("invalid scaling of parallelism and completions when feature gate is disabled",
     _spec([_rj(parallelism=2, completions=2)]), _spec([_rj(parallelism=8, completions=8)]), "", None,
     [IMMUTABLE]),
    ("invalid scaling: parallelism and completions must be equal",
     _spec([_rj(mode="Indexed", parallelism=2, completions=2)]),
     _spec([_rj(mode="Indexed", parallelism=4, completions=5)]), ELASTIC, None,
     [("spec.replicatedJobs[0].template.spec.completions",
       "Invalid value: 5: completions must be equal to parallelism for Elastic Indexed Jobs")]),
    ("adding a new ReplicatedJob while suspended does not panic and is rejected",
     _spec([_rj("job-a", 1)], suspend=True), _spec([_rj("job-a", 1), _rj("job-b", 1)], suspend=True), "",
     None, [IMMUTABLE]),
    ("reordering ReplicatedJobs evaluates ElasticJobSet scaling correctly by name",
     _spec([_rj("job-a", 1), _rj("job-b", 1)]), _spec([_rj("job-b", 1), _rj("job-a", 1)]), ELASTIC, None,
     [IMMUTABLE]),
    ("invalid scaling: immutability enforced for NonIndexed jobs even when ElasticJobSet is enabled",
     _spec([_rj(RJ0, None, mode="NonIndexed", parallelism=2, completions=2)]),
     _spec([_rj(RJ0, None, mode="NonIndexed", parallelism=4, completions=4)]), ELASTIC, None, [IMMUTABLE]),
]


def _core(message: str) -> str:
    """The part of a cause's message upstream compares: after ``Invalid value: <v>: `` (the value of a
    whole replicated-job list is Go's ``%#v``, not comparable)."""
    return message.rsplit(": ", 1)[-1]


@pytest.mark.parametrize(("case", "old", "new", "gates", "condition", "want"), CASES,
                         ids=[c[0] for c in CASES])
def test_validate_update(case: str, old: dict[str, Any], new: dict[str, Any], gates: str,
                         condition: str | None, want: list[tuple[str, str]]) -> None:
    err = _update(old, new, gates, condition)
    if not want:
        assert err is None, f"{case}: {err}"
        return
    assert isinstance(err, Invalid) and err.status.code == 422, f"{case}: {err!r}"
    assert err.message.startswith('admission webhook "vjobset.kb.io" denied the request: '), err.message
    got = causes(err)
    assert [(f, _core(m)) for f, m in got] == [(f, _core(m)) for f, m in want], err.message
    for (field, message), cause in zip(want, got, strict=True):
        if (field, message) != IMMUTABLE:  # a scalar value: the whole message is comparable
            assert cause == (field, message)


def test_update_labels() -> None:
    """Upstream's "update labels": the JobSet's own labels change, the spec does not."""
    assert _update(_spec(_valid(), suspend=True), _spec(_valid()), labels={"hello": "world"}) is None


def test_an_update_is_not_defaulted_again() -> None:
    """``mjobset.kb.io`` is registered for CREATE only (v0.12.0 ``jobset_webhook.go``
    ``+kubebuilder:webhook ... verbs=create ... name=mjobset.kb.io``; ``config/components/webhook``
    and the Helm chart list ``CREATE``): a PUT whose replicated job lacks the defaulted pod
    ``restartPolicy`` is compared as sent, and the replicated jobs differ."""
    cp = plane()
    cp.apply(jobset())
    stored = cp.client.get(JobSet, "js", "default").to_dict()
    del stored["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["restartPolicy"]
    with pytest.raises(Invalid) as info:
        cp.client.update(JobSet.model_validate(stored))
    assert [field for field, _ in causes(info.value)] == ["spec.replicatedJobs"]
    assert info.value.message.endswith("field is immutable")
