"""Every field of Kueue's Configuration decodes as its Go type, before validation.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/config/config.go`` ``fromFile`` decodes with
``serializer.EnableStrict`` into the structs of ``apis/config/v1beta2/configuration_types.go`` (or
``apis/config/v1beta1/configuration_types.go``): a JSON value of another type than the Go field's
(``"true"`` for a ``bool``, ``"5"`` or ``3.5`` for an ``int32``, ``2147483648`` for an ``int32``, a
string for a ``[]string``, a number for a string, a string for a ``float64``) is an
``UnmarshalTypeError`` and the file is refused, whatever else is wrong in it. A ``metav1.Duration``
decodes itself: its error is the decoder's own, alone (``test_kueue_config_go_decoding``).
A field only the other version declares is an unknown field whose value the decoder skips, so a
wrong type inside v1beta2's ``customLabels[].sourceKind`` / ``trackedValues`` in a v1beta1 file is
never seen. Every shipped example Configuration loads.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.quantity import ERR_FORMAT
from kbatch.controllers.kueue.config import check_config_text
from tests.controllers.kueue.test_kueue_config_strict_sections import FULL, V1BETA1, V1BETA2, _message, _with

STRICT = "invalid Kueue configuration: strict decoding error: "
ROOT = Path(__file__).resolve().parents[3]

CEL_TRUE = {"cel": {"expression": "true"}}
# the sections kbatch acts on, every field set, next to the manager-process ones of FULL; the Go
# float fields hold Python floats (``qps``, ``resourceWeights``) so a value's type names its kind
_ACTED: dict[str, Any] = {
    "manageJobsWithoutQueueName": True,
    "managedJobsNamespaceSelector": {
        "matchLabels": {"team": "a"},
        "matchExpressions": [{"key": "tier", "operator": "In", "values": ["batch", "ml"]}]},
    "waitForPodsReady": {"timeout": "5m", "blockAdmission": True, "recoveryTimeout": "3m",
                         "requeuingStrategy": {"timestamp": "Creation", "backoffLimitCount": 5,
                                               "backoffBaseSeconds": 60, "backoffMaxSeconds": 3600}},
    "integrations": {"frameworks": ["batch/job", "pod"], "externalFrameworks": ["Foo.v1.example.com"],
                     "labelKeysToCopy": ["example.com/team"]},
    "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]},
    "admissionFairSharing": {"usageHalfLifeTime": "168h", "usageSamplingInterval": "5m",
                             "resourceWeights": {"cpu": 1.5, "nvidia.com/gpu": 2.0}},
    "resources": {
        "quotaCheckStrategy": "BlockUndeclared", "excludeResourcePrefixes": ["example.com/"],
        "transformations": [{"input": "nvidia.com/mig-1g.5gb", "strategy": "Replace", "multiplyBy": "x",
                             "outputs": {"example.com/accelerator-memory": "5Gi"}}],
        "deviceClassMappings": [{"name": "example.com/gpu", "deviceClassNames": ["gpu.example.com"],
                                 "sources": [{"counter": {"name": "memory", "driver": "gpu.example.com",
                                                          "deviceSelector": CEL_TRUE}}]}],
    },
    "featureGates": {"PartialAdmission": True},
    "objectRetentionPolicies": {"workloads": {"afterFinished": "1h", "afterDeactivatedByKueue": "2h"}},
    "metrics": {"bindAddress": ":8443", "enableClusterQueueResources": True,
                "customLabels": [{"name": "team", "sourceLabelKey": "example.com/team",
                                  "sourceKind": "LocalQueue", "trackedValues": ["a", "b"]}],
                "localQueueMetrics": {"enable": True, "localQueueSelector": {"matchLabels": {"x": "y"}}}},
}
FULL_V1BETA2: dict[str, Any] = {**FULL, **_ACTED, "clientConnection": {"qps": 50.5, "burst": 100}}
# v1beta1: without v1beta2's fields, with its own (``enable`` switches, podOptions, queueVisibility)
FULL_V1BETA1: dict[str, Any] = {
    **{k: v for k, v in FULL_V1BETA2.items() if k != "visibilityServer"}, "apiVersion": V1BETA1,
    "multiKueue": {k: v for k, v in FULL["multiKueue"].items()
                   if k not in ("clusterProfile", "incrementalDispatcherConfig")},
    "waitForPodsReady": {**_ACTED["waitForPodsReady"], "enable": True},
    "fairSharing": {**_ACTED["fairSharing"], "enable": True},
    "integrations": {**_ACTED["integrations"],
                     "podOptions": {"namespaceSelector": {"matchLabels": {"a": "b"}}}},
    "queueVisibility": {"clusterQueues": {"maxCount": 10}, "updateIntervalSeconds": 5},
    "resources": {k: v for k, v in _ACTED["resources"].items() if k not in ("quotaCheckStrategy",
                                                                            "deviceClassMappings")},
    "metrics": {**_ACTED["metrics"],
                "customLabels": [{"name": "team", "sourceLabelKey": "example.com/team"}]},
}


def _go(value: str, field: str, go_type: str) -> str:
    """encoding/json's ``UnmarshalTypeError`` text (``test_kueue_config_go_decoding``)."""
    return f"json: cannot unmarshal {value} into Go struct field {field} of type {go_type}"


