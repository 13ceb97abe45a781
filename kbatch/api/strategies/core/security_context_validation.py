"""``spec.securityContext`` and a container's ``securityContext`` (kubernetes
``pkg/apis/core/validation/validation.go``: ``validatePodSpecSecurityContext``, ``validateSysctls``,
``ValidateHostSysctl``, ``validateFSGroupChangePolicy``, ``validateSupplementalGroupsPolicy``,
``validateSELinuxChangePolicy``, ``ValidateSecurityContext``, ``ValidateProcMountType``).

Both are checked only when set to something: defaulting gives every pod an empty pod security
context, which :func:`pod_security_context_set` recognises without building a path.
``privileged`` is always allowed (kbatch models no ``--allow-privileged=false``).
"""

from __future__ import annotations

from kbatch.api.core_v1 import PodSecurityContext, PodSpec, SecurityContext
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.pod_validation_options import STRICT, PodValidationOptions
from kbatch.api.strategies.core.security_profiles import (
    apparmor_profile_errors,
    id_errors,
    seccomp_profile_errors,
    windows_options_errors,
)
from kbatch.api.strategies.core.sysctl_names import (
    SYSCTL_NAME_MESSAGE,
    is_valid_sysctl_name,
    sysctl_namespace,
)
from kbatch.api.validation import child, index

__all__ = [
    "container_security_context_errors",
    "pod_security_context_errors",
    "pod_security_context_set",
]

FS_GROUP_CHANGE_POLICIES = ["Always", "OnRootMismatch"]
SUPPLEMENTAL_GROUPS_POLICIES = ["Merge", "Strict"]
# Only Recursive while the SELinuxMount gate is off (beta, off by default since 1.33,
# pkg/features/kube_features.go; useOnlyRecursiveSELinuxChangePolicy in pkg/api/pod/util.go); an update
# of an object that already had MountOption may keep it (both values supported then).
SELINUX_CHANGE_POLICIES = ["Recursive"]
SELINUX_CHANGE_POLICIES_ON_UPDATE = ["MountOption", "Recursive"]
PROC_MOUNT_TYPES = ["Default", "Unmasked"]


_UNSET = PodSecurityContext().__dict__  # every field None


def pod_security_context_set(sc: PodSecurityContext | None) -> bool:
    """Whether any field of the pod's security context is set (the defaulted one is empty): one
    dict comparison, as this is asked for every pod create."""
    return sc is not None and sc.__dict__ != _UNSET


def pod_security_context_errors(spec: PodSpec, path: str,
                                opts: PodValidationOptions = STRICT) -> list[FieldError]:
    """``validatePodSpecSecurityContext`` at ``path`` (``spec.securityContext``); ``spec`` gives
    ``hostPID``, ``hostNetwork``, ``hostIPC`` and ``shareProcessNamespace``, which upstream keeps in
    the internal security context (so the conflict is reported under ``securityContext``)."""
    sc = spec.security_context
    if sc is None:
        return []
    errs = id_errors(sc.fs_group, child(path, "fsGroup"))
    errs += id_errors(sc.run_as_user, child(path, "runAsUser"))
    errs += id_errors(sc.run_as_group, child(path, "runAsGroup"))
    for i, gid in enumerate(sc.supplemental_groups or ()):
        errs += id_errors(gid, index(child(path, "supplementalGroups"), i))
    if spec.share_process_namespace and spec.host_pid:
        errs.append(FieldError.invalid(child(path, "shareProcessNamespace"), True,
                                       "ShareProcessNamespace and HostPID cannot both be enabled"))
    if sc.sysctls:
        errs += _sysctl_errors(spec, sc, child(path, "sysctls"),
                               not opts.allow_namespaced_sysctls_for_host_net_and_host_ipc)
    errs += _enum(sc.fs_group_change_policy, FS_GROUP_CHANGE_POLICIES, child(path, "fsGroupChangePolicy"))
    errs += seccomp_profile_errors(sc.seccomp_profile, child(path, "seccompProfile"))
    errs += windows_options_errors(sc.windows_options, child(path, "windowsOptions"))
    errs += apparmor_profile_errors(sc.app_armor_profile, child(path, "appArmorProfile"))
    errs += _enum(sc.supplemental_groups_policy, SUPPLEMENTAL_GROUPS_POLICIES,
                  child(path, "supplementalGroupsPolicy"))
    policies = (SELINUX_CHANGE_POLICIES if opts.allow_only_recursive_selinux_change_policy
                else SELINUX_CHANGE_POLICIES_ON_UPDATE)
    errs += _enum(sc.se_linux_change_policy, policies, child(path, "seLinuxChangePolicy"))
    return errs


