"""Builders shared by the translated kubernetes-sigs/jobset v0.12.0 tables (``test_upstream_*.py``).

Upstream builds Go structs; these build the manifest a user would send, so every case goes through
kbatch's API: the CRD's structural defaults and schema, ``mjobset.kb.io``, then ``vjobset.kb.io``.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.errors import NotFound, StatusError
from kbatch.api.jobset_v1alpha2 import JobSet

API_VERSION = "jobset.x-k8s.io/v1alpha2"
MAX_INT32 = 2**31 - 1


def pod_spec(**extra: Any) -> dict[str, Any]:
    """upstream's ``validPodTemplateSpec`` / ``TestPodTemplate``: one container ``test``."""
    return {"containers": [{"name": "test", "image": "bash:latest"}], **extra}


def rjob(name: str = "rj", replicas: int | None = 1, *, parallelism: int | None = None,
         completions: int | None = None, mode: str | None = None, pod: dict[str, Any] | None = None,
         pod_meta: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    job: dict[str, Any] = {"template": {"spec": pod if pod is not None else pod_spec()}}
    if pod_meta:
        job["template"]["metadata"] = pod_meta
    for key, value in (("parallelism", parallelism), ("completions", completions), ("completionMode", mode)):
        if value is not None:
            job[key] = value
    out: dict[str, Any] = {"name": name, "template": {"spec": job}, **extra}
    if replicas is not None:
        out["replicas"] = replicas
    return out


def indexed(name: str = "rj", replicas: int = 1, n: int = 1, **extra: Any) -> dict[str, Any]:
    """A replicated job of Indexed Jobs with ``parallelism = completions = n``."""
    return rjob(name, replicas, parallelism=n, completions=n, mode="Indexed", **extra)


def jobset(*rjobs: dict[str, Any], name: str = "js", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": "JobSet", "metadata": {"name": name},
            "spec": {"replicatedJobs": list(rjobs) if rjobs else [indexed()], **spec}}


def plane(gates: str = "") -> ControlPlane:
    """An API server only: the webhooks run, no controller acts."""
    return ControlPlane(seed=1, controllers="", feature_gates=gates or None)


def create(cp: ControlPlane, manifest: dict[str, Any]) -> StatusError | None:
    """The refusal of creating ``manifest`` (nothing stored), or None when it was created."""
    try:
        cp.apply(manifest)
    except StatusError as err:
        with pytest.raises(NotFound):
            cp.client.get(JobSet, manifest["metadata"]["name"], "default")
        return err
    return None


def causes(err: StatusError) -> list[tuple[str, str]]:
    """(field, message) of each cause of a 422."""
    details = err.status.details
    return [(c.field or "", c.message or "") for c in (details.causes or () if details else ())]
