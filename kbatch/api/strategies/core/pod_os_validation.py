"""What a pod's operating system and user namespace allow (kubernetes
``pkg/apis/core/validation/validation.go``: ``validateOS``, ``validateLinux``, ``validateWindows``,
``validateHostUsers``, ``validateWindowsHostProcessPod``). Messages and field paths are upstream's,
including ``spec.HostPID`` / ``spec.HostIPC`` (capitalised there) for ``hostUsers: false``.
"""

from __future__ import annotations

from collections.abc import Iterator

from kbatch.api.core_v1 import Container, PodSpec, SecurityContext
from kbatch.api.errors import FieldError
from kbatch.api.validation import child, index

__all__ = ["host_process_errors", "host_users_errors", "os_errors"]

OS_NAMES = ["linux", "windows"]
_WINDOWS = "cannot be set for a windows pod"
_LINUX = "windows options cannot be set for a linux pod"
# (field, spec attribute) a windows pod may not set in spec.securityContext, in upstream's order
_WINDOWS_POD_SC = (("appArmorProfile", "app_armor_profile"), ("seLinuxOptions", "se_linux_options"))
_WINDOWS_POD_SC_LATE = (
    ("seccompProfile", "seccomp_profile"), ("fsGroup", "fs_group"),
    ("fsGroupChangePolicy", "fs_group_change_policy"))
_WINDOWS_POD_IDS = (
    ("runAsUser", "run_as_user"), ("runAsGroup", "run_as_group"),
    ("supplementalGroups", "supplemental_groups"), ("supplementalGroupsPolicy", "supplemental_groups_policy"),
    ("seLinuxChangePolicy", "se_linux_change_policy"))
_WINDOWS_CONTAINER_SC = (
    ("appArmorProfile", "app_armor_profile"), ("seLinuxOptions", "se_linux_options"),
    ("seccompProfile", "seccomp_profile"), ("capabilities", "capabilities"),
    ("readOnlyRootFilesystem", "read_only_root_filesystem"), ("privileged", "privileged"),
    ("allowPrivilegeEscalation", "allow_privilege_escalation"), ("procMount", "proc_mount"),
    ("runAsUser", "run_as_user"), ("runAsGroup", "run_as_group"))


def _containers(spec: PodSpec, path: str) -> Iterator[tuple[Container, str]]:
    """``VisitContainersWithPath``: init, regular, then ephemeral containers with their paths."""
    for field, group in (("initContainers", spec.init_containers), ("containers", spec.containers),
                         ("ephemeralContainers", spec.ephemeral_containers)):
        for i, c in enumerate(group or ()):
            yield c, index(child(path, field), i)


def os_errors(spec: PodSpec, path: str) -> list[FieldError]:
    """``spec.os``: a name from the two; then the fields the other OS owns are forbidden."""
    if spec.os is None:
        return []
    name = spec.os.name
    if not name:
        return [FieldError.required(child(child(path, "os"), "name"), "cannot be empty")]
    if name not in OS_NAMES:
        return [FieldError.not_supported(child(path, "os"), name, OS_NAMES)]
    return _linux_errors(spec, path) if name == "linux" else _windows_errors(spec, path)


def _linux_errors(spec: PodSpec, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if spec.security_context is not None and spec.security_context.windows_options is not None:
        errs.append(FieldError.forbidden(child(child(path, "securityContext"), "windowsOptions"), _LINUX))
    for c, at in _containers(spec, path):
        if c.security_context is not None and c.security_context.windows_options is not None:
            errs.append(FieldError.forbidden(child(child(at, "securityContext"), "windowsOptions"), _LINUX))
    return errs


def _windows_errors(spec: PodSpec, path: str) -> list[FieldError]:
    errs = _windows_pod_errors(spec, path)
    for c, at in _containers(spec, path):
        if c.security_context is not None:
            errs += _set_fields_forbidden(c.security_context, _WINDOWS_CONTAINER_SC,
                                          child(at, "securityContext"))
    return errs


def _windows_pod_errors(spec: PodSpec, path: str) -> list[FieldError]:
    """Upstream checks these only when the pod has a security context (defaulting gives it one)."""
    sc = spec.security_context
    if sc is None:
        return []
    sc_path = child(path, "securityContext")
    errs = _set_fields_forbidden(sc, _WINDOWS_POD_SC, sc_path)
    for field, value in (("hostUsers", spec.host_users is not None), ("hostPID", bool(spec.host_pid)),
                         ("hostIPC", bool(spec.host_ipc))):
        if value:
            errs.append(FieldError.forbidden(child(path, field), _WINDOWS))
    errs += _set_fields_forbidden(sc, _WINDOWS_POD_SC_LATE, sc_path)
    if sc.sysctls:
        errs.append(FieldError.forbidden(child(sc_path, "sysctls"), _WINDOWS))
    if spec.share_process_namespace is not None:
        errs.append(FieldError.forbidden(child(path, "shareProcessNamespace"), _WINDOWS))
    return errs + _set_fields_forbidden(sc, _WINDOWS_POD_IDS, sc_path)


def _set_fields_forbidden(sc: object, fields: tuple[tuple[str, str], ...], path: str) -> list[FieldError]:
    return [FieldError.forbidden(child(path, field), _WINDOWS)
            for field, attr in fields if getattr(sc, attr) is not None]


def host_users_errors(spec: PodSpec, path: str) -> list[FieldError]:
    """``hostUsers: false`` (a user namespace) excludes the host's network, PID and IPC namespaces."""
    if spec.host_users is not False:
        return []
    detail = "when `pod.Spec.HostUsers` is false"
    return [FieldError.forbidden(child(path, field), detail)
            for field, shared in (("hostNetwork", spec.host_network), ("HostPID", spec.host_pid),
                                  ("HostIPC", spec.host_ipc)) if shared]


def _host_process(sc: SecurityContext | None) -> bool | None:
    return sc.windows_options.host_process if sc is not None and sc.windows_options is not None else None


def host_process_errors(spec: PodSpec, path: str) -> list[FieldError]:
    """Windows HostProcess containers: the pod's and a container's setting agree, all containers or
    none are HostProcess, and such a pod uses the host network. (Upstream also forbids them when
    privileged containers are disallowed; kbatch always allows those.)"""
    pod_sc = spec.security_context
    pod_hp = pod_sc.windows_options.host_process if pod_sc and pod_sc.windows_options else None
    errs: list[FieldError] = []
    count = host_process_count = 0
    for c, at in _containers(spec, path):
        count += 1
        hp = _host_process(c.security_context)
        if pod_hp is not None and hp is not None and pod_hp != hp:
            at = child(child(child(at, "securityContext"), "windowsOptions"), "hostProcess")
            errs.append(FieldError.invalid(at, hp, "pod hostProcess value must be identical if both are "
                                                   f"specified, was {str(pod_hp).lower()}"))
        if hp or (hp is None and pod_hp):
            host_process_count += 1
    if host_process_count:
        if host_process_count != count:
            errs.append(FieldError.invalid(path, "", "If pod contains any hostProcess containers then all "
                                                     "containers must be HostProcess containers"))
        if not spec.host_network:
            errs.append(FieldError.invalid(
                child(path, "hostNetwork"), False,
                "hostNetwork must be true if pod contains any hostProcess containers"))
    return errs
