"""The names Kueue's ProvisioningRequest check gives what it creates, and the attempt a name carries.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/provisioning/provisioning.go``
(``ProvisioningRequestName``, ``getProvisioningRequestPodTemplateName``, ``getAttempt``,
``matchesWorkloadAndCheck``) and ``controller.go`` (``limitObjectName``): a request is
``<workload>-<check>-<attempt>``, its pod templates ``ppt-<request>-<podset>``; a name longer than
247 characters keeps its first 247 and gains ``-`` and the first five hex digits of its SHA-1.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["attempt_of", "limit_object_name", "matches", "pod_template_name", "request_name"]

_HASH_LENGTH = 5
_MAX_PREFIX = 252 - _HASH_LENGTH  # 253 for a CRD name, less '-' and the hash
_POD_TEMPLATES_PREFIX = "ppt"


def limit_object_name(full: str) -> str:
    """``limitObjectName``."""
    if len(full) <= _MAX_PREFIX:
        return full
    digest = hashlib.sha1(full.encode(), usedforsecurity=False).hexdigest()
    return f"{full[:_MAX_PREFIX]}-{digest[:_HASH_LENGTH]}"


def request_name(workload: str, check: str, attempt: int) -> str:
    """``ProvisioningRequestName``."""
    return limit_object_name(f"{workload}-{check}-{attempt}")


def pod_template_name(request: str, pod_set: str) -> str:
    """``getProvisioningRequestPodTemplateName``."""
    return limit_object_name(f"{_POD_TEMPLATES_PREFIX}-{request}-{pod_set}")


def _attempt_match(name: str, workload: str, check: str) -> re.Match[str] | None:
    prefix = limit_object_name(f"{workload}-{check}-")
    return re.fullmatch(re.escape(prefix) + r"([0-9]+)", name)


def matches(name: str, workload: str, check: str) -> bool:
    """``matchesWorkloadAndCheck``: the request is one of this workload's for this check."""
    return _attempt_match(name, workload, check) is not None


def attempt_of(name: str, workload: str, check: str) -> int:
    """``getAttempt``: the attempt suffix, 1 when there is none."""
    m = _attempt_match(name, workload, check)
    return int(m.group(1)) if m is not None else 1
