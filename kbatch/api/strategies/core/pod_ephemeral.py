"""The ``pods/{name}/ephemeralcontainers`` subresource: the one write that adds ephemeral containers.

Upstream (k8s.io/kubernetes ``pkg/registry/core/pod/strategy.go``, ``podEphemeralContainersStrategy``,
served by ``EphemeralContainersREST`` in ``pkg/registry/core/pod/storage/storage.go`` for get, update
and patch): ``PrepareForUpdate`` keeps the stored spec, status and the metadata a status write keeps
(``dropNonEphemeralContainerUpdates``, ``ResetObjectMetaForStatus``) but for
``spec.ephemeralContainers``, and the generation follows the spec (``updatePodGeneration``).
``ValidateUpdate`` is ``ValidatePodEphemeralContainersUpdate``
(``pkg/apis/core/validation/validation.go``): the new pod validated as a pod, a mirror (static) pod
refused, an existing ephemeral container neither removed nor changed; each ephemeral container
checked by ``validateEphemeralContainers``: the common container rules, a name unique among all the
pod's containers (``Duplicate``), a ``targetContainerName`` naming a regular or init container
(``NotFound``), only the fields of ``allowedEphemeralContainerFields`` (ports, probes, lifecycle,
resources, resize and restart policies are ``Forbidden``: "cannot be set for an Ephemeral
Container"), and no ``subPath``/``subPathExpr`` in its volume mounts.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import EphemeralContainer, Pod
from kbatch.api.errors import FieldError
from kbatch.api.model_copy import copy_value
from kbatch.api.strategies.core.container_validation import validate_container_common
from kbatch.api.strategies.core.pod import PodStrategy
from kbatch.api.strategies.core.pod_validation_options import PodValidationOptions, options_from_old
from kbatch.api.validation import child, index

__all__ = ["EphemeralContainersStrategy", "ephemeral_container_errors", "ephemeral_update_errors"]

MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
CANNOT_SET = "cannot be set for an Ephemeral Container"
# the EphemeralContainerCommon fields outside allowedEphemeralContainerFields, by their JSON names
_FORBIDDEN_FIELDS = (("ports", "ports"), ("resources", "resources"), ("resize_policy", "resizePolicy"),
                     ("restart_policy", "restartPolicy"), ("restart_policy_rules", "restartPolicyRules"),
                     ("liveness_probe", "livenessProbe"), ("readiness_probe", "readinessProbe"),
                     ("startup_probe", "startupProbe"), ("lifecycle", "lifecycle"))
# ResetObjectMetaForStatus: what a write of this subresource cannot change in metadata
_KEPT_META = ("generation", "deletion_timestamp", "labels", "annotations", "owner_references", "finalizers")


class EphemeralContainersStrategy(PodStrategy):
    """The pod strategy with upstream's ephemeral-containers ``PrepareForUpdate``/``ValidateUpdate``."""

    @classmethod
    def of(cls, pods: PodStrategy) -> EphemeralContainersStrategy:
        """This strategy with ``pods``' settings (its feature gates)."""
        out = cls()
        out.__dict__.update(vars(pods))
        return out

    def prepare_for_update(self, new: Pod, old: Pod) -> None:  # type: ignore[override]
        wanted = new.spec.ephemeral_containers
        new.spec = copy_value(old.spec)
        new.spec.ephemeral_containers = wanted
        new.status = copy_value(old.status)
        for name in _KEPT_META:
            setattr(new.metadata, name, copy_value(getattr(old.metadata, name)))

    def validate_update(self, new: Pod, old: Pod) -> list[FieldError]:  # type: ignore[override]
        if MIRROR_POD_ANNOTATION in (old.metadata.annotations or {}):
            return [FieldError.forbidden("", "static pods do not support ephemeral containers")]
        errs = self._validate(new, _options(old))
        return errs + ephemeral_container_errors(new) + ephemeral_update_errors(new, old)


def _options(old: Pod) -> PodValidationOptions:
    return options_from_old(old.spec, old.metadata.annotations)


def ephemeral_container_errors(pod: Pod) -> list[FieldError]:
    """``validateEphemeralContainers`` for the pod's ephemeral containers."""
    spec, path = pod.spec, "spec.ephemeralContainers"
    others = {c.name for c in [*spec.containers, *(spec.init_containers or ())]}
    seen = set(others)
    volumes = {v.name for v in spec.volumes or ()}
    claims = {c.name for c in spec.resource_claims or ()}
    errs: list[FieldError] = []
    for i, ec in enumerate(spec.ephemeral_containers or ()):
        at = index(path, i)
        errs += validate_container_common(ec, at, volumes, claims,
                                          (spec.restart_policy, spec.host_users is not False))
        if ec.name in seen:
            errs.append(FieldError.duplicate(child(at, "name"), ec.name))
        seen.add(ec.name)
        if ec.target_container_name and ec.target_container_name not in others:
            errs.append(FieldError.not_found(child(at, "targetContainerName"), ec.target_container_name))
        errs += [FieldError.forbidden(child(at, json), CANNOT_SET)
                 for attr, json in _FORBIDDEN_FIELDS if _set(getattr(ec, attr))]
        for j, mount in enumerate(ec.volume_mounts or ()):
            for attr, json in (("sub_path", "subPath"), ("sub_path_expr", "subPathExpr")):
                if getattr(mount, attr):
                    mount_path = index(child(at, "volumeMounts"), j)
                    errs.append(FieldError.forbidden(child(mount_path, json), CANNOT_SET))
    return errs


def _set(value: Any) -> bool:
    """Not Go's zero value: an empty struct (``resources: {}``) or list is zero."""
    if value is None:
        return False
    if hasattr(value, "model_dump"):
        return bool(value.model_dump(exclude_none=True, exclude_defaults=True))
    return bool(value)


def ephemeral_update_errors(new: Pod, old: Pod) -> list[FieldError]:
    """Existing ephemeral containers may be neither removed nor changed (order aside)."""
    path = "spec.ephemeralContainers"
    now: dict[str, EphemeralContainer] = {c.name: c for c in new.spec.ephemeral_containers or ()}
    errs = []
    for before in old.spec.ephemeral_containers or ():
        after = now.get(before.name)
        if after is None:
            errs.append(FieldError.forbidden(
                path, f'existing ephemeral containers "{before.name}" may not be removed\n'))
        elif after.model_dump(exclude_none=True) != before.model_dump(exclude_none=True):
            errs.append(FieldError.forbidden(
                path, f'existing ephemeral containers "{before.name}" may not be changed\n'))
    return errs
