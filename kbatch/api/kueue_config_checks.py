"""Kueue Configuration rules for the sections kbatch accepts without acting on them.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/config/validation.go`` (``validateIntegrations``'s
external frameworks, ``validateMultiKueue``, ``validateInternalCertManagement``,
``validateResourceTransformations``'s duplicate inputs, ``validateVisibilityServer``) over the
values ``apis/config/v1beta2/defaults.go`` leaves. kbatch runs no MultiKueue, webhook certificates
or visibility server, yet a Configuration Kueue's manager refuses is refused here too, with its
messages. Each function takes the decoded section (a mapping, or the modelled integrations) and
returns field errors.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

from kbatch.api.cron import go_duration_seconds
from kbatch.api.errors import FieldError
from kbatch.api.kueue_config_clusterprofile import cluster_profile_errors
from kbatch.api.validation import is_dns1035_label, is_dns1123_subdomain, is_valid_label_value

__all__ = [
    "FRAMEWORK_KINDS",
    "external_framework_errors",
    "internal_cert_errors",
    "multikueue_errors",
    "transformation_input_errors",
    "visibility_server_errors",
]

NEGATIVE = "must be greater than or equal to 0"
INCREMENTAL = "kueue.x-k8s.io/multikueue-dispatcher-incremental"

# the kind each built-in integration manages, as group/version/kind (pkg/controller/jobs/*: the
# JobType each integration registers); external frameworks may not name one of these again
FRAMEWORK_KINDS: Mapping[str, tuple[str, str, str]] = {
    "batch/job": ("batch", "v1", "Job"),
    "kubeflow.org/mpijob": ("kubeflow.org", "v2beta1", "MPIJob"),
    "ray.io/rayjob": ("ray.io", "v1", "RayJob"),
    "ray.io/raycluster": ("ray.io", "v1", "RayCluster"),
    "ray.io/rayservice": ("ray.io", "v1", "RayService"),
    "jobset.x-k8s.io/jobset": ("jobset.x-k8s.io", "v1alpha2", "JobSet"),
    "workload.codeflare.dev/appwrapper": ("workload.codeflare.dev", "v1beta2", "AppWrapper"),
    "trainer.kubeflow.org/trainjob": ("trainer.kubeflow.org", "v1alpha1", "TrainJob"),
    "pod": ("", "v1", "Pod"),
    "deployment": ("apps", "v1", "Deployment"),
    "statefulset": ("apps", "v1", "StatefulSet"),
    "leaderworkerset.x-k8s.io/leaderworkerset": ("leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet"),
    "kubeflow.org/paddlejob": ("kubeflow.org", "v1", "PaddleJob"),
    "kubeflow.org/pytorchjob": ("kubeflow.org", "v1", "PyTorchJob"),
    "kubeflow.org/tfjob": ("kubeflow.org", "v1", "TFJob"),
    "kubeflow.org/xgboostjob": ("kubeflow.org", "v1", "XGBoostJob"),
    "kubeflow.org/jaxjob": ("kubeflow.org", "v1", "JAXJob"),
    "sparkoperator.k8s.io/sparkapplication": ("sparkoperator.k8s.io", "v1beta2", "SparkApplication"),
}


def _parse_kind_arg(arg: str) -> tuple[str, str, str] | None:
    """apimachinery's ``schema.ParseKindArg``: ``Kind.version.group`` (two dots at least)."""
    if arg.count(".") < 2:
        return None
    kind, version, group = arg.split(".", 2)
    return group, version, kind


def external_framework_errors(frameworks: Sequence[str], external: Sequence[str]) -> list[FieldError]:
    """``validateIntegrations``: each external framework is ``Kind.version.group`` and names a
    kind no built-in or earlier external framework manages."""
    managed = {FRAMEWORK_KINDS[name] for name in frameworks if name in FRAMEWORK_KINDS}
    errs = []
    for i, arg in enumerate(external):
        path = f"integrations.externalFrameworks[{i}]"
        gvk = _parse_kind_arg(arg)
        if gvk is None:
            errs.append(FieldError.invalid(path, arg, "must be format, 'Kind.version.group.com'"))
        elif gvk in managed:
            errs.append(FieldError.duplicate(path, arg))
        else:
            managed.add(gvk)
    return errs


