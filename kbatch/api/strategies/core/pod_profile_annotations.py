"""The deprecated seccomp and AppArmor annotations of a Pod: their values, and on create their
agreement with the ``seccompProfile`` / ``appArmorProfile`` fields (kubernetes
``pkg/apis/core/validation/validation.go``: ``ValidateSeccompPodAnnotations``,
``ValidateSeccompProfile``, ``ValidateAppArmorPodAnnotations``, ``ValidateAppArmorProfileFormat``,
``validateSeccompAnnotationsAndFields``, ``validateAppArmorAnnotationsAndFieldsMatchOnCreate``).

Upstream walks the annotation map in Go's random order; kbatch walks the keys sorted. kbatch does
not copy an AppArmor annotation into the field on create (``applyAppArmorVersionSkew``), so a pod
carrying only the annotation keeps an unset field.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from kbatch.api.core_v1 import AppArmorProfile, Container, PodSpec, SeccompProfile
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.volume_sources import local_descending_path_errors
from kbatch.api.validation import child, index, key

__all__ = ["annotation_update_errors", "profile_annotation_errors", "profile_annotations_match_errors"]

SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/"
_LOCALHOST = "localhost/"


def _has_profile_annotation(annotations: Mapping[str, str]) -> bool:
    return any(k == SECCOMP_POD or k.startswith((SECCOMP_CONTAINER, APPARMOR_CONTAINER)) for k in annotations)


def _seccomp_value_errors(value: str, path: str) -> list[FieldError]:
    if value in ("runtime/default", "docker/default", "unconfined"):
        return []
    if value.startswith(_LOCALHOST):
        return local_descending_path_errors(value.removeprefix(_LOCALHOST), path)
    return [FieldError.invalid(path, value, "must be a valid seccomp profile")]


def _containers(spec: PodSpec, path: str) -> Iterator[tuple[Container, str]]:
    """``VisitContainersWithPath``: init, regular, then ephemeral containers."""
    for field, group in (("initContainers", spec.init_containers), ("containers", spec.containers),
                         ("ephemeralContainers", spec.ephemeral_containers)):
        for i, c in enumerate(group or ()):
            yield c, index(child(path, field), i)


def profile_annotation_errors(annotations: Mapping[str, str] | None, spec: PodSpec,
                              path: str = "metadata.annotations") -> list[FieldError]:
    """Seccomp annotation values (at ``<path>.<key>``, upstream's ``Child``), then AppArmor ones (at
    ``<path>[<key>]``): a container of that name, and a known profile form."""
    if not annotations or not _has_profile_annotation(annotations):
        return []
    errs: list[FieldError] = []
    if SECCOMP_POD in annotations:
        errs += _seccomp_value_errors(annotations[SECCOMP_POD], child(path, SECCOMP_POD))
    for k in sorted(annotations):
        if k.startswith(SECCOMP_CONTAINER):
            errs += _seccomp_value_errors(annotations[k], child(path, k))
    names = {c.name for c, _ in _containers(spec, "spec")}
    for k in sorted(annotations):
        if not k.startswith(APPARMOR_CONTAINER):
            continue
        name, value = k.removeprefix(APPARMOR_CONTAINER), annotations[k]
        if name not in names:
            errs.append(FieldError.invalid(key(path, k), name, "container not found"))
        if value not in ("", "runtime/default", "unconfined") and not value.startswith(_LOCALHOST):
            errs.append(FieldError.invalid(key(path, k), value, f'invalid AppArmor profile name: "{value}"'))
    return errs


def _mismatch(kind: str, profile: SeccompProfile | AppArmorProfile, annotation: str,
              path: str) -> FieldError | None:
    """The field and the annotation name the same profile (``kind``: seccomp or apparmor)."""
    expected: dict[str, tuple[str, ...]] = {"Unconfined": ("unconfined",),
                                            "RuntimeDefault": ("runtime/default",)}
    if kind == "seccomp":
        expected["RuntimeDefault"] = ("runtime/default", "docker/default")
    if profile.type in expected:
        if annotation in expected[profile.type]:
            return None
        return FieldError.forbidden(child(path, "type"), f"{kind} type in annotation and field must match")
    if profile.type != "Localhost":
        return None
    if not annotation.startswith(_LOCALHOST):
        return FieldError.forbidden(child(path, "type"), f"{kind} type in annotation and field must match")
    if profile.localhost_profile is None or annotation.removeprefix(_LOCALHOST) != profile.localhost_profile:
        return FieldError.forbidden(child(path, "localhostProfile"),
                                    f"{kind} profile in annotation and field must match")
    return None


def profile_annotations_match_errors(annotations: Mapping[str, str] | None, spec: PodSpec,
                                     path: str = "spec") -> list[FieldError]:
    """On create, an annotation and its field (when both are set) agree: seccomp for the pod and
    each container, then AppArmor for each container (its own field, else the pod's; skipped for
    Windows pods)."""
    if not annotations or not _has_profile_annotation(annotations):
        return []
    found: list[FieldError | None] = []
    sc = spec.security_context
    if sc is not None and sc.seccomp_profile is not None and SECCOMP_POD in annotations:
        found.append(_mismatch("seccomp", sc.seccomp_profile, annotations[SECCOMP_POD],
                               child(child(path, "securityContext"), "seccompProfile")))
    for c, at in _containers(spec, path):
        seccomp = c.security_context.seccomp_profile if c.security_context is not None else None
        if seccomp is not None and SECCOMP_CONTAINER + c.name in annotations:
            found.append(_mismatch("seccomp", seccomp, annotations[SECCOMP_CONTAINER + c.name],
                                   child(child(at, "securityContext"), "seccompProfile")))
    if spec.os is None or spec.os.name != "windows":
        pod_profile = sc.app_armor_profile if sc is not None else None
        for c, at in _containers(spec, path):
            own = c.security_context.app_armor_profile if c.security_context is not None else None
            profile = own or pod_profile
            if profile is not None and APPARMOR_CONTAINER + c.name in annotations:
                found.append(_mismatch("apparmor", profile, annotations[APPARMOR_CONTAINER + c.name],
                                       child(child(at, "securityContext"), "appArmorProfile")))
    return [e for e in found if e is not None]


MIRROR_POD = "kubernetes.io/config.mirror"


def _update_forbidden(k: str, verb: str, path: str) -> FieldError | None:
    if k.startswith(APPARMOR_CONTAINER):
        return FieldError.forbidden(key(path, k), f"may not {verb} AppArmor annotations")
    if k == MIRROR_POD:
        return FieldError.forbidden(key(path, k), f"may not {verb} mirror pod annotation")
    return None


def annotation_update_errors(new: Mapping[str, str] | None, old: Mapping[str, str] | None, spec: PodSpec,
                             path: str = "metadata.annotations") -> list[FieldError]:
    """``ValidatePodSpecificAnnotationUpdates`` (AppArmor and mirror-pod annotations are fixed at
    create: changed or removed ones, then added ones, keys sorted), then the new annotations'
    seccomp/AppArmor values."""
    new, old = new or {}, old or {}
    if new == old:
        return profile_annotation_errors(new, spec, path)
    found = [_update_forbidden(k, "remove or update", path) for k in sorted(old) if new.get(k) != old[k]]
    found += [_update_forbidden(k, "add", path) for k in sorted(new) if k not in old]
    return [e for e in found if e is not None] + profile_annotation_errors(new, spec, path)
