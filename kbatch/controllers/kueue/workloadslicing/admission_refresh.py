"""What the admission checks' pod set updates add to an elastic pod as the ungater lets it run.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/elasticjobs/elastic_job_ungater.go``
(``admissionUpdateForPodSet``, ``podAdmissionCompatible``, ``refreshPodAdmission``). A scale-up's
pods are made from the Job's template, stamped at an earlier slice's admission, while the active
slice's checks (a ProvisioningRequest's) may name other nodes. Per pod set, every check's
``podSetUpdates`` entry of that name contributes its node selector and, of its annotations, only the
ProvisioningRequest's two (the consumed request and its class); two checks giving one key different
values is an error (the reconcile is retried). A gated pod whose annotation or node selector already
holds another value for a key is *incompatible*: it stays gated (it has to be recreated from a
refreshed template). Ungating a compatible pod adds the annotations it lacks (a consumed request is
never replaced) and sets the node selector keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kbatch.api.autoscaling_x_v1 import CONSUME_ANNOTATION, PROVISIONING_CLASS_ANNOTATION
from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload

__all__ = ["AdmissionUpdate", "AdmissionUpdateConflict", "compatible", "refresh", "update_for_pod_set"]

_ANNOTATIONS = (CONSUME_ANNOTATION, PROVISIONING_CLASS_ANNOTATION)


class AdmissionUpdateConflict(Exception):
    """Two admission checks give one pod set different values for a key."""


@dataclass(frozen=True)
class AdmissionUpdate:
    """``podAdmissionUpdate``: what the checks want on a pod set's pods."""

    annotations: dict[str, str] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)


def _merge(into: dict[str, str], key: str, value: str, what: str, pod_set: str) -> None:
    if key in into and into[key] != value:
        raise AdmissionUpdateConflict(f'conflicting "{key}" {what} updates for PodSet "{pod_set}"')
    into[key] = value


def update_for_pod_set(wl: Workload, pod_set: str) -> AdmissionUpdate:
    """``admissionUpdateForPodSet``: the checks' updates for ``pod_set``, in status order."""
    out = AdmissionUpdate()
    for check in (wl.status.admission_checks if wl.status else None) or ():
        for update in check.pod_set_updates or ():
            if update.name != pod_set:
                continue
            for key in _ANNOTATIONS:
                if key in (update.annotations or {}):
                    _merge(out.annotations, key, (update.annotations or {})[key], "annotation", pod_set)
            for key, value in (update.node_selector or {}).items():
                _merge(out.node_selector, key, value, "node selector", pod_set)
    return out


def compatible(pod: Pod, update: AdmissionUpdate) -> bool:
    """``podAdmissionCompatible``: no key the update sets holds another value on the pod."""
    annotations = pod.metadata.annotations or {}
    selector = pod.spec.node_selector or {}
    return all(annotations.get(k, v) == v for k, v in update.annotations.items()) and all(
        selector.get(k, v) == v for k, v in update.node_selector.items()
    )


def refresh(pod: Pod, update: AdmissionUpdate) -> bool:
    """``refreshPodAdmission`` on an editable ``pod`` already found compatible: adds the missing
    annotations and sets the node selector keys; whether anything changed."""
    annotations = dict(pod.metadata.annotations or {})
    selector = dict(pod.spec.node_selector or {})
    missing = {k: v for k, v in update.annotations.items() if k not in annotations}
    moved = {k: v for k, v in update.node_selector.items() if selector.get(k) != v}
    if missing:
        pod.metadata.annotations = {**annotations, **missing}
    if moved:
        pod.spec.node_selector = {**selector, **moved}
    return bool(missing or moved)