def _negative_duration(section: Mapping[str, Any], name: str, path: str) -> list[FieldError]:
    text = section.get(name)  # parsed at decoding (kbatch.api.gotypes.DurationPtr)
    if not isinstance(text, str):
        return []
    return [FieldError.invalid(path, text, NEGATIVE)] if go_duration_seconds(text) < 0 else []


def multikueue_errors(mk: Mapping[str, Any] | None) -> list[FieldError]:
    """``validateMultiKueue`` without the external-framework rules."""
    if not mk:
        return []
    errs = _negative_duration(mk, "gcInterval", "multiKueue.gcInterval")
    errs += _negative_duration(mk, "workerLostTimeout", "multiKueue.workerLostTimeout")
    origin = mk.get("origin")
    if isinstance(origin, str) and origin:  # "" is defaulted to "multikueue"
        msgs = is_valid_label_value(origin)
        if msgs:
            errs.append(FieldError.invalid("multiKueue.origin", origin, ",".join(msgs)))
    errs += cluster_profile_errors(mk)
    idc = mk.get("incrementalDispatcherConfig")
    if isinstance(idc, Mapping):
        if mk.get("dispatcherName") != INCREMENTAL:
            errs.append(
                FieldError.invalid(
                    "multiKueue.incrementalDispatcherConfig",
                    dict(idc),
                    "incrementalDispatcherConfig is only valid when dispatcherName is set to the "
                    "incremental dispatcher",
                )
            )
        step = idc.get("stepSize")
        if isinstance(step, int) and step < 1:
            errs.append(
                FieldError.invalid(
                    "multiKueue.incrementalDispatcherConfig.stepSize",
                    step,
                    "must be greater than or equal to 1",
                )
            )
    return errs


def internal_cert_errors(icm: Mapping[str, Any] | None) -> list[FieldError]:
    """``validateInternalCertManagement``: names checked only when enabled (the default)."""
    icm = icm or {}
    if icm.get("enable") is False:
        return []
    errs = []
    checks = (("webhookServiceName", is_dns1035_label), ("webhookSecretName", is_dns1123_subdomain))
    for name, check in checks:
        value = icm.get(name)
        if isinstance(value, str):
            msgs = check(value)
            if msgs:
                errs.append(FieldError.invalid(f"internalCertManagement.{name}", value, ",".join(msgs)))
    return errs


def transformation_input_errors(inputs: Sequence[str]) -> list[FieldError]:
    """``validateResourceTransformations``: one transformation per input resource."""
    seen: set[str] = set()
    errs = []
    for i, name in enumerate(inputs):
        if name in seen:
            errs.append(FieldError.duplicate(f"resources.transformations[{i}].input", name))
        seen.add(name)
    return errs


def _is_ip(text: str) -> bool:
    """Go's ``net.ParseIP``: IPv4 or IPv6, no zone."""
    if "%" in text:
        return False
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def visibility_server_errors(vs: Mapping[str, Any] | None) -> list[FieldError]:
    """``validateVisibilityServer``: an IP address and a port in 1-65535."""
    vs = vs or {}
    errs = []
    address = vs.get("bindAddress")
    if isinstance(address, str) and not _is_ip(address):
        errs.append(FieldError.invalid("visibilityServer.bindAddress", address, "must be a valid IP address"))
    port = vs.get("bindPort")
    if isinstance(port, int) and not 1 <= port <= 65535:
        errs.append(
            FieldError.invalid("visibilityServer.bindPort", port, "must be a valid port number (1-65535)")
        )
    return errs