_WAIT, _STRATEGY = "WaitForPodsReady.waitForPodsReady", "RequeuingStrategy.waitForPodsReady.requeuingStrategy"
_SOURCE = "resources.deviceClassMappings.sources.counter.deviceSelector.cel"


@pytest.mark.parametrize(("version", "sections", "error"), [
    # Configuration: bool, map[string]bool, metav1.LabelSelector
    (V1BETA2, {"manageJobsWithoutQueueName": 1},
     _go("number", "Configuration.manageJobsWithoutQueueName", "bool")),
    (V1BETA2, {"manageJobsWithoutQueueName": "true"},
     _go("string", "Configuration.manageJobsWithoutQueueName", "bool")),
    (V1BETA2, {"featureGates": {"PartialAdmission": "true"}},
     _go("string", "Configuration.featureGates", "bool")),
    (V1BETA2, {"featureGates": ["PartialAdmission"]},
     _go("array", "Configuration.featureGates", "map[string]bool")),
    (V1BETA2, {"managedJobsNamespaceSelector": {"matchLabels": {"a": 1}}},
     _go("number", "LabelSelector.managedJobsNamespaceSelector.matchLabels", "string")),
    (V1BETA2, {"namespace": 5}, _go("number", "Configuration.namespace", "string")),
    # WaitForPodsReady: *bool, *int32, a struct (its metav1.Duration: test_kueue_config_go_decoding)
    (V1BETA2, {"waitForPodsReady": {"blockAdmission": "true"}},
     _go("string", f"{_WAIT}.blockAdmission", "bool")),
    (V1BETA1, {"waitForPodsReady": {"enable": "true"}}, _go("string", f"{_WAIT}.enable", "bool")),
    (V1BETA2, {"waitForPodsReady": {"requeuingStrategy": {"backoffLimitCount": "5"}}},
     _go("string", f"{_STRATEGY}.backoffLimitCount", "int32")),
    (V1BETA2, {"waitForPodsReady": {"requeuingStrategy": {"backoffBaseSeconds": 3.5}}},
     _go("number 3.5", f"{_STRATEGY}.backoffBaseSeconds", "int32")),
    (V1BETA1, {"waitForPodsReady": {"requeuingStrategy": {"backoffMaxSeconds": 2**31}}},
     _go("number 2147483648", f"{_STRATEGY}.backoffMaxSeconds", "int32")),
    (V1BETA2, {"waitForPodsReady": {"requeuingStrategy": {"backoffMaxSeconds": True}}},
     _go("bool", f"{_STRATEGY}.backoffMaxSeconds", "int32")),
    (V1BETA2, {"waitForPodsReady": "yes"},
     _go("string", "Configuration.waitForPodsReady", "v1beta2.WaitForPodsReady")),
    # Integrations: []string
    (V1BETA2, {"integrations": {"frameworks": "batch/job"}},
     _go("string", "Integrations.integrations.frameworks", "[]string")),
    (V1BETA2, {"integrations": {"labelKeysToCopy": [1]}},
     _go("number", "Integrations.integrations.labelKeysToCopy", "string")),
    # FairSharing: []PreemptionStrategy, v1beta1's bool
    (V1BETA2, {"fairSharing": {"preemptionStrategies": "x"}},
     _go("string", "FairSharing.fairSharing.preemptionStrategies", "[]v1beta2.PreemptionStrategy")),
    (V1BETA1, {"fairSharing": {"enable": 1}}, _go("number", "FairSharing.fairSharing.enable", "bool")),
    # AdmissionFairSharing: map[ResourceName]float64
    (V1BETA2, {"admissionFairSharing": {"resourceWeights": {"cpu": "1"}}},
     _go("string", "AdmissionFairSharing.admissionFairSharing.resourceWeights", "float64")),
    (V1BETA2, {"admissionFairSharing": {"resourceWeights": {"cpu": False}}},
     _go("bool", "AdmissionFairSharing.admissionFairSharing.resourceWeights", "float64")),
    # Resources: strings, []string, transformations, deviceClassMappings
    (V1BETA2, {"resources": {"quotaCheckStrategy": 1}},
     _go("number", "Resources.resources.quotaCheckStrategy", "v1beta2.QuotaCheckStrategy")),
    (V1BETA2, {"resources": {"excludeResourcePrefixes": "example.com/"}},
     _go("string", "Resources.resources.excludeResourcePrefixes", "[]string")),
    (V1BETA2, {"resources": {"transformations": [{"input": 5}]}},
     _go("number", "ResourceTransformation.resources.transformations.input", "v1.ResourceName")),
    # resource.Quantity decodes itself: not a type error, its parser's (test_kueue_config_quantity)
    (V1BETA2, {"resources": {"transformations": [{"input": "a", "outputs": {"b": True}}]}}, ERR_FORMAT),
    (V1BETA2, {"resources": {"deviceClassMappings": [{"name": "a", "deviceClassNames": "gpu"}]}},
     _go("string", "DeviceClassMapping.resources.deviceClassMappings.deviceClassNames", "[]v1.ResourceName")),
    (V1BETA2, {"resources": {"deviceClassMappings": [{"name": "a", "deviceClassNames": ["g"], "sources": [
        {"counter": {"name": "m", "driver": "d", "deviceSelector": {"cel": {"expression": True}}}}]}]}},
     _go("bool", f"CELDeviceSelector.{_SOURCE}.expression", "string")),
    # ControllerMetrics: bool, []ControllerMetricsCustomLabel, LocalQueueMetrics
    (V1BETA2, {"metrics": {"enableClusterQueueResources": "true"}},
     _go("string", "ControllerMetrics.metrics.enableClusterQueueResources", "bool")),
    (V1BETA1, {"metrics": {"localQueueMetrics": {"enable": 1}}},
     _go("number", "LocalQueueMetrics.metrics.localQueueMetrics.enable", "bool")),
    (V1BETA2, {"metrics": {"customLabels": [{"name": 5}]}},
     _go("number", "ControllerMetricsCustomLabel.metrics.customLabels.name", "string")),
    (V1BETA2, {"metrics": {"customLabels": [{"name": "a", "trackedValues": "x"}]}},
     _go("string", "ControllerMetricsCustomLabel.metrics.customLabels.trackedValues", "[]string")),
])
def test_a_value_of_another_go_type_is_refused_first(version: str, sections: dict[str, Any],
                                                     error: str) -> None:
    """The type error is the message, even with an unknown field beside it (``bogus``)."""
    assert _message(_with(version, **sections, bogus=1)) == f"invalid Kueue configuration: {error}"


