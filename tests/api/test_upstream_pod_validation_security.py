"""The pod's and the containers' ``securityContext`` as kube-apiserver validates them, through kbatch's
API server (a Pod create, and a Job whose template carries the spec).

Source: kubernetes ``pkg/apis/core/validation/validation.go`` (stored copy, commit 000f26050b9b,
post-1.35: strict ``IsValidIP``, ``AllowInvalidLabelValueInRequiredNodeAffinity``, ``seLinuxChangePolicy``):
``validatePodSpecSecurityContext``, ``validateSysctls``, ``ValidateHostSysctl``,
``validateFSGroupChangePolicy``, ``validateSeccompProfileField``, ``ValidateAppArmorProfileField``,
``validateWindowsSecurityContextOptions``, ``ValidateSecurityContext``; ``k8s.io/apimachinery``
``IsValidUserID`` / ``IsValidGroupID``; ``k8s.io/component-helpers`` ``node/util/sysctl``. One case
per branch of those functions, named after the ``TestValidatePodSpec`` / ``TestValidateSecurityContext``
/ ``TestValidateSysctls`` / ``TestValidateSeccompProfileField`` / ``TestValidateAppArmorProfileFormat``
/ ``TestValidateWindowsSecurityContextOptions`` cases they correspond to; the tables themselves
(validation_test.go, over 1 MB) were not read in the time this audit had. kbatch accepted every
error case below before this file was written.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.upstream_pod import (
    DUPLICATE,
    INVALID,
    NOT_SUPPORTED,
    REQUIRED,
    causes,
    created,
    ctr,
    fields,
    job,
    pod,
)

SC = "spec.securityContext"
C0 = "spec.containers[0].securityContext"
RANGE = "must be between 0 and 2147483647, inclusive"


def _sc(**context: Any) -> dict[str, Any]:
    return {"securityContext": context}


def _csc(**context: Any) -> dict[str, Any]:
    return {"containers": [ctr(securityContext=context)]}


SUCCESS: dict[str, dict[str, Any]] = {
    "populate fsGroup, runAsUser, runAsGroup, supplementalGroups": _sc(
        fsGroup=0, runAsUser=2147483647, runAsGroup=1000, supplementalGroups=[0, 1, 2147483647]
    ),
    "fsGroupChangePolicy OnRootMismatch": _sc(fsGroupChangePolicy="OnRootMismatch"),
    "supplementalGroupsPolicy Strict": _sc(supplementalGroupsPolicy="Strict"),
    "seLinuxChangePolicy Recursive": _sc(seLinuxChangePolicy="Recursive"),
    "valid sysctls (dotted, slashed, underscore)": _sc(
        sysctls=[
            {"name": "kernel.shm_rmid_forced", "value": "1"},
            {"name": "net/ipv4/conf/eno2.100/rp_filter"},
            {"name": "a_b.c-d"},
        ]
    ),
    "net sysctl without hostNetwork": _sc(sysctls=[{"name": "net.ipv4.ip_forward", "value": "1"}]),
    "IPC sysctl with hostNetwork (only Net ones are refused)": {
        "hostNetwork": True,
        **_sc(sysctls=[{"name": "kernel.shmmax", "value": "1"}]),
    },
    "seccomp RuntimeDefault": _sc(seccompProfile={"type": "RuntimeDefault"}),
    "seccomp Localhost with a relative profile": _sc(
        seccompProfile={"type": "Localhost", "localhostProfile": "profiles/a.json"}
    ),
    "AppArmor Localhost": _sc(appArmorProfile={"type": "Localhost", "localhostProfile": "my-profile"}),
    "AppArmor Unconfined": _sc(appArmorProfile={"type": "Unconfined"}),
    "shareProcessNamespace without hostPID": {"shareProcessNamespace": True},
    "windows options: gmsa and DOMAIN\\user": _sc(
        windowsOptions={
            "gmsaCredentialSpecName": "spec-name",
            "gmsaCredentialSpec": "{}",
            "runAsUserName": "NT AUTHORITY\\SYSTEM",
        }
    ),
    "container: ids, procMount Default, allowPrivilegeEscalation true with privileged": _csc(
        runAsUser=0,
        runAsGroup=0,
        procMount="Default",
        allowPrivilegeEscalation=True,
        privileged=True,
        capabilities={"add": ["CAP_SYS_ADMIN"]},
    ),
    "container: allowPrivilegeEscalation false, other capabilities": _csc(
        allowPrivilegeEscalation=False, capabilities={"add": ["NET_ADMIN"]}
    ),
    "container: procMount Unmasked with hostUsers false": {"hostUsers": False, **_csc(procMount="Unmasked")},
}


@pytest.mark.parametrize("spec", SUCCESS.values(), ids=SUCCESS.keys())
def test_valid_security_contexts_are_created(spec: dict[str, Any]) -> None:
    created(pod(spec))


ERRORS: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("bad fsGroup", _sc(fsGroup=-1), [(f"{SC}.fsGroup", INVALID)]),
    ("bad runAsUser", _sc(runAsUser=-1), [(f"{SC}.runAsUser", INVALID)]),
    ("bad runAsGroup", _sc(runAsGroup=2147483648), [(f"{SC}.runAsGroup", INVALID)]),
    (
        "bad supplementalGroups large",
        _sc(supplementalGroups=[1, 2147483648]),
        [(f"{SC}.supplementalGroups[1]", INVALID)],
    ),
    (
        "bad supplementalGroups negative",
        _sc(supplementalGroups=[-1]),
        [(f"{SC}.supplementalGroups[0]", INVALID)],
    ),
    (
        "shareProcessNamespace and hostPID",
        {"shareProcessNamespace": True, "hostPID": True},
        [(f"{SC}.shareProcessNamespace", INVALID)],
    ),
    (
        "bad fsGroupChangePolicy",
        _sc(fsGroupChangePolicy="invalid"),
        [(f"{SC}.fsGroupChangePolicy", NOT_SUPPORTED)],
    ),
    (
        "empty fsGroupChangePolicy",
        _sc(fsGroupChangePolicy=""),
        [(f"{SC}.fsGroupChangePolicy", NOT_SUPPORTED)],
    ),
    (
        "bad supplementalGroupsPolicy",
        _sc(supplementalGroupsPolicy="Loose"),
        [(f"{SC}.supplementalGroupsPolicy", NOT_SUPPORTED)],
    ),
    (
        "bad seLinuxChangePolicy",
        _sc(seLinuxChangePolicy="Never"),
        [(f"{SC}.seLinuxChangePolicy", NOT_SUPPORTED)],
    ),
    (
        "seLinuxChangePolicy MountOption while the SELinuxMount gate is off (only Recursive)",
        _sc(seLinuxChangePolicy="MountOption"),
        [(f"{SC}.seLinuxChangePolicy", NOT_SUPPORTED)],
    ),
    ("sysctl without name", _sc(sysctls=[{"name": "", "value": "1"}]), [(f"{SC}.sysctls[0].name", REQUIRED)]),
    (
        "sysctl with bad name",
        _sc(sysctls=[{"name": "Kernel.Bad", "value": "1"}]),
        [(f"{SC}.sysctls[0].name", INVALID)],
    ),
    (
        "sysctl name over 253 characters",
        _sc(sysctls=[{"name": "a" * 254}]),
        [(f"{SC}.sysctls[0].name", INVALID)],
    ),
    (
        "duplicate sysctl",
        _sc(sysctls=[{"name": "kernel.msgmax"}, {"name": "kernel.msgmax"}]),
        [(f"{SC}.sysctls[1].name", DUPLICATE)],
    ),
    (
        "net sysctl with hostNetwork",
        {"hostNetwork": True, **_sc(sysctls=[{"name": "net.ipv4.ip_forward"}])},
        [(f"{SC}.sysctls[0].name", INVALID)],
    ),
    (
        "slashed net sysctl with hostNetwork",
        {"hostNetwork": True, **_sc(sysctls=[{"name": "net/ipv4/ip_forward"}])},
        [(f"{SC}.sysctls[0].name", INVALID)],
    ),
    (
        "IPC sysctl with hostIPC",
        {"hostIPC": True, **_sc(sysctls=[{"name": "fs.mqueue.msg_max"}])},
        [(f"{SC}.sysctls[0].name", INVALID)],
    ),
    ("seccomp without type", _sc(seccompProfile={}), [(f"{SC}.seccompProfile.type", REQUIRED)]),
    (
        "seccomp bad type",
        _sc(seccompProfile={"type": "Bogus"}),
        [(f"{SC}.seccompProfile.type", NOT_SUPPORTED)],
    ),
    (
        "seccomp Localhost without profile",
        _sc(seccompProfile={"type": "Localhost"}),
        [(f"{SC}.seccompProfile.localhostProfile", REQUIRED)],
    ),
    (
        "seccomp Localhost profile climbing out",
        _sc(seccompProfile={"type": "Localhost", "localhostProfile": "../etc/x"}),
        [(f"{SC}.seccompProfile.localhostProfile", INVALID)],
    ),
    (
        "seccomp localhostProfile with RuntimeDefault",
        _sc(seccompProfile={"type": "RuntimeDefault", "localhostProfile": "x"}),
        [(f"{SC}.seccompProfile.localhostProfile", INVALID)],
    ),
    ("AppArmor without type", _sc(appArmorProfile={}), [(f"{SC}.appArmorProfile.type", REQUIRED)]),
    (
        "AppArmor bad type",
        _sc(appArmorProfile={"type": "Bogus"}),
        [(f"{SC}.appArmorProfile.type", NOT_SUPPORTED)],
    ),
    (
        "AppArmor Localhost without profile",
        _sc(appArmorProfile={"type": "Localhost"}),
        [(f"{SC}.appArmorProfile.localhostProfile", REQUIRED)],
    ),
    (
        "AppArmor Localhost empty profile",
        _sc(appArmorProfile={"type": "Localhost", "localhostProfile": ""}),
        [(f"{SC}.appArmorProfile.localhostProfile", REQUIRED)],
    ),
    (
        "AppArmor Localhost padded profile",
        _sc(appArmorProfile={"type": "Localhost", "localhostProfile": " p "}),
        [(f"{SC}.appArmorProfile.localhostProfile", INVALID)],
    ),
    (
        "AppArmor Localhost profile too long",
        _sc(appArmorProfile={"type": "Localhost", "localhostProfile": "p" * 4096}),
        [(f"{SC}.appArmorProfile.localhostProfile", "FieldValueTooLong")],
    ),
    (
        "AppArmor localhostProfile with Unconfined",
        _sc(appArmorProfile={"type": "Unconfined", "localhostProfile": "p"}),
        [(f"{SC}.appArmorProfile.localhostProfile", INVALID)],
    ),
    (
        "gmsaCredentialSpecName not a DNS subdomain",
        _sc(windowsOptions={"gmsaCredentialSpecName": "not_dns"}),
        [(f"{SC}.windowsOptions.gmsaCredentialSpecName", INVALID)],
    ),
    (
        "empty gmsaCredentialSpec",
        _sc(windowsOptions={"gmsaCredentialSpec": ""}),
        [(f"{SC}.windowsOptions.gmsaCredentialSpec", INVALID)],
    ),
    (
        "gmsaCredentialSpec over 64 KiB",
        _sc(windowsOptions={"gmsaCredentialSpec": "x" * (64 * 1024 + 1)}),
        [(f"{SC}.windowsOptions.gmsaCredentialSpec", INVALID)],
    ),
    (
        "runAsUserName with two backslashes",
        _sc(windowsOptions={"runAsUserName": "a\\b\\c"}),
        [(f"{SC}.windowsOptions.runAsUserName", INVALID)],
    ),
    (
        "runAsUserName user over 104 bytes",
        _sc(windowsOptions={"runAsUserName": "Domain\\" + "u" * 105}),
        [(f"{SC}.windowsOptions.runAsUserName", INVALID)],
    ),
    (
        "runAsUserName domain of 256 bytes (not NetBios, not DNS either)",
        _sc(windowsOptions={"runAsUserName": "d" * 256 + "\\user"}),
        [(f"{SC}.windowsOptions.runAsUserName", INVALID), (f"{SC}.windowsOptions.runAsUserName", INVALID)],
    ),
    (
        "runAsUserName with a control character",
        _sc(windowsOptions={"runAsUserName": "a\x07b"}),
        [(f"{SC}.windowsOptions.runAsUserName", INVALID)],
    ),
    (
        "runAsUserName only dots, with bad characters in domain",
        _sc(windowsOptions={"runAsUserName": ".\\..."}),
        [(f"{SC}.windowsOptions.runAsUserName", INVALID), (f"{SC}.windowsOptions.runAsUserName", INVALID)],
    ),
    ("container runAsUser negative", _csc(runAsUser=-1), [(f"{C0}.runAsUser", INVALID)]),
    ("container runAsGroup too large", _csc(runAsGroup=2**31), [(f"{C0}.runAsGroup", INVALID)]),
    ("container bad procMount", _csc(procMount="Bogus"), [(f"{C0}.procMount", NOT_SUPPORTED)]),
    (
        "container Unmasked procMount with host users",
        _csc(procMount="Unmasked"),
        [(f"{C0}.procMount", INVALID)],
    ),
    (
        "container allowPrivilegeEscalation false with privileged",
        _csc(allowPrivilegeEscalation=False, privileged=True),
        [(C0, INVALID)],
    ),
    (
        "container allowPrivilegeEscalation false with CAP_SYS_ADMIN",
        _csc(allowPrivilegeEscalation=False, capabilities={"add": ["CAP_SYS_ADMIN"]}),
        [(C0, INVALID)],
    ),
    (
        "container seccomp Localhost without profile",
        _csc(seccompProfile={"type": "Localhost"}),
        [(f"{C0}.seccompProfile.localhostProfile", REQUIRED)],
    ),
    (
        "container AppArmor bad type",
        _csc(appArmorProfile={"type": "x"}),
        [(f"{C0}.appArmorProfile.type", NOT_SUPPORTED)],
    ),
    (
        "container runAsUserName empty",
        _csc(windowsOptions={"runAsUserName": ""}),
        [(f"{C0}.windowsOptions.runAsUserName", INVALID)],
    ),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_invalid_security_contexts_are_rejected(
    spec: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert fields(pod(spec)) == expected


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in ERRORS[:6]], ids=[c[0] for c in ERRORS[:6]])
def test_a_job_template_is_checked_the_same(spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert fields(job(spec)) == [(f.replace("spec.", "spec.template.spec.", 1), r) for f, r in expected]


def test_messages_are_upstreams() -> None:
    """What kubectl prints: the ID range, the sysctl regex, the hostNetwork rule, the escalation rule."""
    spec = {
        "hostNetwork": True,
        **_sc(runAsUser=-1, sysctls=[{"name": "net.core.somaxconn"}, {"name": "B"}]),
        **_csc(allowPrivilegeEscalation=False, privileged=True),
    }
    messages = [m for _, _, m in causes(pod(spec))]
    assert messages == [
        'Invalid value: {"allowPrivilegeEscalation":false,"privileged":true}: cannot set '
        "`allowPrivilegeEscalation` to false and `privileged` to true",
        f"Invalid value: -1: {RANGE}",
        "Invalid value: \"net.core.somaxconn\": may not be specified when 'hostNetwork' is true",
        'Invalid value: "B": must have at most 253 characters and match regex '
        "^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$",
    ]


@pytest.mark.parametrize("name", ["kernel.msgmax", "net/ipv4/ip_local_port_range", "kernel.shm_rmid_forced"])
def test_a_sysctl_name_ending_in_a_newline_is_refused(name: str) -> None:
    """``IsValidSysctlName``'s regexp: Go's ``$`` matches only at the end of the text, so
    ``"kernel.msgmax\\n"`` is refused (Python's ``$`` also matched before the final newline)."""
    created(pod(_sc(sysctls=[{"name": name, "value": "1"}])))
    assert [(f, m) for f, _, m in causes(pod(_sc(sysctls=[{"name": name + "\n", "value": "1"}])))] == [
        (f"{SC}.sysctls[0].name", f'Invalid value: "{name}\\n": must have at most 253 characters and match '
         "regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$")
    ]
