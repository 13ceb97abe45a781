"""batch/v1 models: wire shape, round trips of upstream-style manifests, registry entries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from ruamel.yaml import YAML

from kbatch.api.batch_v1 import CronJob, Job
from kbatch.families import builtin_registry

MANIFESTS = Path(__file__).parent / "manifests" / "batch"
VALID = sorted(p for p in MANIFESTS.glob("*.yaml") if not p.name.startswith("invalid_"))
KINDS: dict[str, type[Job] | type[CronJob]] = {"Job": Job, "CronJob": CronJob}


def load(path: Path) -> dict[str, Any]:
    data = YAML(typ="safe").load(path.read_text())
    return json.loads(json.dumps(data))  # plain JSON types, as an API request body


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_manifest_round_trip(path: Path) -> None:
    data = load(path)
    obj = KINDS[data["kind"]].from_dict(data)
    assert obj.to_dict() == data
    assert type(obj).from_json(obj.to_json()).to_dict() == data


def test_python_names_and_wire_names() -> None:
    job = Job.from_dict(load(MANIFESTS / "job_full.yaml"))
    assert job.spec.ttl_seconds_after_finished == 100
    assert job.spec.pod_failure_policy is not None
    assert job.spec.pod_failure_policy.rules[0].on_exit_codes.values == [3, 4]  # type: ignore[union-attr]
    assert job.status is not None and job.status.uncounted_terminated_pods is not None
    assert job.status.uncounted_terminated_pods.failed == ["b2", "b3"]
    assert job.status.is_true("FailureTarget") and not job.status.is_true("Failed")
    assert job.api_version == "batch/v1" and job.kind == "Job"
    cron = CronJob.from_dict(load(MANIFESTS / "cronjob_full.yaml"))
    assert cron.spec.time_zone == "Europe/Berlin"
    assert cron.status is not None and cron.status.active is not None
    assert cron.status.active[0].resource_version == "42"


def test_seed_slide_with_misplaced_job_fields_is_rejected_with_the_field_path() -> None:
    """Seed 004's slide indents backoffLimit/podFailurePolicy under the pod spec: unknown fields."""
    with pytest.raises(ValidationError) as err:
        Job.from_dict(load(MANIFESTS / "invalid_seed_pfp_slide.yaml"))
    locations = {e["loc"] for e in err.value.errors()}
    assert locations == {
        ("spec", "template", "spec", "backoffLimit"),
        ("spec", "template", "spec", "podFailurePolicy"),
    }
    assert all(e["type"] == "extra_forbidden" for e in err.value.errors())


@pytest.mark.parametrize(
    ("field", "value"),
    [("parallelism", 2**31), ("completions", "3"), ("backoffLimit", 1.5), ("suspend", "yes")],
)
def test_scalars_decode_like_go(field: str, value: object) -> None:
    data = load(MANIFESTS / "pi.yaml")
    data["spec"][field] = value
    with pytest.raises(ValidationError):
        Job.from_dict(data)


def test_registry_entries() -> None:
    registry = builtin_registry()
    job, cron = registry.for_model(Job), registry.for_model(CronJob)
    assert job.info.group_resource == "jobs.batch" and job.info.namespaced
    assert cron.info.short_names == ("cj",) and cron.info.plural == "cronjobs"
    assert registry.for_name("cj") is cron
    assert registry.for_name("jobs.batch") is job
    assert registry.for_gvk("batch/v1", "CronJob") is cron


def test_status_absent_until_written() -> None:
    job = Job.from_dict(load(MANIFESTS / "pi.yaml"))
    assert job.status is None
    assert "status" not in job.to_dict()
