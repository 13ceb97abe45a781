"""Upstream's configuration loading table, through the file ``--kueue-config`` reads.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/config/config_test.go`` ``TestLoad`` (the cases about
settings kbatch acts on; case names are upstream's) and ``apis/config/v1beta2/defaults.go``. Each
file is checked as ``--kueue-config`` checks it (``check_config_text``) and the settled values are
compared with upstream's ``wantConfiguration``. The manager-process cases ("ControllerManager
ConfigurationSpec overwrite", cert, leader election, client connection, "fullController", TLS,
"multiKueue config") are accepted without being acted on and are not compared.
"""

from __future__ import annotations

import pytest

from kbatch.api.errors import Invalid
from kbatch.controllers.kueue.config import check_config_text

HEAD = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"


def test_default_and_empty_config() -> None:
    """ "default config" / "empty config": the API defaults (``SetDefaults_Configuration``)."""
    cfg = check_config_text(HEAD)
    assert cfg.namespace == "kueue-system" and cfg.frameworks == ("batch/job",)
    assert not cfg.manage_jobs_without_queue_name
    wait = cfg.wait_for_pods_ready
    assert wait is not None
    assert (wait.timeout, wait.recovery_timeout, wait.block_admission) == (1800.0, 1800.0, False)
    assert (wait.requeuing_timestamp, wait.backoff_base_seconds, wait.backoff_max_seconds) == (
        "Eviction",
        60,
        3600,
    )
    selector = cfg.managed_jobs_namespace_selector
    assert selector is not None and selector.to_dict() == {
        "matchExpressions": [
            {
                "key": "kubernetes.io/metadata.name",
                "operator": "NotIn",
                "values": ["kube-system", "kueue-system"],
            }
        ]
    }


def test_namespace_overwrite_config() -> None:
    """ "namespace overwrite config": the default selector keeps the configured namespace out."""
    cfg = check_config_text(HEAD + "namespace: kueue-tenant-a\nwebhook:\n  port: 9443\n")
    assert cfg.namespace == "kueue-tenant-a"
    assert cfg.managed_jobs_namespace_selector is not None
    assert cfg.managed_jobs_namespace_selector.to_dict()["matchExpressions"][0]["values"] == [
        "kube-system",
        "kueue-tenant-a",
    ]


def test_enable_wait_for_pods_ready_config() -> None:
    cfg = check_config_text(
        HEAD
        + """waitForPodsReady:
  timeout: 50s
  blockAdmission: true
  recoveryTimeout: 3m
  requeuingStrategy:
    timestamp: Creation
    backoffLimitCount: 10
    backoffBaseSeconds: 30
    backoffMaxSeconds: 1800
"""
    )
    wait = cfg.wait_for_pods_ready
    assert wait is not None
    assert (wait.timeout, wait.block_admission, wait.recovery_timeout) == (50.0, True, 180.0)
    assert (
        wait.requeuing_timestamp,
        wait.backoff_limit_count,
        wait.backoff_base_seconds,
        wait.backoff_max_seconds,
    ) == ("Creation", 10, 30, 1800)


def test_integrations_config() -> None:
    cfg = check_config_text(
        HEAD + "integrations:\n  frameworks:\n  - batch/job\n  externalFrameworks:\n  - Foo.v1.example.com\n"
    )
    assert cfg.frameworks == ("batch/job",)


def test_resource_transform_config() -> None:
    cfg = check_config_text(
        HEAD
        + """resources:
  transformations:
  - input: nvidia.com/mig-1g.5gb
    strategy: Replace
    outputs:
      example.com/accelerator-memory: 5Gi
      example.com/credits: 10
  - input: nvidia.com/mig-2g.10gb
    strategy: Replace
    outputs:
      example.com/accelerator-memory: 10Gi
      example.com/credits: 15
  - input: cpu
    strategy: Retain
    outputs:
      example.com/credits: 1
"""
    )
    assert [(t.input, t.strategy) for t in cfg.transformations] == [
        ("nvidia.com/mig-1g.5gb", "Replace"),
        ("nvidia.com/mig-2g.10gb", "Replace"),
        ("cpu", "Retain"),
    ]


def test_object_retention_policies_config() -> None:
    cfg = check_config_text(
        HEAD + "objectRetentionPolicies:\n  workloads:\n    afterFinished: 30m\n"
        "    afterDeactivatedByKueue: 30m\n"
    )
    assert (cfg.retention_after_finished, cfg.retention_after_deactivated) == (1800.0, 1800.0)


def test_invalid_config() -> None:
    """ "invalid config": Kueue's strict codec names every unknown field (sorted), as
    ``runtime.NewStrictDecodingError`` prints them."""
    text = (
        HEAD
        + "namespaces: kueue-system\ninvalidField: invalidValue\nhealth:\n  healthProbeBindAddress: :8081\n"
    )
    with pytest.raises(Invalid) as err:
        check_config_text(text)
    assert str(err.value).endswith(
        'strict decoding error: unknown field "invalidField", unknown field "namespaces"'
    ), str(err.value)


