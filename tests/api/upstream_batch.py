"""Helpers for the translated upstream batch validation tables: a Job or CronJob goes to an
:class:`APIServer` as a user's object would (defaulting, selector generation, validation), and a
rejection is read back as the 422's ``status.details.causes``."""

from __future__ import annotations

import copy
import random
from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch.api.batch_v1 import CronJob, Job
from kbatch.api.errors import Invalid
from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore

# upstream getValidPodTemplateSpecForGenerated: restartPolicy OnFailure, container "abc" and
# init container "def"
TEMPLATE: dict[str, Any] = {
    "spec": {
        "restartPolicy": "OnFailure",
        "containers": [{"name": "abc", "image": "image"}],
        "initContainers": [{"name": "def", "image": "image"}],
    }
}


def server() -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                     rng=random.Random(3))


def template(restart: str = "OnFailure", labels: dict[str, str] | None = None,
             **pod: Any) -> dict[str, Any]:
    t = copy.deepcopy(TEMPLATE)
    t["spec"]["restartPolicy"] = restart
    t["spec"].update(pod)
    if labels is not None:
        t["metadata"] = {"labels": labels}
    return t


def job(spec: dict[str, Any] | None = None, name: str = "myjob", **meta: Any) -> Job:
    body = {"template": template(), **(spec or {})}
    return Job.model_validate({"metadata": {"name": name, "namespace": "default", **meta}, "spec": body})


def cronjob(spec: dict[str, Any] | None = None, job_spec: dict[str, Any] | None = None,
            name: str = "mycronjob") -> CronJob:
    body = {"schedule": "* * * * ?", "concurrencyPolicy": "Allow",
            "jobTemplate": {"spec": {"template": template(), **(job_spec or {})}}, **(spec or {})}
    return CronJob.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": body})


def causes_of(err: Invalid) -> list[tuple[str, str, str]]:
    return [(c["field"], c["reason"], c["message"]) for c in err.status.to_dict()["details"]["causes"]]


def rejected(call: Any, *args: Any) -> list[tuple[str, str, str]]:
    """The causes of the 422 that ``call(*args)`` must raise."""
    with pytest.raises(Invalid) as err:
        call(*args)
    assert err.value.status.code == 422
    return causes_of(err.value)


def first_error(causes: list[tuple[str, str, str]]) -> str:
    """The first cause as upstream's ``field.Error.Error()`` prints it (``field: message``)."""
    field, _, message = causes[0]
    return f"{field}: {message}"