@pytest.mark.parametrize("sections", [
    {"manageJobsWithoutQueueName": False, "featureGates": {"PartialAdmission": False}},
    {"waitForPodsReady": {"blockAdmission": False, "requeuingStrategy": {"backoffLimitCount": 0,
                                                                          "backoffMaxSeconds": 2**31 - 1}}},
    {"admissionFairSharing": {"usageHalfLifeTime": "1h", "resourceWeights": {"cpu": 2, "memory": 0.5}}},
])
def test_values_of_the_go_type_load(sections: dict[str, Any]) -> None:
    """A JSON integer is a ``float64``; an int32's bounds are accepted."""
    assert _message(_with(**sections)) == ""


def test_a_transformation_without_input_decodes() -> None:
    """``input`` is a plain ``corev1.ResourceName``: absent, Go's decoder leaves it ``""``, and
    ``validateResourceTransformations`` checks only the strategy and duplicate inputs."""
    assert _message(_with(resources={"transformations": [{"strategy": "Retain"}]})) == ""
    assert _message(_with(resources={"transformations": [{}, {}]})) == (
        'Configuration.config.kueue.x-k8s.io "" is invalid: '
        'resources.transformations[1].input: Duplicate value: ""')


def test_v1beta2_custom_label_fields_in_a_v1beta1_file_are_not_looked_into() -> None:
    """v1beta1's ``ControllerMetricsCustomLabel`` has no ``sourceKind`` nor ``trackedValues``: unknown,
    their values skipped by the decoder, so a wrong type inside them is not what is reported."""
    labels = [{"name": "a", "sourceKind": 5, "trackedValues": "x"}, {"name": "b", "trackedValues": [1]}]
    assert _message(_with(V1BETA1, metrics={"customLabels": labels})) == (
        f'{STRICT}unknown field "metrics.customLabels[0].sourceKind", '
        'unknown field "metrics.customLabels[0].trackedValues", '
        'unknown field "metrics.customLabels[1].trackedValues"')