def test_a_repeated_key_is_a_strict_decoding_error() -> None:
    """Kueue's strict codec runs sigs.k8s.io/yaml's ``YAMLToJSONStrict``: a key given twice is
    refused (a manifest keeps the last value instead)."""
    text = HEAD + "namespace: a\nnamespace: b\n"
    line = text.count("\n")
    with pytest.raises(Invalid) as err:
        check_config_text(text)
    assert str(err.value).endswith(
        "strict decoding error: error converting YAML to JSON: yaml: unmarshal errors:\n"
        f'  line {line}: key "namespace" already set in map'
    ), str(err.value)


def test_unknown_nested_fields_are_named_by_path() -> None:
    """The strict decoder names a nested unknown field by its path (``sigs.k8s.io/json``); v1beta1's
    ``waitForPodsReady.enable`` is unknown to v1beta2 (``apis/config/v1beta2`` has no such field)."""
    text = (
        HEAD
        + "waitForPodsReady:\n  timeout: 5m\n  enable: true\n  bogus: 1\nresources:\n  transformations:\n"
        "  - input: cpu\n    extra: x\n"
    )
    with pytest.raises(Invalid) as err:
        check_config_text(text)
    assert str(err.value).endswith(
        'strict decoding error: unknown field "resources.transformations[0].extra", '
        'unknown field "waitForPodsReady.bogus", unknown field "waitForPodsReady.enable"'
    ), str(err.value)


@pytest.mark.parametrize(
    ("section", "field"),
    [
        (
            "fairSharing:\n  enable: true\n  preemptionStrategies: [LessThanOrEqualToFinalShare]\n",
            "fairSharing.enable",
        ),
        ("integrations:\n  frameworks: [pod]\n  podOptions: {}\n", "integrations.podOptions"),
        ("queueVisibility:\n  updateIntervalSeconds: 5\n", "queueVisibility"),
    ],
)
def test_v1beta1_fields_are_unknown_to_v1beta2(section: str, field: str) -> None:
    """``apis/config/v1beta2`` dropped these v1beta1 fields; a v1beta1 file still takes them."""
    with pytest.raises(Invalid) as err:
        check_config_text(HEAD + section)
    assert str(err.value).endswith(f'strict decoding error: unknown field "{field}"'), str(err.value)
    check_config_text(HEAD.replace("v1beta2", "v1beta1") + section)


# apis/config/v1beta2/defaults_test.go TestSetDefaults_Configuration, the settings kbatch acts on
def _wait(section: str) -> tuple[float, float | None, bool, str, int, int]:
    wait = check_config_text(HEAD + section).wait_for_pods_ready
    assert wait is not None
    return (
        wait.timeout,
        wait.recovery_timeout,
        wait.block_admission,
        wait.requeuing_timestamp,
        wait.backoff_base_seconds,
        wait.backoff_max_seconds,
    )


@pytest.mark.parametrize(
    ("section", "want"),
    [
        ("waitForPodsReady: {}\n", (1800.0, 1800.0, False, "Eviction", 60, 3600)),
        ("waitForPodsReady:\n  timeout: 1m\n", (60.0, 60.0, False, "Eviction", 60, 3600)),
        (
            "waitForPodsReady:\n  timeout: 2m\n  recoveryTimeout: 1m\n  requeuingStrategy:\n"
            "    timestamp: Creation\n    backoffBaseSeconds: 63\n    backoffMaxSeconds: 1800\n",
            (120.0, 60.0, False, "Creation", 63, 1800),
        ),
        (
            "waitForPodsReady:\n  timeout: 1m\n  recoveryTimeout: 0s\n",
            (60.0, None, False, "Eviction", 60, 3600),
        ),
    ],
    ids=[
        "defaulting waitForPodsReady values",
        "defaulting waitForPodsReady recoveryTimeout to timeout",
        "respecting provided waitForPodsReady values",
        "disabling waitForPodsReady recoveryTimeout with zero value",
    ],
)
def test_wait_for_pods_ready_defaults(
    section: str, want: tuple[float, float | None, bool, str, int, int]
) -> None:
    assert _wait(section) == want


def test_transformation_strategy_defaults_to_retain() -> None:
    """ "resources.transformations strategy": absent or empty becomes ``Retain``."""
    cfg = check_config_text(
        HEAD
        + """resources:
  transformations:
  - input: cpu
  - input: memory
    strategy: Replace
  - input: ephemeral-storage
    strategy: ""
"""
    )
    assert [(t.input, t.strategy) for t in cfg.transformations] == [
        ("cpu", "Retain"),
        ("memory", "Replace"),
        ("ephemeral-storage", "Retain"),
    ]