def _enum(value: str | None, supported: list[str], path: str) -> list[FieldError]:
    """An optional enum: when set (even to ``""``) one of ``supported``."""
    if value is None or value in supported:
        return []
    return [FieldError.not_supported(path, value, supported)]


def _sysctl_errors(spec: PodSpec, sc: PodSecurityContext, path: str, host_rule: bool) -> list[FieldError]:
    """Names required, valid and unique; with ``host_rule``, none of the network (IPC) namespace while
    the pod shares the host's network (IPC) namespace (``ValidateHostSysctl``: always on create, on
    update unless the old pod already broke it, ``AllowNamespacedSysctlsForHostNetAndHostIPC``)."""
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, sysctl in enumerate(sc.sysctls or ()):
        at = child(index(path, i), "name")
        name = sysctl.name
        if not name:
            errs.append(FieldError.required(at))
        elif not is_valid_sysctl_name(name):
            errs.append(FieldError.invalid(at, name, SYSCTL_NAME_MESSAGE))
        elif name in names:
            errs.append(FieldError.duplicate(at, name))
        namespace = sysctl_namespace(name) if host_rule else ""
        if spec.host_network and namespace == "Net":
            errs.append(FieldError.invalid(at, name, "may not be specified when 'hostNetwork' is true"))
        elif spec.host_ipc and namespace == "IPC":
            errs.append(FieldError.invalid(at, name, "may not be specified when 'hostIPC' is true"))
        names.add(name)
    return errs


def container_security_context_errors(sc: SecurityContext, path: str, host_users: bool) -> list[FieldError]:
    """``ValidateSecurityContext``: IDs, ``procMount`` (``Unmasked`` needs ``hostUsers: false``),
    seccomp, ``allowPrivilegeEscalation: false`` against ``privileged`` and ``CAP_SYS_ADMIN``,
    Windows options, AppArmor."""
    errs = id_errors(sc.run_as_user, child(path, "runAsUser"))
    errs += id_errors(sc.run_as_group, child(path, "runAsGroup"))
    if sc.proc_mount is not None:
        at = child(path, "procMount")
        errs += _enum(sc.proc_mount, PROC_MOUNT_TYPES, at)
        if host_users and sc.proc_mount == "Unmasked":
            errs.append(FieldError.invalid(at, sc.proc_mount, "`hostUsers` must be false to use `Unmasked`"))
    errs += seccomp_profile_errors(sc.seccomp_profile, child(path, "seccompProfile"))
    if sc.allow_privilege_escalation is False:
        if sc.privileged:
            errs.append(FieldError.invalid(
                path, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
        added = sc.capabilities.add if sc.capabilities is not None else None
        errs += [FieldError.invalid(path, sc, "cannot set `allowPrivilegeEscalation` to false and "
                                              "`capabilities.Add` CAP_SYS_ADMIN")
                 for cap in added or () if cap == "CAP_SYS_ADMIN"]
    errs += windows_options_errors(sc.windows_options, child(path, "windowsOptions"))
    errs += apparmor_profile_errors(sc.app_armor_profile, child(path, "appArmorProfile"))
    return errs