def test_quota_check_strategy_is_unknown_to_v1beta1() -> None:
    """v1beta1's ``Resources`` has no ``quotaCheckStrategy`` (apis/config/v1beta1/configuration_types.go)."""
    resources = {"quotaCheckStrategy": "BlockUndeclared", "excludeResourcePrefixes": ["example.com/"]}
    assert _message(_with(V1BETA1, resources=resources)) == (
        f'{STRICT}unknown field "resources.quotaCheckStrategy"')
    assert _message(_with(V1BETA2, resources=resources)) == ""


# --- property: a value of another JSON type at any scalar field --------------------------------

_SKIP = {"apiVersion", "kind"}  # TypeMeta: read before decoding (no kind registered ...)
_MAPS = {"featureGates", "resourceWeights", "matchLabels", "groupKindConcurrency"}  # keys: not in Go's path
_QUANTITY = "outputs"  # resource.Quantity takes a string or a number


def _scalars(node: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    """Every scalar leaf: its decoder location (list items by index, map values by key) and value."""
    if isinstance(node, dict):
        return [leaf for key in sorted(node) if not (not path and key in _SKIP) and key != _QUANTITY
                for leaf in _scalars(node[key], (*path, key))]
    if isinstance(node, list):
        return [leaf for i, item in enumerate(node) for leaf in _scalars(item, (*path, str(i)))]
    return [(path, node)]


_OTHER = st.one_of(st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(),
                                                                         max_size=2))
_NOT_INT = st.one_of(st.text(max_size=8), st.booleans(), _OTHER,
                     st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
                     st.integers(min_value=2**63, max_value=2**80), st.integers(max_value=-(2**63) - 1))
_FLOATS = st.floats(allow_nan=False, allow_infinity=False)
_WRONG = {
    bool: st.one_of(st.text(max_size=8), st.integers(), _FLOATS, _OTHER),
    int: _NOT_INT,
    float: st.one_of(st.text(max_size=8), st.booleans(), _OTHER),
    str: st.one_of(st.integers(), _FLOATS, st.booleans(), _OTHER),
}


# the metav1.Duration fields of either version (test_kueue_config_go_decoding.DURATIONS)
_DURATIONS = frozenset({"timeout", "recoveryTimeout", "usageHalfLifeTime", "usageSamplingInterval",
                        "afterFinished", "afterDeactivatedByKueue", "gcInterval", "workerLostTimeout",
                        "leaseDuration", "renewDeadline", "retryPeriod"})


def _set(config: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node: Any = config
    for part in path[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node[int(path[-1])] = value
    else:
        node[path[-1]] = value


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_wrong_json_type_at_any_scalar_field_is_refused_naming_it(data: st.DataObject) -> None:
    """Property: in a valid full Configuration (either version), a value of another JSON type than a
    randomly chosen scalar field's Go type is refused as that field's type error, naming its path as
    Go's decoder does (no list index, no map key); unchanged, the file loads."""
    config = copy.deepcopy(data.draw(st.sampled_from([FULL_V1BETA2, FULL_V1BETA1])))
    assert _message(config) == ""
    path, value = data.draw(st.sampled_from(_scalars(config, ())))
    wrong = data.draw(_WRONG[type(value)])
    _set(config, path, wrong)
    if path[-1] in _DURATIONS:  # metav1.Duration.UnmarshalJSON's own error, alone
        message = _message(config)
        assert message.startswith("invalid Kueue configuration: json: cannot unmarshal "), (path, wrong)
        return
    go_path = ".".join(part for i, part in enumerate(path)
                       if not part.isdigit() and (i == 0 or path[i - 1] not in _MAPS))
    message = _message(config)
    assert message.startswith("invalid Kueue configuration: json: cannot unmarshal "), (path, wrong)
    assert f".{go_path} of type " in message, (path, wrong, message)


def test_the_full_configurations_cover_every_scalar_kind() -> None:
    kinds = {type(v) for full in (FULL_V1BETA2, FULL_V1BETA1) for _, v in _scalars(full, ())}
    assert kinds == {bool, int, float, str}


# --- the shipped examples ------------------------------------------------------------------------


def _example_configs() -> list[Path]:
    found = [p for p in sorted((ROOT / "examples").rglob("*.yaml")) if "config" in p.name]
    return [p for p in found if "config.kueue.x-k8s.io" in p.read_text()]


def test_there_are_shipped_example_configurations() -> None:
    assert _example_configs(), "no examples/**/*config*.yaml Kueue Configuration found"


@pytest.mark.parametrize("path", _example_configs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_example_configuration_loads(path: Path) -> None:
    """As ``--kueue-config`` reads a file."""
    assert check_config_text(path.read_text()).api_version.startswith("config.kueue.x-k8s.io/")
