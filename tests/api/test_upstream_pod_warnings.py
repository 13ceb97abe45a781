"""Cases of upstream's pod warnings table, ported one by one (kubernetes pkg/api/pod/warnings_test.go
``TestWarnings`` and ``TestTemplateOnlyWarnings``, stored copy at commit 04669c5d64). Upstream calls
``GetWarningsForPodTemplate`` (nil path) and ``GetWarningsForPod`` with each template and compares
the results as sets; here each case goes to
:func:`kbatch.api.strategies.core.pod_warnings.pod_spec_warnings` as a Pod (no path) and as a
template, and is compared as a sorted list. The specs are upstream's, written as wire JSON.
Cases a strategy-level test covers end to end are in ``tests/api/test_pod_warnings_api.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import PodSpec
from kbatch.api.strategies.core.pod_warnings import pod_spec_warnings

FRAC = {"cpu": "100m", "memory": "4m", "ephemeral-storage": "4m"}
DEPRECATED_KEYS = ["foo", "beta.kubernetes.io/arch", "beta.kubernetes.io/os",
                   "failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
                   "beta.kubernetes.io/instance-type"]
NODE_MSGS = ['beta.kubernetes.io/arch is deprecated since v1.14; use "kubernetes.io/arch" instead',
             'beta.kubernetes.io/os is deprecated since v1.14; use "kubernetes.io/os" instead',
             'failure-domain.beta.kubernetes.io/region is deprecated since v1.17; use '
             '"topology.kubernetes.io/region" instead',
             'failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use '
             '"topology.kubernetes.io/zone" instead',
             'beta.kubernetes.io/instance-type is deprecated since v1.17; use '
             '"node.kubernetes.io/instance-type" instead']
REQ = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
PREF = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference"
NULL = "a null labelSelector results in matching no pod"
SECCOMP = 'non-functional in v1.27+; use the "seccompProfile" field instead'
SYSCTLS = 'non-functional in v1.11+; use the "sysctls" field instead'


def vol(name: str, **source: Any) -> dict[str, Any]:
    return {"name": name, **source}


def ports(*items: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(p) for p in items]


def hides(path: str, name: str) -> str:
    return f'{path}: hides previous definition of "{name}", which may be dropped when using apply'


def frac(path: str) -> str:
    return f'{path}: fractional byte value "4m" is invalid, must be an integer'


def dup_port(path: str, other: str) -> str:
    return f"{path}: duplicate port definition with {other}"


def dup_name(path: str, other: str) -> str:
    return (f'{path}: duplicate port name "test" with {other}, services and probes that select ports by name '
            f"will use {other}")


def overlap(vol_desc: str, body: str, name: str = "foo") -> str:
    return f'volume "{name}" ({vol_desc}): overlapping paths: {body}'


UDP80 = {"containerPort": 80, "protocol": "UDP"}
HOST_IP_ONLY = ("hostIP set without hostPort: {Name: HostPort:0 ContainerPort:80 Protocol:UDP "
                "HostIP:10.0.0.1}")
DOWNWARD = {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}

# (upstream case name, annotations, pod spec, expected warnings)
CASES: list[tuple[str, dict[str, str] | None, dict[str, Any], list[str]]] = [
    ("photon", None, {"volumes": [vol("p", photonPersistentDisk={})]},
     ["spec.volumes[0].photonPersistentDisk: deprecated in v1.11, non-functional in v1.16+"]),
    ("gitRepo", None, {"volumes": [vol("s", gitRepo={})]}, ["spec.volumes[0].gitRepo: deprecated in v1.11"]),
    ("scaleIO", None, {"volumes": [vol("s", scaleIO={})]},
     ["spec.volumes[0].scaleIO: deprecated in v1.16, non-functional in v1.22+"]),
    ("flocker", None, {"volumes": [vol("s", flocker={})]},
     ["spec.volumes[0].flocker: deprecated in v1.22, non-functional in v1.25+"]),
    ("storageOS", None, {"volumes": [vol("s", storageos={})]},
     ["spec.volumes[0].storageOS: deprecated in v1.22, non-functional in v1.25+"]),
    ("quobyte", None, {"volumes": [vol("s", quobyte={})]},
     ["spec.volumes[0].quobyte: deprecated in v1.22, non-functional in v1.25+"]),
    ("glusterfs", None, {"volumes": [vol("s", glusterfs={})]},
     ["spec.volumes[0].glusterfs: deprecated in v1.25, non-functional in v1.26+"]),
    ("CephFS", None, {"volumes": [vol("s", cephfs={})]},
     ["spec.volumes[0].cephfs: deprecated in v1.28, non-functional in v1.31+"]),
    ("rbd", None, {"volumes": [vol("s", rbd={})]},
     ["spec.volumes[0].rbd: deprecated in v1.28, non-functional in v1.31+"]),
    ("overlapping paths in a configmap volume", None,
     {"volumes": [vol("Test", configMap={"name": "foo", "items": [{"key": "foo", "path": "test"},
                                                                  {"key": "bar", "path": "test"}]})]},
     [overlap('ConfigMap "foo"', '"test" with "test"', "Test")]),
    ("overlapping paths in a configmap volume - try to mount dir path into a file", None,
     {"volumes": [vol("Test", configMap={"name": "foo", "items": [{"key": "foo", "path": "test"},
                                                                  {"key": "bar", "path": "test/app"}]})]},
     [overlap('ConfigMap "foo"', '"test/app" with "test"', "Test")]),
    ("overlapping paths in a configmap volume - try to mount file into a dir path", None,
     {"volumes": [vol("Test", configMap={"name": "foo", "items": [{"key": "bar", "path": "test/app"},
                                                                  {"key": "foo", "path": "test"}]})]},
     [overlap('ConfigMap "foo"', '"test" with "test/app"', "Test")]),
    ("overlapping paths in a secret volume", None,
     {"volumes": [vol("Test", secret={"secretName": "foo", "items": [{"key": "foo", "path": "test"},
                                                                     {"key": "bar", "path": "test"}]})]},
     [overlap('Secret "foo"', '"test" with "test"', "Test")]),
    ("overlapping paths in a downward api volume", None,
     {"volumes": [vol("Test", downwardAPI={"items": [
         {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}, "path": "test"},
         {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels"}, "path": "test"}]})]},
     [overlap("DownwardAPI", '"test" with "test"', "Test")]),
    ("overlapping paths in projected volume - service account and config", None,
     {"volumes": [vol("foo", projected={"sources": [
         {"configMap": {"name": "Test", "items": [{"key": "foo", "path": "test"}]}},
         {"serviceAccountToken": {"path": "test"}}]})]},
     [overlap("Projected", '"test" (ServiceAccountToken) with "test" (ConfigMap "Test")')]),
    ("overlapping paths in projected volume volume: service account dir and config file", None,
     {"volumes": [vol("foo", projected={"sources": [
         {"configMap": {"name": "Test", "items": [{"key": "foo", "path": "test"}]}},
         {"serviceAccountToken": {"path": "test/file"}}]})]},
     [overlap("Projected", '"test/file" (ServiceAccountToken) with "test" (ConfigMap "Test")')]),
    ("overlapping paths in projected volume - service account file and config dir", None,
     {"volumes": [vol("foo", projected={"sources": [
         {"configMap": {"name": "Test", "items": [{"key": "foo", "path": "test/file"}]}},
         {"serviceAccountToken": {"path": "test"}}]})]},
     [overlap("Projected", '"test" (ServiceAccountToken) with "test/file" (ConfigMap "Test")')]),
    ("overlapping paths in projected volume - service account and secret", None,
     {"volumes": [vol("foo", projected={"sources": [
         {"secret": {"name": "Test", "items": [{"key": "foo", "path": "test"}]}},
         {"serviceAccountToken": {"path": "test"}}]})]},
     [overlap("Projected", '"test" (ServiceAccountToken) with "test" (Secret "Test")')]),
    ("overlapping paths in projected volume - service account and downward api", None,
     {"volumes": [vol("foo", projected={"sources": [
         {"downwardAPI": {"items": [{**DOWNWARD, "path": "test"}]}},
         {"serviceAccountToken": {"path": "test"}}]})]},
     [overlap("Projected", '"test" (ServiceAccountToken) with "test" (DownwardAPI)')]),
    ("overlapping paths in projected volume - service account and cluster trust bundle", None,
     {"volumes": [vol("foo", projected={"sources": [
         {"clusterTrustBundle": {"name": "Test", "path": "test"}},
         {"serviceAccountToken": {"path": "test"}}]})]},
     [overlap("Projected", '"test" (ServiceAccountToken) with "test" (ClusterTrustBundle "Test")')]),
    ("overlapping paths in projected volume - service account and cluster trust bundle with signer name",
     None,
     {"volumes": [vol("foo", projected={"sources": [
         {"clusterTrustBundle": {"signerName": "Test", "path": "test"}},
         {"serviceAccountToken": {"path": "test"}}]})]},
     [overlap("Projected", '"test" (ServiceAccountToken) with "test" (ClusterTrustBundle "Test")')]),
    ("overlapping paths in projected volume - secret and config map", None,
     {"volumes": [vol("foo", projected={"sources": [
         {"secret": {"name": "TestSecret", "items": [{"key": "mykey", "path": "test"}]}},
         {"configMap": {"name": "TestConfigMap", "items": [{"key": "mykey", "path": "test/test1"}]}}]})]},
     [overlap("Projected", '"test/test1" (ConfigMap "TestConfigMap") with "test" (Secret "TestSecret")')]),
    ("overlapping paths in projected volume - config map and downward api", None,
     {"volumes": [vol("foo", projected={"sources": [
         {"secret": {"name": "TestSecret", "items": [{"key": "mykey", "path": "test"}]}},
         {"downwardAPI": {"items": [{**DOWNWARD, "path": "test/test2"}]}}]})]},
     [overlap("Projected", '"test/test2" (DownwardAPI) with "test" (Secret "TestSecret")')]),
    ("overlapping paths in projected volume - downward api and cluster thrust bundle api", None,
     {"volumes": [vol("foo", projected={"sources": [
         {"downwardAPI": {"items": [{**DOWNWARD, "path": "test/test2"}]}},
         {"clusterTrustBundle": {"name": "Test", "path": "test"}}]})]},
     [overlap("Projected", '"test" (ClusterTrustBundle "Test") with "test/test2" (DownwardAPI)')]),
    ("overlapping paths in projected volume - multiple sources", None,
     {"volumes": [vol("foo", projected={"sources": [
         {"clusterTrustBundle": {"signerName": "Test", "path": "test/test"}},
         {"downwardAPI": {"items": [{**DOWNWARD, "path": "test"}]}},
         {"secret": {"name": "Test", "items": [{"key": "foo", "path": "test"}]}},
         {"serviceAccountToken": {"path": "test"}}]})]},
     [overlap("Projected", '"test" (DownwardAPI) with "test/test" (ClusterTrustBundle "Test")'),
      overlap("Projected", '"test" (Secret "Test") with "test/test" (ClusterTrustBundle "Test")'),
      overlap("Projected", '"test" (Secret "Test") with "test" (DownwardAPI)'),
      overlap("Projected", '"test" (ServiceAccountToken) with "test/test" (ClusterTrustBundle "Test")'),
      overlap("Projected", '"test" (ServiceAccountToken) with "test" (DownwardAPI)'),
      overlap("Projected", '"test" (ServiceAccountToken) with "test" (Secret "Test")')]),
    ("overlapping paths in projected volume - ServiceAccount vs. DownwardAPI", None,
     {"volumes": [vol("foo", projected={"sources": [
         {"serviceAccountToken": {"path": "test/test2"}},
         {"downwardAPI": {"items": [{**DOWNWARD, "path": "test"}, {**DOWNWARD, "path": "test"}]}}]})]},
     [overlap("Projected", '"test" (DownwardAPI) with "test/test2" (ServiceAccountToken)'),
      overlap("Projected", '"test" (DownwardAPI) with "test/test2" (ServiceAccountToken)'),
      overlap("Projected", '"test" (DownwardAPI) with "test" (DownwardAPI)')]),
    ("empty sources in projected volume", None, {"volumes": [vol("foo", projected={"sources": [{}]})]},
     ['volume "foo" (Projected) has no sources provided']),
    ("duplicate hostAlias", None, {"hostAliases": [{"ip": "1.1.1.1"}] * 3},
     ['spec.hostAliases[1].ip: duplicate ip "1.1.1.1"', 'spec.hostAliases[2].ip: duplicate ip "1.1.1.1"']),
    ("duplicate imagePullSecret", None, {"imagePullSecrets": [{"name": "a"}] * 3},
     ['spec.imagePullSecrets[1].name: duplicate name "a"',
      'spec.imagePullSecrets[2].name: duplicate name "a"']),
    ("empty imagePullSecret", None, {"imagePullSecrets": [{"name": ""}]},
     ['spec.imagePullSecrets[0].name: invalid empty name ""']),
    ("duplicate env", None,
     {"initContainers": [{"env": [{"name": "a", "value": v} for v in ("a", "a", "other", "", "$(a)")]
                          + [{"name": "a", "valueFrom": {}}, {"name": "a", "value": "$(a) $(a)"}]}],
      "containers": [{"env": [{"name": "b", "value": v} for v in ("b", "b", "other", "", "$(b)")]
                      + [{"name": "b", "valueFrom": {}}, {"name": "b", "value": "$(b) $(b)"}]}]},
     [hides(f"spec.initContainers[0].env[{i}]", "a") for i in range(1, 6)]
     + [hides(f"spec.containers[0].env[{i}]", "b") for i in range(1, 6)]),
    ("fractional resources", None,
     {"initContainers": [{"resources": {"requests": FRAC, "limits": FRAC}}],
      "containers": [{"resources": {"requests": FRAC, "limits": FRAC}}], "overhead": FRAC},
     [frac(f"spec.{c}[0].resources.{k}[{r}]") for c in ("initContainers", "containers")
      for k in ("requests", "limits") for r in ("ephemeral-storage", "memory")]
     + [frac("spec.overhead[ephemeral-storage]"), frac("spec.overhead[memory]")]),
    ("node labels in nodeSelector", None, {"nodeSelector": {k: "true" for k in DEPRECATED_KEYS[1:]}},
     ['spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead',
      'spec.nodeSelector[beta.kubernetes.io/instance-type]: deprecated since v1.17; use '
      '"node.kubernetes.io/instance-type" instead',
      'spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
      'spec.nodeSelector[failure-domain.beta.kubernetes.io/region]: deprecated since v1.17; use '
      '"topology.kubernetes.io/region" instead',
      'spec.nodeSelector[failure-domain.beta.kubernetes.io/zone]: deprecated since v1.17; use '
      '"topology.kubernetes.io/zone" instead']),
    ("node labels in affinity requiredDuringSchedulingIgnoredDuringExecution", None,
     {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
         {"matchExpressions": [{"key": k, "operator": "Exists"} for k in DEPRECATED_KEYS]}]}}}},
     [f"{REQ}.matchExpressions[{i + 1}].key: {m}" for i, m in enumerate(NODE_MSGS)]),
    ("node labels in affinity preferredDuringSchedulingIgnoredDuringExecution", None,
     {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 1, "preference": {"matchExpressions": [{"key": k, "operator": "Exists"}
                                                           for k in DEPRECATED_KEYS]}}]}}},
     [f"{PREF}.matchExpressions[{i + 1}].key: {m}" for i, m in enumerate(NODE_MSGS)]),
    ("node labels in topologySpreadConstraints", None,
     {"topologySpreadConstraints": [{"topologyKey": k, "labelSelector": {}} for k in DEPRECATED_KEYS]},
     [f"spec.topologySpreadConstraints[{i + 1}].topologyKey: {m}" for i, m in enumerate(NODE_MSGS)]),
    ("annotations",
     {"foo": "bar", "scheduler.alpha.kubernetes.io/critical-pod": "true",
      "seccomp.security.alpha.kubernetes.io/pod": "default",
      "container.seccomp.security.alpha.kubernetes.io/foo": "default",
      "security.alpha.kubernetes.io/sysctls": "a,b,c",
      "security.alpha.kubernetes.io/unsafe-sysctls": "d,e,f"},
     {"containers": [{"name": "foo"}]},
     ['metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the '
      '"priorityClassName" field instead',
      f"metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: {SECCOMP}",
      f"metadata.annotations[container.seccomp.security.alpha.kubernetes.io/foo]: {SECCOMP}",
      f"metadata.annotations[security.alpha.kubernetes.io/sysctls]: {SYSCTLS}",
      f"metadata.annotations[security.alpha.kubernetes.io/unsafe-sysctls]: {SYSCTLS}"]),
    ("seccomp fields",
     {"seccomp.security.alpha.kubernetes.io/pod": "default",
      "container.seccomp.security.alpha.kubernetes.io/foo": "default"},
     {"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
      "containers": [{"name": "foo", "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}}]},
     []),
    ("pod with ephemeral volume source 200Mi", None,
     {"volumes": [vol("ephemeral-volume", ephemeral={"volumeClaimTemplate": {
         "spec": {"resources": {"requests": {"storage": "200Mi"}}}}})]}, []),
    ("pod with ephemeral volume source 200m", None,
     {"volumes": [vol("ephemeral-volume", ephemeral={"volumeClaimTemplate": {
         "spec": {"resources": {"requests": {"storage": "200m"}}}}})]},
     ['spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests[storage]: fractional byte value '
      '"200m" is invalid, must be an integer']),
    ("terminationGracePeriodSeconds is negative", None, {"terminationGracePeriodSeconds": -1},
     ["spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated "
      "as 1"]),
    ("null LabelSelector in topologySpreadConstraints", None,
     {"topologySpreadConstraints": [{"labelSelector": {}}, {}]},
     [f"spec.topologySpreadConstraints[1].labelSelector: {NULL}"]),
    ("null LabelSelector in PodAffinity", None,
     {"affinity": {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}}, {}],
                          "preferredDuringSchedulingIgnoredDuringExecution": [
                              {"weight": 1, "podAffinityTerm": {"labelSelector": {}}},
                              {"weight": 1, "podAffinityTerm": {}}]}
                   for kind in ("podAffinity", "podAntiAffinity")}},
     [f"spec.affinity.{k}.requiredDuringSchedulingIgnoredDuringExecution[1].labelSelector: {NULL}"
      for k in ("podAffinity", "podAntiAffinity")]
     + [f"spec.affinity.{k}.preferredDuringSchedulingIgnoredDuringExecution[1].podAffinityTerm."
        f"labelSelector: {NULL}" for k in ("podAffinity", "podAntiAffinity")]),
    ("container no ports", None, {"containers": [{"name": "foo", "ports": []}]}, []),
    ("one container, one port", None,
     {"containers": [{"name": "foo", "ports": [{"containerPort": 80, "hostPort": 80}]}]}, []),
    ("one container, two ports, same protocol, different ports", None,
     {"containers": [{"name": "foo", "ports": [UDP80, {"containerPort": 81, "protocol": "UDP"}]}]}, []),
    ("one container, two ports, different protocols, same port", None,
     {"containers": [{"name": "foo", "ports": [UDP80, {"containerPort": 80, "protocol": "TCP"}]}]}, []),
    ("one container, two ports, same protocol, same port, different hostport", None,
     {"containers": [{"name": "foo", "ports": [{"containerPort": 80, "protocol": "TCP", "hostPort": 80},
                                               {"containerPort": 80, "protocol": "TCP", "hostPort": 81}]}]},
     []),
    ("one container, two ports, same protocol, port and hostPort, different hostIP", None,
     {"containers": [{"name": "foo", "ports": [
         {"containerPort": 80, "protocol": "TCP", "hostPort": 80, "hostIP": "10.0.0.1"},
         {"containerPort": 80, "protocol": "TCP", "hostPort": 80, "hostIP": "10.0.0.2"}]}]}, []),
    ("two containers, one port each, same protocol, different ports", None,
     {"containers": [{"name": "foo", "ports": [UDP80]},
                     {"name": "bar", "ports": [{"containerPort": 81, "protocol": "UDP"}]}]}, []),
    ("two containers, one port each, different protocols, same port", None,
     {"containers": [{"name": "foo", "ports": [UDP80]},
                     {"name": "bar", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}, []),
    ("two containers, one port each, same protocol, same port, different hostport", None,
     {"containers": [{"name": "foo", "ports": [{"containerPort": 80, "protocol": "TCP", "hostPort": 80}]},
                     {"name": "bar", "ports": [{"containerPort": 80, "protocol": "TCP", "hostPort": 81}]}]},
     []),
    ("two containers, one port each, same protocol, port and hostPort, different hostIP", None,
     {"containers": [
         {"name": "foo", "ports": [{"containerPort": 80, "protocol": "TCP", "hostPort": 80,
                                    "hostIP": "10.0.0.1"}]},
         {"name": "bar", "ports": [{"containerPort": 80, "protocol": "TCP", "hostPort": 80,
                                    "hostIP": "10.0.0.2"}]}]}, []),
    ("duplicate container ports with same port and protocol", None,
     {"containers": [{"name": "foo", "ports": [UDP80, UDP80]}]},
     [dup_port("spec.containers[0].ports[1]", "spec.containers[0].ports[0]")]),
    ("duplicate container ports with same port, hostPort and protocol", None,
     {"containers": [{"name": "foo", "ports": [{**UDP80, "hostPort": 80}, {**UDP80, "hostPort": 80}]}]},
     [dup_port("spec.containers[0].ports[1]", "spec.containers[0].ports[0]")]),
    ("duplicate container ports with same port, host port, host IP and protocol", None,
     {"containers": [{"name": "foo", "ports": [{**UDP80, "hostPort": 80, "hostIP": "10.0.0.1"}] * 2}]},
     [dup_port("spec.containers[0].ports[1]", "spec.containers[0].ports[0]")]),
    ("one container port hostIP set without host port set", None,
     {"containers": [{"name": "foo", "ports": [{**UDP80, "hostIP": "10.0.0.1"}]}]},
     [f"spec.containers[0].ports[0]: {HOST_IP_ONLY}"]),
    ("duplicate container ports with one host port set and one without", None,
     {"containers": [{"name": "foo", "ports": [{**UDP80, "hostPort": 80, "hostIP": "10.0.0.1"},
                                               {**UDP80, "hostIP": "10.0.0.1"}]}]},
     ["spec.containers[0].ports[1]: overlapping port definition with spec.containers[0].ports[0]",
      f"spec.containers[0].ports[1]: {HOST_IP_ONLY}"]),
    ("duplicate container ports without one host IP set and two with", None,
     {"containers": [{"name": "foo", "ports": [{**UDP80, "hostPort": 80, "hostIP": "10.0.0.1"},
                                               {**UDP80, "hostPort": 80},
                                               {**UDP80, "hostPort": 80, "hostIP": "10.0.0.2"}]}]},
     ["spec.containers[0].ports[1]: dangerously ambiguous port definition with spec.containers[0].ports[0]",
      "spec.containers[0].ports[2]: dangerously ambiguous port definition with spec.containers[0].ports[1]"]),
    ("duplicate container ports with one host IP set and one without", None,
     {"containers": [{"name": "foo", "ports": [{**UDP80, "hostPort": 80, "hostIP": "10.0.0.1"},
                                               {**UDP80, "hostPort": 80}]}]},
     ["spec.containers[0].ports[1]: dangerously ambiguous port definition with spec.containers[0].ports[0]"]),
    ("duplicate containers with same port and protocol", None,
     {"containers": [{"name": "foo", "ports": [UDP80]}, {"name": "bar", "ports": [UDP80]}]},
     [dup_port("spec.containers[1].ports[0]", "spec.containers[0].ports[0]")]),
    ("duplicate containers with same port, hostPort and protocol", None,
     {"containers": [{"name": "foo", "ports": [{**UDP80, "hostPort": 80}]},
                     {"name": "bar", "ports": [{**UDP80, "hostPort": 80}]}]},
     [dup_port("spec.containers[1].ports[0]", "spec.containers[0].ports[0]")]),
    ("duplicate containers with same port, host port, host IP and protocol", None,
     {"containers": [{"name": "foo", "ports": [{**UDP80, "hostPort": 80, "hostIP": "10.0.0.1"}]},
                     {"name": "bar", "ports": [{**UDP80, "hostPort": 80, "hostIP": "10.0.0.1"}]}]},
     [dup_port("spec.containers[1].ports[0]", "spec.containers[0].ports[0]")]),
    ("duplicate containers with one host port set and one without", None,
     {"containers": [{"name": "foo", "ports": [{**UDP80, "hostPort": 80, "hostIP": "10.0.0.1"}]},
                     {"name": "bar", "ports": [{**UDP80, "hostIP": "10.0.0.1"}]}]},
     ["spec.containers[1].ports[0]: overlapping port definition with spec.containers[0].ports[0]",
      f"spec.containers[1].ports[0]: {HOST_IP_ONLY}"]),
    ("duplicate container ports without one host IP set and one with", None,
     {"containers": [{"name": "foo", "ports": [{**UDP80, "hostPort": 80}]},
                     {"name": "bar", "ports": [{**UDP80, "hostPort": 80, "hostIP": "10.0.0.1"}]}]},
     ["spec.containers[1].ports[0]: dangerously ambiguous port definition with spec.containers[0].ports[0]"]),
    ("duplicate container ports with one host IP set and one without (two containers)", None,
     {"containers": [{"name": "foo", "ports": [{**UDP80, "hostPort": 80, "hostIP": "10.0.0.1"}]},
                     {"name": "bar", "ports": [{**UDP80, "hostPort": 80}]}]},
     ["spec.containers[1].ports[0]: dangerously ambiguous port definition with spec.containers[0].ports[0]"]),
    ("create duplicate container ports in two containers", None,
     {"containers": [{"name": "foo1", "ports": [{**UDP80, "hostPort": 80},
                                                {"containerPort": 180, "hostPort": 80, "protocol": "UDP"},
                                                {**UDP80, "hostPort": 80}]},
                     {"name": "foo", "ports": [{**UDP80, "hostPort": 80}] * 2}]},
     [dup_port("spec.containers[0].ports[2]", "spec.containers[0].ports[0]"),
      dup_port("spec.containers[1].ports[0]", "spec.containers[0].ports[0]"),
      dup_port("spec.containers[1].ports[0]", "spec.containers[0].ports[2]"),
      dup_port("spec.containers[1].ports[1]", "spec.containers[0].ports[0]"),
      dup_port("spec.containers[1].ports[1]", "spec.containers[0].ports[2]"),
      dup_port("spec.containers[1].ports[1]", "spec.containers[1].ports[0]")]),
    ("create duplicate container ports name in two containers", None,
     {"containers": [{"name": "foo1", "ports": [{**UDP80, "name": "test"}]},
                     {"name": "foo", "ports": [{"containerPort": 8090, "protocol": "TCP", "name": "test"}]}]},
     [dup_name("spec.containers[1].ports[0]", "spec.containers[0].ports[0]")]),
    ("update duplicate container ports name in two containers", None,
     {"containers": [{"name": "foo1", "ports": [{**UDP80, "name": "test"}]},
                     {"name": "foo", "ports": [{"containerPort": 8090, "protocol": "UDP", "name": "test1"},
                                               {"containerPort": 8092, "protocol": "UDP", "name": "test"}]}]},
     [dup_name("spec.containers[1].ports[1]", "spec.containers[0].ports[0]")]),
    ("create duplicate container ports name in two sidecar containers", None,
     {"initContainers": [{"name": "foo1", "restartPolicy": "Always", "ports": [{**UDP80, "name": "test"}]},
                         {"name": "foo", "restartPolicy": "Always",
                          "ports": [{"containerPort": 8090, "protocol": "TCP", "name": "test"}]}]},
     [dup_name("spec.initContainers[1].ports[0]", "spec.initContainers[0].ports[0]")]),
    ("create duplicate container ports name in containers and sidecar containers", None,
     {"initContainers": [{"name": "foo1", "restartPolicy": "Always", "ports": [{**UDP80, "name": "test"}]}],
      "containers": [{"name": "foo", "ports": [{"containerPort": 8090, "protocol": "TCP", "name": "test"}]}]},
     [dup_name("spec.containers[0].ports[0]", "spec.initContainers[0].ports[0]")]),
]


def _spec(spec: dict[str, Any]) -> PodSpec:
    return PodSpec.model_validate(spec)


@pytest.mark.parametrize(("name", "annotations", "spec", "expected"), CASES, ids=[c[0] for c in CASES])
def test_warnings_table(name: str, annotations: dict[str, str] | None, spec: dict[str, Any],
                        expected: list[str]) -> None:
    """``TestWarnings``: the same texts for a Pod and (with upstream's nil path) a template."""
    assert sorted(pod_spec_warnings(_spec(spec), annotations)) == sorted(expected)
    assert sorted(pod_spec_warnings(_spec(spec), annotations, "")) == sorted(expected)


def test_template_warnings_are_prefixed_with_the_template_path() -> None:
    spec = _spec({"terminationGracePeriodSeconds": -1})
    assert pod_spec_warnings(spec, None, "spec.template") == [
        "spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and "
        "will be treated as 1"]


APPARMOR = {"container.apparmor.security.beta.kubernetes.io/foo": "unconfined"}
TEMPLATE_ONLY = [
    ("annotations", {"containers": [{"name": "foo"}]},
     ['template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/foo]: deprecated since '
      'v1.30; use the "appArmorProfile" field instead']),
    ("AppArmor pod field", {"securityContext": {"appArmorProfile": {"type": "Unconfined"}},
                            "containers": [{"name": "foo"}]}, []),
    ("AppArmor container field",
     {"containers": [{"name": "foo", "securityContext": {"appArmorProfile": {"type": "Unconfined"}}}]}, []),
]


@pytest.mark.parametrize(("name", "spec", "expected"), TEMPLATE_ONLY, ids=[c[0] for c in TEMPLATE_ONLY])
def test_template_only_warnings(name: str, spec: dict[str, Any], expected: list[str]) -> None:
    """``TestTemplateOnlyWarnings``: the AppArmor annotation is warned about in templates only (a Pod's
    is upstream's applyAppArmorVersionSkew, which kbatch does not model)."""
    assert sorted(pod_spec_warnings(_spec(spec), APPARMOR, "template")) == sorted(expected)
    assert pod_spec_warnings(_spec(spec), APPARMOR) == []
