"""The rest of ``ValidatePodSpec`` that kbatch did not check: ``dnsPolicy``/``dnsConfig``,
``hostAliases``, ``readinessGates``, ``runtimeClassName``, ``spec.os`` and the fields each OS forbids,
``hostUsers``, Windows HostProcess pods, containers' ``resizePolicy`` and the values of a required
node affinity, through kbatch's API server.

Source: kubernetes ``pkg/apis/core/validation/validation.go`` (stored copy, commit 000f26050b9b,
post-1.35): ``validatePodDNSConfig``, ``ValidateHostAliases``, ``validateReadinessGates``,
``ValidateRuntimeClassName``, ``validateOS``, ``validateLinux``, ``validateWindows``,
``validateHostUsers``, ``validateWindowsHostProcessPod``, ``validateResizePolicy``,
``ValidateNodeSelectorRequirement``; ``k8s.io/apimachinery`` ``pkg/util/validation/ip.go``
(``IsValidIP``). One case per branch, named after the ``TestValidatePodDNSConfig``,
``TestValidatePodSpec``, ``TestValidateOS``/``TestValidateWindows``/``TestValidateLinux``,
``TestValidateResizePolicy`` and ``TestValidateAffinity`` cases they correspond to (the tables
themselves were not read in the time this audit had). kbatch accepted every error case below
before this file was written.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.upstream_pod import (
    DUPLICATE,
    FORBIDDEN,
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

DNS = "spec.dnsConfig"
WIN = "cannot be set for a windows pod"
NODE_REQ = (
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
    ".matchExpressions[0]"
)


def _dns(policy: str = "ClusterFirst", **config: Any) -> dict[str, Any]:
    return {"dnsPolicy": policy, "dnsConfig": config}


def _resize(*policies: dict[str, str], restart: str = "Always") -> dict[str, Any]:
    return {"restartPolicy": restart, "containers": [ctr(resizePolicy=list(policies))]}


def _node_req(operator: str, values: list[str]) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": "k", "operator": operator, "values": values}]}
    return {
        "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
        }
    }


def _host_process(
    pod_value: bool | None, *containers: bool | None, host_network: bool = True
) -> dict[str, Any]:
    def options(value: bool | None) -> dict[str, Any]:
        return {} if value is None else {"securityContext": {"windowsOptions": {"hostProcess": value}}}

    spec: dict[str, Any] = {
        "hostNetwork": host_network,
        "containers": [ctr(f"c{i}", **options(v)) for i, v in enumerate(containers)],
    }
    if pod_value is not None:
        spec["securityContext"] = {"windowsOptions": {"hostProcess": pod_value}}
    return spec


SUCCESS: dict[str, dict[str, Any]] = {
    "dnsPolicy None with a nameserver": _dns("None", nameservers=["1.2.3.4"]),
    "dnsConfig: 3 nameservers, IPv6, searches with underscore and a lone dot, options": _dns(
        nameservers=["1.2.3.4", "2001:db8::1", "::1"],
        searches=["_sip._tcp.abc_d.example.com", ".", "ns.svc."],
        options=[{"name": "ndots", "value": "2"}, {"name": "edns0"}],
    ),
    "32 search paths": _dns(searches=[f"s{i}" for i in range(32)]),
    "host aliases": {
        "hostAliases": [{"ip": "10.0.0.1", "hostnames": ["a.example.com", "b"]}, {"ip": "fe80::1"}]
    },
    "readiness gate with a prefixed condition type": {
        "readinessGates": [{"conditionType": "example.com/ready"}]
    },
    "runtimeClassName": {"runtimeClassName": "gvisor"},
    "os linux with linux fields": {
        "os": {"name": "linux"},
        "hostPID": True,
        "securityContext": {"runAsUser": 1, "seccompProfile": {"type": "RuntimeDefault"}},
    },
    "os windows with windows options": {
        "os": {"name": "windows"},
        "securityContext": {"windowsOptions": {"runAsUserName": "ContainerUser"}},
    },
    "hostUsers false without host namespaces": {"hostUsers": False},
    "resize policies for cpu and memory": _resize(
        {"resourceName": "cpu", "restartPolicy": "NotRequired"},
        {"resourceName": "memory", "restartPolicy": "RestartContainer"},
    ),
    "resize policy NotRequired with restartPolicy Never": _resize(
        {"resourceName": "cpu", "restartPolicy": "NotRequired"}, restart="Never"
    ),
    "Gt with one integer value": _node_req("Gt", ["5"]),
    "HostProcess pod: all containers, host network": _host_process(True, None, True),
}


@pytest.mark.parametrize("spec", SUCCESS.values(), ids=SUCCESS.keys())
def test_valid_specs_are_created(spec: dict[str, Any]) -> None:
    created(pod(spec))


ERRORS: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("dnsPolicy None without dnsConfig", {"dnsPolicy": "None"}, [(DNS, REQUIRED)]),
    ("dnsPolicy None without nameservers", _dns("None", searches=["a"]), [(f"{DNS}.nameservers", REQUIRED)]),
    (
        "too many nameservers",
        _dns(nameservers=["1.1.1.1", "1.1.1.2", "1.1.1.3", "1.1.1.4"]),
        [(f"{DNS}.nameservers", INVALID)],
    ),
    ("nameserver not an IP", _dns(nameservers=["invalid"]), [(f"{DNS}.nameservers[0]", INVALID)]),
    ("nameserver with leading zeros", _dns(nameservers=["010.0.0.1"]), [(f"{DNS}.nameservers[0]", INVALID)]),
    (
        "nameserver IPv4-mapped IPv6",
        _dns(nameservers=["::ffff:1.2.3.4"]),
        [(f"{DNS}.nameservers[0]", INVALID)],
    ),
    ("nameserver not canonical", _dns(nameservers=["2001:DB8::1"]), [(f"{DNS}.nameservers[0]", INVALID)]),
    ("too many search paths", _dns(searches=[f"s{i}" for i in range(33)]), [(f"{DNS}.searches", INVALID)]),
    (
        "search list over 2048 characters",
        _dns(searches=["a" * 63 + "." + "b" * 63 + "." + "c" * 63] * 11),
        [(f"{DNS}.searches", INVALID)],
    ),
    ("search not a subdomain", _dns(searches=["Bad.Search"]), [(f"{DNS}.searches[0]", INVALID)]),
    ("search with two dots", _dns(searches=["a..b"]), [(f"{DNS}.searches[0]", INVALID)]),
    ("option without name", _dns(options=[{"value": "x"}]), [(f"{DNS}.options[0]", REQUIRED)]),
    ("host alias without IP", {"hostAliases": [{"hostnames": ["a"]}]}, [("spec.hostAliases[0].ip", INVALID)]),
    ("host alias bad IP", {"hostAliases": [{"ip": "999.0.0.1"}]}, [("spec.hostAliases[0].ip", INVALID)]),
    (
        "host alias bad hostname",
        {"hostAliases": [{"ip": "1.2.3.4", "hostnames": ["a", "Not_DNS"]}]},
        [("spec.hostAliases[0].hostnames[1]", INVALID)],
    ),
    (
        "readiness gate not a qualified name",
        {"readinessGates": [{"conditionType": "a/b/c"}]},
        [("spec.readinessGates[0].conditionType", INVALID)],
    ),
    (
        "empty readiness gate (empty, then the regex)",
        {"readinessGates": [{"conditionType": ""}]},
        [
            ("spec.readinessGates[0].conditionType", INVALID),
            ("spec.readinessGates[0].conditionType", INVALID),
        ],
    ),
    (
        "runtimeClassName not a subdomain",
        {"runtimeClassName": "Bad_Name"},
        [("spec.runtimeClassName", INVALID)],
    ),
    ("empty runtimeClassName", {"runtimeClassName": ""}, [("spec.runtimeClassName", INVALID)]),
    ("os without name", {"os": {}}, [("spec.os.name", REQUIRED)]),
    ("os not supported", {"os": {"name": "plan9"}}, [("spec.os", NOT_SUPPORTED)]),
    (
        "linux pod with windows options",
        {
            "os": {"name": "linux"},
            "securityContext": {"windowsOptions": {}},
            "containers": [ctr(securityContext={"windowsOptions": {}})],
        },
        [
            ("spec.securityContext.windowsOptions", FORBIDDEN),
            ("spec.containers[0].securityContext.windowsOptions", FORBIDDEN),
        ],
    ),
    (
        "windows pod with pod-level linux fields",
        {
            "os": {"name": "windows"},
            "hostUsers": True,
            "hostPID": True,
            "hostIPC": True,
            "shareProcessNamespace": False,
            "securityContext": {
                "appArmorProfile": {"type": "RuntimeDefault"},
                "seLinuxOptions": {"level": "s0"},
                "seccompProfile": {"type": "RuntimeDefault"},
                "fsGroup": 1,
                "fsGroupChangePolicy": "Always",
                "sysctls": [{"name": "kernel.domainname"}],
                "runAsUser": 1,
                "runAsGroup": 1,
                "supplementalGroups": [1],
                "supplementalGroupsPolicy": "Merge",
                "seLinuxChangePolicy": "Recursive",
            },
        },
        [(f"spec.securityContext.{f}", FORBIDDEN) for f in ("appArmorProfile", "seLinuxOptions")]
        + [(f"spec.{f}", FORBIDDEN) for f in ("hostUsers", "hostPID", "hostIPC")]
        + [
            (f"spec.securityContext.{f}", FORBIDDEN)
            for f in ("seccompProfile", "fsGroup", "fsGroupChangePolicy", "sysctls")
        ]
        + [("spec.shareProcessNamespace", FORBIDDEN)]
        + [
            (f"spec.securityContext.{f}", FORBIDDEN)
            for f in (
                "runAsUser",
                "runAsGroup",
                "supplementalGroups",
                "supplementalGroupsPolicy",
                "seLinuxChangePolicy",
            )
        ],
    ),
    (
        "windows pod with container linux fields",
        {
            "os": {"name": "windows"},
            "containers": [
                ctr(
                    securityContext={
                        "appArmorProfile": {"type": "RuntimeDefault"},
                        "seLinuxOptions": {},
                        "seccompProfile": {"type": "Unconfined"},
                        "capabilities": {},
                        "readOnlyRootFilesystem": False,
                        "privileged": False,
                        "allowPrivilegeEscalation": True,
                        "procMount": "Default",
                        "runAsUser": 1,
                        "runAsGroup": 1,
                    }
                )
            ],
        },
        [
            (f"spec.containers[0].securityContext.{f}", FORBIDDEN)
            for f in (
                "appArmorProfile",
                "seLinuxOptions",
                "seccompProfile",
                "capabilities",
                "readOnlyRootFilesystem",
                "privileged",
                "allowPrivilegeEscalation",
                "procMount",
                "runAsUser",
                "runAsGroup",
            )
        ],
    ),
    (
        "hostUsers false with host namespaces",
        {"hostUsers": False, "hostNetwork": True, "hostPID": True, "hostIPC": True},
        [("spec.hostNetwork", FORBIDDEN), ("spec.HostPID", FORBIDDEN), ("spec.HostIPC", FORBIDDEN)],
    ),
    (
        "HostProcess without host network",
        _host_process(True, None, host_network=False),
        [("spec.hostNetwork", INVALID)],
    ),
    ("HostProcess mixed with a regular container", _host_process(None, True, None), [("spec", INVALID)]),
    (
        "HostProcess pod and container disagree (the container's false wins)",
        _host_process(True, False),
        [("spec.containers[0].securityContext.windowsOptions.hostProcess", INVALID)],
    ),
    (
        "duplicate resize resource",
        _resize(
            {"resourceName": "cpu", "restartPolicy": "NotRequired"},
            {"resourceName": "cpu", "restartPolicy": "NotRequired"},
        ),
        [("spec.containers[0].resizePolicy[1]", DUPLICATE)],
    ),
    (
        "resize resource not supported",
        _resize({"resourceName": "nvidia.com/gpu", "restartPolicy": "NotRequired"}),
        [("spec.containers[0].resizePolicy", NOT_SUPPORTED)],
    ),
    (
        "resize without resource or policy",
        _resize({"resourceName": "", "restartPolicy": ""}),
        [("spec.containers[0].resizePolicy", REQUIRED), ("spec.containers[0].resizePolicy", REQUIRED)],
    ),
    (
        "resize policy not supported",
        _resize({"resourceName": "memory", "restartPolicy": "Restart"}),
        [("spec.containers[0].resizePolicy", NOT_SUPPORTED)],
    ),
    (
        "RestartContainer with restartPolicy Never",
        _resize({"resourceName": "memory", "restartPolicy": "RestartContainer"}, restart="Never"),
        [("spec.containers[0].resizePolicy", INVALID)],
    ),
    (
        "required node affinity value not a label value",
        _node_req("In", ["a b"]),
        [(f"{NODE_REQ}.values[0]", INVALID)],
    ),
    ("Gt value not a label value", _node_req("Gt", ["-1!"]), [(f"{NODE_REQ}.values[0]", INVALID)]),
    ("Lt with two values", _node_req("Lt", ["1", "2"]), [(f"{NODE_REQ}.values", REQUIRED)]),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_invalid_specs_are_rejected(spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert fields(pod(spec)) == expected


def test_preferred_node_affinity_values_are_not_checked() -> None:
    """``ValidatePreferredSchedulingTerms`` always allows invalid label values (one node may match)."""
    term = {
        "weight": 1,
        "preference": {"matchExpressions": [{"key": "k", "operator": "In", "values": ["a b"]}]},
    }
    created(pod({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [term]}}}))


def test_a_job_template_is_checked_the_same() -> None:
    assert fields(job({"dnsPolicy": "None", "hostAliases": [{"ip": "x"}]})) == [
        ("spec.template.spec.dnsConfig", REQUIRED),
        ("spec.template.spec.hostAliases[0].ip", INVALID),
    ]


def test_messages_are_upstreams() -> None:
    spec = {
        **_dns(nameservers=["2001:DB8::1"], searches=["a_b."]),
        "os": {"name": "windows"},
        "hostPID": True,
        **_resize({"resourceName": "cpu", "restartPolicy": "RestartContainer"}, restart="Never"),
    }
    assert [(f, m) for f, _, m in causes(pod(spec))] == [
        (
            "spec.containers[0].resizePolicy",
            "Invalid value: \"RestartContainer\": must be 'NotRequired' when `restartPolicy` is 'Never'",
        ),
        (f"{DNS}.nameservers[0]", 'Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")'),
        ("spec.hostPID", f"Forbidden: {WIN}"),
    ]


@pytest.mark.parametrize(
    ("ip", "where"),
    [("10.0.0.1", "spec.hostAliases[0].ip"), ("192.168.1.255", f"{DNS}.nameservers[0]")],
)
def test_an_ip_ending_in_a_newline_is_not_an_ip(ip: str, where: str) -> None:
    """``IsValidIP``: ``netutils.ParseIPSloppy`` refuses ``"10.0.0.1\\n"`` too, so it is "not a valid
    IP address" (a Python ``$`` anchor matched before the final newline: kbatch said "leading 0s")."""

    def spec(value: str) -> dict[str, Any]:
        if where.startswith(DNS):
            return _dns("None", nameservers=[value])
        return {"hostAliases": [{"ip": value, "hostnames": ["a"]}]}

    created(pod(spec(ip)))
    assert [(f, m) for f, _, m in causes(pod(spec(ip + "\n")))] == [
        (where, f'Invalid value: "{ip}\\n": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')
    ]


def test_an_ip_of_other_scripts_digits_is_not_an_ip() -> None:
    """``ParseIPSloppy`` reads ASCII digits; Python's ``\\d`` took Arabic-Indic ones ("leading 0s")."""
    value = "\u0661\u0660.0.0.1"
    assert [(f, m) for f, _, m in causes(pod({"hostAliases": [{"ip": value, "hostnames": ["a"]}]}))] == [
        ("spec.hostAliases[0].ip",
         f'Invalid value: "{value}": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')
    ]
