"""Names a JobSet gives its children (``pkg/util/placement/placement.go``, ``jobset_controller.go``,
``volume_claim_policy.go``).

* child Job ``<jobset>-<replicatedJob>-<jobIndex>``; its pods (Indexed) ``<job>-<podIndex>-<5 chars>``,
  hostname ``<job>-<podIndex>``, reachable as ``<hostname>.<subdomain>`` through the headless Service
  named ``<subdomain>`` (``spec.network.subdomain``, default the JobSet's name);
* ``job-key``: the SHA-1 hex digest of ``<namespace>/<job>``;
* coordinator endpoint ``<jobset>-<rj>-<jobIndex>-<podIndex>.<subdomain>``;
* volume claim ``<template name>-<jobset>``;
* node-selector strategy label value ``<namespace>_<job>``.
"""

from __future__ import annotations

import hashlib

__all__ = [
    "coordinator_endpoint",
    "job_key",
    "job_name",
    "namespaced_job_name",
    "pod_name",
    "pvc_name",
    "strip_pod_suffix",
]


def job_name(jobset: str, rjob: str, index: int) -> str:
    return f"{jobset}-{rjob}-{index}"


def pod_name(jobset: str, rjob: str, job_index: str, pod_index: str) -> str:
    """The deterministic part of a pod's name (the API server appends 5 random characters)."""
    return f"{jobset}-{rjob}-{job_index}-{pod_index}"


def job_key(namespace: str, job: str) -> str:
    return hashlib.sha1(f"{namespace}/{job}".encode()).hexdigest()


def coordinator_endpoint(jobset: str, rjob: str, job_index: int, pod_index: int, subdomain: str) -> str:
    return f"{jobset}-{rjob}-{job_index}-{pod_index}.{subdomain}"


def pvc_name(jobset: str, template: str) -> str:
    return f"{template}-{jobset}"


def namespaced_job_name(namespace: str, job: str) -> str:
    """``'/'`` is not allowed in a label value, so upstream joins with ``'_'``."""
    return f"{namespace}_{job}"


def strip_pod_suffix(name: str) -> str | None:
    """``removePodNameSuffix``: the name without its last ``-`` part, when it has at least 5 parts."""
    parts = name.split("-")
    return "-".join(parts[:-1]) if len(parts) >= 5 else None
