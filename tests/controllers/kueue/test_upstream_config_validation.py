"""Upstream's Configuration validation table, through the file ``--kueue-config`` reads.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/config/validation_test.go`` ``TestValidate`` (case names
below are upstream's), with ``apis/config/v1beta2/defaults.go``. Upstream's table validates
Configurations built in Go, without defaults; Kueue's manager reads a file, defaults it, then
validates (``pkg/config/config.go`` ``Load``). Each case here is that file (YAML, v1beta2) given to
kbatch's check of ``--kueue-config`` (``check_config_text``), so cases whose refused value the
defaults replace are checked with their defaulted outcome: "empty" and "empty
integrations.frameworks" (frameworks default to ``batch/job``), "nil managedJobsNamespaceSelector
with pod framework" (the selector defaults), "invalid an empty waitForPodsReady.timeout" (a zero
timeout defaults to 30m). Errors compare as upstream's: type and field path.

``TestValidateCustomLabels`` is in ``test_kueue_metrics_custom_labels.py``, the
``multiKueue.clusterProfile`` rows in ``test_upstream_config_clusterprofile.py``. Not translated: the
TLS, ``resources.deviceClassMappings`` (DRA), ``multiKueue.externalFrameworks`` cases, and
``TestLoadAndValidateFeatureGates`` (TAS/DRA/elastic-job gate dependencies): kbatch accepts those
sections (or gates) without acting on them and does not validate them (docs/kueue.md).
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kbatch.api.kueue_config import load
from kbatch.controllers.kueue.config import check_config_text

from .upstream_denials import refusal

INVALID, DUP, UNSUPPORTED, REQUIRED = (
    "FieldValueInvalid",
    "FieldValueDuplicate",
    "FieldValueNotSupported",
    "FieldValueRequired",
)
JOB = {"integrations": {"frameworks": ["batch/job"]}}
MK_INCREMENTAL = "kueue.x-k8s.io/multikueue-dispatcher-incremental"
MK_ALL = "kueue.x-k8s.io/multikueue-dispatcher-all-at-once"


def check(cfg: dict[str, Any]) -> list[tuple[str, str]]:
    doc = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", **cfg}
    return refusal(lambda: check_config_text(yaml.safe_dump(doc)))


def wfpr(**fields: Any) -> dict[str, Any]:
    return {**JOB, "waitForPodsReady": {"timeout": "5m", **fields}}


def requeue(**fields: Any) -> dict[str, Any]:
    return wfpr(requeuingStrategy=fields)


CASES = [
    ("empty (integrations defaulted)", {}, []),
    ("empty integrations.frameworks (defaulted)", {"integrations": {}}, []),
    (
        "unregistered integrations.frameworks",
        {"integrations": {"frameworks": ["unregistered/jobframework"]}},
        [(UNSUPPORTED, "integrations.frameworks[0]")],
    ),
    (
        "duplicate integrations.frameworks",
        {"integrations": {"frameworks": ["batch/job", "batch/job"]}},
        [(DUP, "integrations.frameworks[1]")],
    ),
    (
        "duplicate frameworks between integrations.frameworks and integrations.externalFrameworks",
        {"integrations": {"frameworks": ["batch/job"], "externalFrameworks": ["Job.v1.batch"]}},
        [(DUP, "integrations.externalFrameworks[0]")],
    ),
    (
        "invalid format integrations.externalFrameworks",
        {"integrations": {"frameworks": ["batch/job"], "externalFrameworks": ["invalid"]}},
        [(INVALID, "integrations.externalFrameworks[0]")],
    ),
    (
        "duplicate integrations.externalFrameworks",
        {
            "integrations": {
                "frameworks": ["batch/job"],
                "externalFrameworks": ["Foo.v1.example.com", "Foo.v1.example.com"],
            }
        },
        [(DUP, "integrations.externalFrameworks[1]")],
    ),
    (
        "nil managedJobsNamespaceSelector with pod framework (defaulted)",
        {"integrations": {"frameworks": ["pod"]}},
        [],
    ),
    (
        "valid managedJobsNamespaceSelector",
        {
            **JOB,
            "managedJobsNamespaceSelector": {
                "matchExpressions": [
                    {
                        "key": "kubernetes.io/metadata.name",
                        "operator": "NotIn",
                        "values": ["kube-system", "kueue-system"],
                    }
                ]
            },
        },
        [],
    ),
    (
        "prohibited namespace in MatchLabels managedJobsNamespaceSelector",
        {
            **JOB,
            "managedJobsNamespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
        },
        [(INVALID, "managedJobsNamespaceSelector")],
    ),
    (
        "prohibited namespace in MatchExpressions with operator In managedJobsNamespaceSelector",
        {
            **JOB,
            "managedJobsNamespaceSelector": {
                "matchExpressions": [
                    {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["kube-system"]}
                ]
            },
        },
        [(INVALID, "managedJobsNamespaceSelector")],
    ),
    (
        "no supported waitForPodsReady.requeuingStrategy.timestamp",
        requeue(timestamp="NoSupported"),
        [(UNSUPPORTED, "waitForPodsReady.requeuingStrategy.timestamp")],
    ),
    (
        "invalid an empty waitForPodsReady.timeout (defaulted to 30m)",
        {**JOB, "waitForPodsReady": {"timeout": "0s"}},
        [],
    ),
    (
        "negative waitForPodsReady.timeout",
        {**JOB, "waitForPodsReady": {"timeout": "-1ns"}},
        [(INVALID, "waitForPodsReady.timeout")],
    ),
    (
        "negative waitForPodsReady.recoveryTimeout",
        wfpr(recoveryTimeout="-1ns"),
        [(INVALID, "waitForPodsReady.recoveryTimeout")],
    ),
    (
        "valid waitForPodsReady",
        {
            **JOB,
            "waitForPodsReady": {
                "timeout": "50ns",
                "recoveryTimeout": "3ns",
                "blockAdmission": False,
                "requeuingStrategy": {
                    "timestamp": "Creation",
                    "backoffLimitCount": 10,
                    "backoffBaseSeconds": 30,
                    "backoffMaxSeconds": 1800,
                },
            },
        },
        [],
    ),
    (
        "negative waitForPodsReady.requeuingStrategy.backoffLimitCount",
        requeue(backoffLimitCount=-1),
        [(INVALID, "waitForPodsReady.requeuingStrategy.backoffLimitCount")],
    ),
    (
        "negative waitForPodsReady.requeuingStrategy.backoffBaseSeconds",
        requeue(backoffBaseSeconds=-1),
        [(INVALID, "waitForPodsReady.requeuingStrategy.backoffBaseSeconds")],
    ),
    (
        "negative waitForPodsReady.requeuingStrategy.backoffMaxSeconds",
        requeue(backoffMaxSeconds=-1),
        [(INVALID, "waitForPodsReady.requeuingStrategy.backoffMaxSeconds")],
    ),
    (
        "negative multiKueue.gcInterval",
        {**JOB, "multiKueue": {"gcInterval": "-1s"}},
        [(INVALID, "multiKueue.gcInterval")],
    ),
    (
        "negative multiKueue.workerLostTimeout",
        {**JOB, "multiKueue": {"workerLostTimeout": "-1s"}},
        [(INVALID, "multiKueue.workerLostTimeout")],
    ),
    (
        "invalid .multiKueue.origin label value",
        {**JOB, "multiKueue": {"origin": "=]"}},
        [(INVALID, "multiKueue.origin")],
    ),
    (
        "valid .multiKueue configuration",
        {**JOB, "multiKueue": {"gcInterval": "1s", "origin": "valid", "workerLostTimeout": "2s"}},
        [],
    ),
    (
        "valid multiKueue.incrementalDispatcherConfig with incremental dispatcher",
        {
            **JOB,
            "multiKueue": {"dispatcherName": MK_INCREMENTAL, "incrementalDispatcherConfig": {"stepSize": 2}},
        },
        [],
    ),
    (
        "multiKueue.incrementalDispatcherConfig without incremental dispatcher",
        {**JOB, "multiKueue": {"dispatcherName": MK_ALL, "incrementalDispatcherConfig": {"stepSize": 2}}},
        [(INVALID, "multiKueue.incrementalDispatcherConfig")],
    ),
    (
        "multiKueue.incrementalDispatcherConfig.stepSize below minimum",
        {
            **JOB,
            "multiKueue": {"dispatcherName": MK_INCREMENTAL, "incrementalDispatcherConfig": {"stepSize": 0}},
        },
        [(INVALID, "multiKueue.incrementalDispatcherConfig.stepSize")],
    ),
    (
        "invalid an empty preemption strategy",
        {**JOB, "fairSharing": {}},
        [(REQUIRED, "fairSharing.preemptionStrategies")],
    ),
    (
        "unsupported preemption strategy",
        {**JOB, "fairSharing": {"preemptionStrategies": ["UNKNOWN", "LessThanInitialShare"]}},
        [(UNSUPPORTED, "fairSharing.preemptionStrategies")],
    ),
    (
        "valid preemption strategy",
        {
            **JOB,
            "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]},
        },
        [],
    ),
    (
        "valid admissionFairSharing configuration",
        {
            **JOB,
            "admissionFairSharing": {
                "usageHalfLifeTime": "1s",
                "usageSamplingInterval": "1s",
                "resourceWeights": {"cpu": 1},
            },
        },
        [],
    ),
    (
        "invalid admissionFairSharing.usageHalfLifeTime configuration",
        {**JOB, "admissionFairSharing": {"usageHalfLifeTime": "-1s"}},
        [(INVALID, "admissionFairSharing.usageHalfLifeTime")],
    ),
    (
        "invalid admissionFairSharing.usageSamplingInterval configuration",
        {**JOB, "admissionFairSharing": {"usageSamplingInterval": "-1s"}},
        [(INVALID, "admissionFairSharing.usageSamplingInterval")],
    ),
    (
        "invalid admissionFairSharing.resourceWeights configuration",
        {**JOB, "admissionFairSharing": {"resourceWeights": {"cpu": -1}}},
        [(INVALID, "admissionFairSharing.resourceWeights[cpu]")],
    ),
    (
        "invalid .internalCertManagement.webhookSecretName",
        {**JOB, "internalCertManagement": {"enable": True, "webhookSecretName": ":)"}},
        [(INVALID, "internalCertManagement.webhookSecretName")],
    ),
    (
        "invalid .internalCertManagement.webhookServiceName",
        {**JOB, "internalCertManagement": {"enable": True, "webhookServiceName": "0-invalid"}},
        [(INVALID, "internalCertManagement.webhookServiceName")],
    ),
    (
        "disabled .internalCertManagement with invalid .internalCertManagement.webhookServiceName",
        {**JOB, "internalCertManagement": {"enable": False, "webhookServiceName": "0-invalid"}},
        [],
    ),
    (
        "valid .internalCertManagement",
        {
            **JOB,
            "internalCertManagement": {
                "enable": True,
                "webhookServiceName": "webhook-svc",
                "webhookSecretName": "webhook-sec",
            },
        },
        [],
    ),
    (
        "invalid .resources.transformations.strategy",
        {**JOB, "resources": {"transformations": [{"input": "cpu", "strategy": "invalid"}]}},
        [(UNSUPPORTED, "resources.transformations[0].strategy")],
    ),
    (
        "invalid .resources.transformations.inputs",
        {
            **JOB,
            "resources": {
                "transformations": [
                    {"input": "cpu", "strategy": "Retain"},
                    {"input": "memory", "strategy": "Retain"},
                    {"input": "cpu", "strategy": "Retain"},
                ]
            },
        },
        [(DUP, "resources.transformations[2].input")],
    ),
    (
        "valid .resources.transformations",
        {
            **JOB,
            "resources": {
                "transformations": [
                    {"input": "cpu", "strategy": "Retain"},
                    {"input": "memory", "strategy": "Replace"},
                ]
            },
        },
        [],
    ),
    (
        "negative afterFinished in .objectRetentionPolicies.workloads",
        {**JOB, "objectRetentionPolicies": {"workloads": {"afterFinished": "-1s"}}},
        [(INVALID, "objectRetentionPolicies.workloads.afterFinished")],
    ),
    (
        "zero afterFinished in .objectRetentionPolicies.workloads",
        {**JOB, "objectRetentionPolicies": {"workloads": {"afterFinished": "0s"}}},
        [],
    ),
    (
        "positive afterFinished in .objectRetentionPolicies.workloads",
        {**JOB, "objectRetentionPolicies": {"workloads": {"afterFinished": "1s"}}},
        [],
    ),
    (
        "negative afterDeactivatedByKueue in .objectRetentionPolicies.workloads",
        {**JOB, "objectRetentionPolicies": {"workloads": {"afterDeactivatedByKueue": "-1s"}}},
        [(INVALID, "objectRetentionPolicies.workloads.afterDeactivatedByKueue")],
    ),
    (
        "zero afterDeactivatedByKueue in .objectRetentionPolicies.workloads",
        {**JOB, "objectRetentionPolicies": {"workloads": {"afterDeactivatedByKueue": "0s"}}},
        [],
    ),
    (
        "positive afterDeactivatedByKueue in .objectRetentionPolicies.workloads",
        {**JOB, "objectRetentionPolicies": {"workloads": {"afterDeactivatedByKueue": "1s"}}},
        [],
    ),
    (
        "invalid .visibilityServer.bindAddress",
        {**JOB, "visibilityServer": {"bindAddress": "invalid"}},
        [(INVALID, "visibilityServer.bindAddress")],
    ),
    ("valid .visibilityServer.bindAddress", {**JOB, "visibilityServer": {"bindAddress": "127.0.0.1"}}, []),
    (
        "invalid .visibilityServer.bindPort",
        {**JOB, "visibilityServer": {"bindPort": 0}},
        [(INVALID, "visibilityServer.bindPort")],
    ),
    ("valid .visibilityServer.bindPort", {**JOB, "visibilityServer": {"bindPort": 8080}}, []),
    (
        "quotaCheckStrategy with value ignoreUndeclared not allowed with excludeResourcePrefixes",
        {
            **JOB,
            "resources": {
                "quotaCheckStrategy": "IgnoreUndeclared",
                "excludeResourcePrefixes": ["example.com/"],
            },
        },
        [(INVALID, "resources.quotaCheckStrategy")],
    ),
    (
        "quotaCheckStrategy with value ignoreundeclared allowed without excludeResourcePrefixes",
        {**JOB, "resources": {"quotaCheckStrategy": "IgnoreUndeclared"}},
        [],
    ),
    (
        "quotaCheckStrategy with value blockundeclared allowed with excludeResourcePrefixes",
        {
            **JOB,
            "resources": {
                "quotaCheckStrategy": "BlockUndeclared",
                "excludeResourcePrefixes": ["example.com/"],
            },
        },
        [],
    ),
    (
        "quotaCheckStrategy with unsupported value",
        {**JOB, "resources": {"quotaCheckStrategy": "Unsupported"}},
        [(UNSUPPORTED, "resources.quotaCheckStrategy")],
    ),
]


@pytest.mark.parametrize(("cfg", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_validate(cfg: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert check(cfg) == sorted(want)


def test_zero_timeout_gets_the_default() -> None:
    """``SetDefaults_Configuration``: ``waitForPodsReady.timeout`` of 0 becomes 30m (and the
    recovery timeout follows it)."""
    cfg = load(
        {
            "apiVersion": "config.kueue.x-k8s.io/v1beta2",
            "kind": "Configuration",
            "waitForPodsReady": {"timeout": "0s"},
        }
    )
    assert cfg.wait_for_pods_ready is not None
    assert (cfg.wait_for_pods_ready.timeout, cfg.wait_for_pods_ready.recovery_timeout) == (1800.0, 1800.0)


def test_messages_as_upstream() -> None:
    """The details upstream's validation writes for the rules added here."""
    doc = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "integrations": {"frameworks": ["batch/job"], "externalFrameworks": ["invalid"]},
        "visibilityServer": {"bindAddress": "invalid", "bindPort": 0},
        "multiKueue": {"dispatcherName": MK_ALL, "incrementalDispatcherConfig": {"stepSize": 2}},
    }
    with pytest.raises(Exception) as err:
        check_config_text(yaml.safe_dump(doc))
    text = str(err.value)
    for want in (
        "integrations.externalFrameworks[0]: Invalid value: \"invalid\": "
        "must be format, 'Kind.version.group.com'",
        'visibilityServer.bindAddress: Invalid value: "invalid": must be a valid IP address',
        "visibilityServer.bindPort: Invalid value: 0: must be a valid port number (1-65535)",
        "multiKueue.incrementalDispatcherConfig: Invalid value: ",
        "incrementalDispatcherConfig is only valid when dispatcherName is set to the incremental dispatcher",
    ):
        assert want in text, text
