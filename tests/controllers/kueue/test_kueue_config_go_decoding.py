"""Kueue's Configuration decoder on durations and ``null``, as Go's.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/config/config.go`` ``fromFile`` decodes with
apimachinery's strict serializer (``pkg/runtime/serializer/json/json.go``: ``kjson.UnmarshalStrict``,
a decoding error returned as it is), which is sigs.k8s.io/json's fork of ``encoding/json``
(``internal/golang/encoding/json/decode.go``).

- ``metav1.Duration.UnmarshalJSON`` (apimachinery ``pkg/apis/meta/v1/duration.go``) runs
  ``time.ParseDuration``; its error ends decoding at once (``literalStore`` returns it), unwrapped,
  ahead of any type error the decoder saved and of the unknown fields: the file is refused with
  ``time: unknown unit " minutes" in duration "5 minutes"`` alone, the first such value in the file.
  Before that, its ``json.Unmarshal`` into a ``string`` refuses any other JSON value the same way
  (``json: cannot unmarshal number into Go value of type string``).
- ``null``: a pointer, slice or map is set to nil, any other value left as it was (on a new object:
  the field absent); a ``null`` list item or map value is the element's zero value. A non-pointer
  ``metav1.Duration`` (v1beta2 ``waitForPodsReady.timeout``, ``admissionFairSharing``'s two,
  component-base ``LeaderElectionConfiguration``'s three) hands the ``null`` to ``UnmarshalJSON``,
  which parses ``""``: ``time: invalid duration ""``; v1beta1's ``waitForPodsReady.timeout`` is a
  pointer.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_config import load
from tests.controllers.kueue.test_kueue_config_go_types import FULL_V1BETA1, FULL_V1BETA2
from tests.controllers.kueue.test_kueue_config_strict_sections import V1BETA1, V1BETA2, _message, _with

PREFIX = "invalid Kueue configuration: "

# every metav1.Duration field of the two versions: (version, section, path inside it)
DURATIONS = [
    (V1BETA2, "waitForPodsReady", ("timeout",)),
    (V1BETA1, "waitForPodsReady", ("timeout",)),
    (V1BETA2, "waitForPodsReady", ("recoveryTimeout",)),
    (V1BETA2, "admissionFairSharing", ("usageHalfLifeTime",)),
    (V1BETA1, "admissionFairSharing", ("usageSamplingInterval",)),
    (V1BETA2, "objectRetentionPolicies", ("workloads", "afterFinished")),
    (V1BETA1, "objectRetentionPolicies", ("workloads", "afterDeactivatedByKueue")),
    (V1BETA2, "multiKueue", ("gcInterval",)),
    (V1BETA1, "multiKueue", ("workerLostTimeout",)),
    (V1BETA2, "leaderElection", ("leaseDuration",)),
    (V1BETA2, "leaderElection", ("renewDeadline",)),
    (V1BETA1, "leaderElection", ("retryPeriod",)),
]
# time.ParseDuration's messages (Go src/time/format.go)
UNPARSABLE = [
    ("5 minutes", 'time: unknown unit " minutes" in duration "5 minutes"'),
    ("abc", 'time: invalid duration "abc"'),
    ("5", 'time: missing unit in duration "5"'),
    ("1h30", 'time: missing unit in duration "1h30"'),
    ("", 'time: invalid duration ""'),
]


def _nested(path: tuple[str, ...], value: Any) -> Any:
    for part in reversed(path):
        value = {part: value}
    return value


@pytest.mark.parametrize(("version", "section", "path"), DURATIONS)
@pytest.mark.parametrize(("text", "error"), UNPARSABLE)
def test_an_unparsable_duration_is_the_decoders_error_before_any_other(
        version: str, section: str, path: tuple[str, ...], text: str, error: str) -> None:
    """ParseDuration's message alone, ahead of a type error (``namespace: 5``, saved by the decoder)
    and an unknown field; no field error of validation."""
    config = _with(version, namespace=5, bogus=1, **{section: _nested(path, text)})
    assert _message(config) == PREFIX + error


# JSON values that are no string, as encoding/json's UnmarshalTypeError names them (Go
# src/encoding/json/decode.go ``literalStore``, ``array``, ``object``)
NOT_TEXT = [(15, "number"), (2.5, "number"), (True, "bool"), (["5s"], "array"), ({"s": 5}, "object")]


@pytest.mark.parametrize(("version", "section", "path"), DURATIONS)
@pytest.mark.parametrize(("value", "kind"), NOT_TEXT)
def test_a_duration_that_is_no_string_is_the_decoders_error_before_any_other(
        version: str, section: str, path: tuple[str, ...], value: Any, kind: str) -> None:
    """``metav1.Duration.UnmarshalJSON`` first decodes its bytes into a Go ``string``; that error
    is returned as ParseDuration's is: alone, ahead of a saved type error and an unknown field
    (kbatch listed it as a field's type error: ``leaderElection.leaseDuration: Input should be a
    valid string``)."""
    config = _with(version, namespace=5, bogus=1, **{section: _nested(path, value)})
    assert _message(config) == PREFIX + f"json: cannot unmarshal {kind} into Go value of type string"


def test_the_first_duration_that_fails_in_the_file_is_reported_whichever_the_failure() -> None:
    number_first = _with(leaderElection={"leaseDuration": 15}, waitForPodsReady={"timeout": "2y"})
    assert _message(number_first) == PREFIX + "json: cannot unmarshal number into Go value of type string"
    text_first = _with(waitForPodsReady={"timeout": "2y"}, leaderElection={"leaseDuration": 15})
    assert _message(text_first) == PREFIX + 'time: unknown unit "y" in duration "2y"'


def test_the_first_unparsable_duration_in_the_file_is_the_one_reported() -> None:
    first = _with(admissionFairSharing={"usageHalfLifeTime": "1x"}, waitForPodsReady={"timeout": "2y"})
    assert _message(first) == PREFIX + 'time: unknown unit "x" in duration "1x"'
    second = _with(waitForPodsReady={"timeout": "2y"}, admissionFairSharing={"usageHalfLifeTime": "1x"})
    assert _message(second) == PREFIX + 'time: unknown unit "y" in duration "2y"'


def test_a_duration_under_a_field_of_the_wrong_type_or_unknown_is_not_read() -> None:
    """The decoder skips a value of the wrong type or an unknown field: nothing inside is parsed."""
    assert _message(_with(objectRetentionPolicies={"workloads": [{"afterFinished": "x"}]})) == (
        PREFIX + "json: cannot unmarshal array into Go struct field ObjectRetentionPolicies."
        "objectRetentionPolicies.workloads of type v1beta2.WorkloadRetentionPolicy")
    assert _message(_with(V1BETA1, multiKueue={"clusterProfile": {"x": "1 s"}})) == (
        PREFIX + 'strict decoding error: unknown field "multiKueue.clusterProfile"')


@pytest.mark.parametrize(("version", "section", "path", "error"), [
    (V1BETA2, "waitForPodsReady", ("timeout",), True),  # metav1.Duration
    (V1BETA1, "waitForPodsReady", ("timeout",), False),  # *metav1.Duration
    (V1BETA2, "waitForPodsReady", ("recoveryTimeout",), False),
    (V1BETA2, "admissionFairSharing", ("usageHalfLifeTime",), True),
    (V1BETA1, "admissionFairSharing", ("usageSamplingInterval",), True),
    (V1BETA2, "objectRetentionPolicies", ("workloads", "afterFinished"), False),
    (V1BETA2, "multiKueue", ("gcInterval",), False),
    (V1BETA2, "leaderElection", ("leaseDuration",), True),
    (V1BETA1, "leaderElection", ("retryPeriod",), True),
])
def test_a_null_duration_is_unset_if_a_pointer_else_the_empty_text(
        version: str, section: str, path: tuple[str, ...], error: bool) -> None:
    sections = {section: _nested(path, None)}
    if version == V1BETA1 and section == "waitForPodsReady":
        sections = {section: {"enable": True, path[0]: None}}
    assert _message(_with(version, **sections)) == (PREFIX + 'time: invalid duration ""' if error else "")


def test_v1beta1_null_timeout_is_defaulted_as_absent() -> None:
    cfg = load(_with(V1BETA1, waitForPodsReady={"enable": True, "timeout": None}))
    assert cfg.wait_for_pods_ready is not None and cfg.wait_for_pods_ready.timeout == 300.0


# --- null items and values: the element's zero ---------------------------------------------------


def test_null_map_values_are_zero() -> None:
    cfg = load(_with(featureGates={"PartialAdmission": None},
                     admissionFairSharing={"resourceWeights": {"cpu": None}},
                     resources={"transformations": [{"input": "a", "outputs": {"b": None}}]}))
    assert cfg.feature_gates == {"PartialAdmission": False}
    assert cfg.admission_fair_sharing is not None
    assert cfg.admission_fair_sharing.resource_weights == {"cpu": 0.0}
    outputs = cfg.transformations[0].outputs or {}
    assert str(outputs["b"]) == "0"  # resource.Quantity's UnmarshalJSON: null is zero


def test_null_struct_items_are_zero_structs_for_validation_to_judge() -> None:
    """A zero ``LabelSelectorRequirement`` has an empty key and operator: validation refuses both
    (and the namespace check is skipped, the selector not parsing); a zero transformation has an
    empty input, which validation takes, and the default strategy."""
    message = _message(_with(managedJobsNamespaceSelector={"matchExpressions": [None]}))
    assert 'matchExpressions[0].operator: Invalid value: "": not a valid selector operator' in message
    assert 'matchExpressions[0].key: Invalid value: ""' in message
    cfg = load(_with(resources={"transformations": [None]}))
    assert [(t.input, t.strategy) for t in cfg.transformations] == [("", "Retain")]


def test_missing_fields_are_zero_values_not_decoding_errors() -> None:
    """encoding/json leaves a field the document omits at its zero value: a selector requirement
    without ``key`` or ``operator`` decodes, validation judges it, and a wrong type after it in the
    document is still the decoding error reported (pydantic's "Field required" never is)."""
    message = _message(_with(managedJobsNamespaceSelector={"matchExpressions": [{"operator": "Exists"}]}))
    assert 'matchExpressions[0].key: Invalid value: ""' in message
    assert "required" not in message.lower()
    message = _message(_with(managedJobsNamespaceSelector={"matchExpressions": [{"key": "a"}]}, namespace=5))
    assert message.endswith("json: cannot unmarshal number into Go struct field Configuration.namespace "
                            "of type string")


def test_a_selector_that_does_not_parse_is_a_field_error_not_a_crash() -> None:
    """``validateManagedJobsNamespaceSelector``: ``LabelSelectorAsSelector`` failing ends the check."""
    bad = {"matchExpressions": [{"key": "a", "operator": "Bogus"}]}
    message = _message(_with(managedJobsNamespaceSelector=bad))
    assert message.endswith('managedJobsNamespaceSelector.matchExpressions[0].operator: Invalid value: '
                            '"Bogus": not a valid selector operator'), message


# --- property: null anywhere in the modelled sections ----------------------------------------------

_MAPS = {"featureGates", "resourceWeights", "matchLabels", "outputs", "groupKindConcurrency"}
_QUANTITIES = {"outputs"}  # resource.Quantity's zero is "0"
_VALUE_DURATIONS = {
    V1BETA2: {("waitForPodsReady", "timeout"), ("admissionFairSharing", "usageHalfLifeTime"),
              ("admissionFairSharing", "usageSamplingInterval"), ("leaderElection", "leaseDuration"),
              ("leaderElection", "renewDeadline"), ("leaderElection", "retryPeriod")},
}
_VALUE_DURATIONS[V1BETA1] = _VALUE_DURATIONS[V1BETA2] - {("waitForPodsReady", "timeout")}
_ZERO = {bool: False, int: 0, float: 0.0, str: ""}


def _spots(node: Any, path: tuple[Any, ...], in_map: str = "") -> list[tuple[tuple[Any, ...], str]]:
    """Where a null may go: struct fields (``field``), scalar list items and map values (their
    zero's kind); a struct list item is left to the examples above."""
    out: list[tuple[tuple[Any, ...], str]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            here = (*path, key)
            out.append((here, "item" if in_map else "field"))
            out += _spots(value, here, key if key in _MAPS else "")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            if not isinstance(item, (dict, list)):
                out.append(((*path, i), "item"))
            out += _spots(item, (*path, i))
    return [(p, kind) for p, kind in out if p[:1] not in (("apiVersion",), ("kind",))]


def _parent(config: Any, path: tuple[Any, ...]) -> Any:
    for part in path[:-1]:
        config = config[part]
    return config


def _outcome(config: dict[str, Any]) -> Any:
    message = _message(config)
    return message or load(config)


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_null_is_the_field_absent_or_the_items_zero(data: st.DataObject) -> None:
    """Property: in a valid full Configuration (either version), ``null`` at a few random places
    decodes as Go decodes it: a struct field as absent (a non-pointer ``metav1.Duration``:
    ``time: invalid duration ""``), a list item or map value as its zero."""
    full = data.draw(st.sampled_from([FULL_V1BETA2, FULL_V1BETA1]))
    spots = data.draw(st.lists(st.sampled_from(_spots(full, ())), min_size=1, max_size=3, unique=True))
    nulled, expected = copy.deepcopy(full), copy.deepcopy(full)
    for path, kind in sorted(spots, key=lambda s: -len(s[0])):  # innermost first: a null parent wins
        _parent(nulled, path)[path[-1]] = None
        parent = _parent(expected, path)
        if kind == "field":
            del parent[path[-1]]
        else:
            parent[path[-1]] = "0" if path[-2] in _QUANTITIES else _ZERO[type(parent[path[-1]])]
    paths = [path for path, _ in spots]
    duration_error = any(path in _VALUE_DURATIONS[full["apiVersion"]]
                         and not any(path[:n] in paths for n in range(1, len(path))) for path in paths)
    if duration_error:
        assert _message(nulled) == PREFIX + 'time: invalid duration ""'
    else:
        assert _outcome(nulled) == _outcome(expected), spots


# --- a value of the wrong JSON type: encoding/json's UnmarshalTypeError ------------------------------
# sigs.k8s.io/json ``internal/golang/encoding/json/decode.go``: ``literalStore``, ``array`` and
# ``object`` save the first UnmarshalTypeError in document order (``saveError``) and decoding goes on;
# ``addErrorContext`` names the innermost struct being decoded and the JSON field path from the top
# (no list index, no map key); ``Error()``: "json: cannot unmarshal <value> into Go struct field
# <Struct>.<path> of type <type>", ``<value>`` "number <text>" for an integer or float target, the
# type as reflect prints it (package-qualified named types: v1beta2.X, v1.ResourceName, time.Duration).
# Kueue's ``config.Load`` (``pkg/config/config.go``) returns the decoder's error unwrapped.
_DEVICES = {"name": "gpu", "deviceClassNames": ["gpu.example.com"]}
_PROVIDER = {"name": "p", "execConfig": {}}
_CEL_NUMBER = {"deviceSelector": {"cel": 5}}


def _at(path: str, value: Any) -> dict[str, Any]:
    """The sections with ``value`` at a dotted ``path`` (``[0]``: a one-item list there)."""
    parts = path.split(".")
    node: Any = value
    for part in reversed(parts[1:]):
        node = {part[:-3]: [node]} if part.endswith("[0]") else {part: node}
    return {parts[0]: node}


def _te(value: str, field: str, go_type: str) -> str:
    return f"{value} into Go struct field {field} of type {go_type}"


_SOURCE = "resources.deviceClassMappings.sources"
TYPE_ERRORS = [
    ({"namespace": 5}, _te("number", "Configuration.namespace", "string")),
    ({"namespace": ["a"]}, _te("array", "Configuration.namespace", "string")),
    ({"namespace": {"a": 1}}, _te("object", "Configuration.namespace", "string")),
    ({"manageJobsWithoutQueueName": "yes"},
     _te("string", "Configuration.manageJobsWithoutQueueName", "bool")),
    ({"manageJobsWithoutQueueName": 1}, _te("number", "Configuration.manageJobsWithoutQueueName", "bool")),
    (_at("clientConnection.burst", "x"), _te("string", "ClientConnection.clientConnection.burst", "int32")),
    (_at("clientConnection.burst", 2.5),
     _te("number 2.5", "ClientConnection.clientConnection.burst", "int32")),
    (_at("clientConnection.burst", 2147483648),
     _te("number 2147483648", "ClientConnection.clientConnection.burst", "int32")),
    (_at("clientConnection.burst", 1e10),
     _te("number 10000000000", "ClientConnection.clientConnection.burst", "int32")),
    (_at("clientConnection.qps", True), _te("bool", "ClientConnection.clientConnection.qps", "float32")),
    (_at("clientConnection.qps", 1e39),
     _te("number 1e+39", "ClientConnection.clientConnection.qps", "float32")),
    ({"waitForPodsReady": 5}, _te("number", "Configuration.waitForPodsReady", "v1beta2.WaitForPodsReady")),
    (_at("waitForPodsReady.requeuingStrategy.timestamp", 5),
     _te("number", "RequeuingStrategy.waitForPodsReady.requeuingStrategy.timestamp",
         "v1beta2.RequeuingTimestamp")),
    (_at("integrations.frameworks", "batch/job"),
     _te("string", "Integrations.integrations.frameworks", "[]string")),
    (_at("integrations.frameworks", ["batch/job", 5]),
     _te("number", "Integrations.integrations.frameworks", "string")),
    (_at("featureGates.A", "yes"), _te("string", "Configuration.featureGates", "bool")),
    ({"featureGates": ["A"]}, _te("array", "Configuration.featureGates", "map[string]bool")),
    (_at("fairSharing.preemptionStrategies", [5]),
     _te("number", "FairSharing.fairSharing.preemptionStrategies", "v1beta2.PreemptionStrategy")),
    (_at("managedJobsNamespaceSelector.matchLabels.a", 5),
     _te("number", "LabelSelector.managedJobsNamespaceSelector.matchLabels", "string")),
    (_at("managedJobsNamespaceSelector.matchExpressions", [{"key": "a", "operator": 5}]),
     _te("number", "LabelSelectorRequirement.managedJobsNamespaceSelector.matchExpressions.operator",
         "v1.LabelSelectorOperator")),
    ({"managedJobsNamespaceSelector": "a"},
     _te("string", "Configuration.managedJobsNamespaceSelector", "v1.LabelSelector")),
    (_at("webhook.port", "x"), _te("string", "ControllerWebhook.webhook.port", "int")),
    (_at("leaderElection.leaderElect", "yes"),
     _te("string", "LeaderElectionConfiguration.leaderElection.leaderElect", "bool")),
    ({"leaderElection": 1},
     _te("number", "Configuration.leaderElection", "v1alpha1.LeaderElectionConfiguration")),
    (_at("controller.groupKindConcurrency.Job", "x"),
     _te("string", "ControllerConfigurationSpec.controller.groupKindConcurrency", "int")),
    (_at("controller.cacheSyncTimeout", "5s"),
     _te("string", "ControllerConfigurationSpec.controller.cacheSyncTimeout", "time.Duration")),
    (_at("tls.curvePreferences", ["x"]), _te("string", "TLSOptions.tls.curvePreferences", "int32")),
    (_at("resources.transformations[0].input", 5),
     _te("number", "ResourceTransformation.resources.transformations.input", "v1.ResourceName")),
    (_at("resources.transformations", [{"input": "a", "strategy": 5}]),
     _te("number", "ResourceTransformation.resources.transformations.strategy",
         "v1beta2.ResourceTransformationStrategy")),
    (_at("resources.transformations", [{"input": "a", "outputs": ["1"]}]),
     _te("array", "ResourceTransformation.resources.transformations.outputs", "v1.ResourceList")),
    (_at("resources.transformations", {"input": "a"}),
     _te("object", "Resources.resources.transformations", "[]v1beta2.ResourceTransformation")),
    (_at("resources.quotaCheckStrategy", 5),
     _te("number", "Resources.resources.quotaCheckStrategy", "v1beta2.QuotaCheckStrategy")),
    (_at("admissionFairSharing.resourceWeights.cpu", "x"),
     _te("string", "AdmissionFairSharing.admissionFairSharing.resourceWeights", "float64")),
    (_at("admissionFairSharing.resourceWeights", ["cpu"]),
     _te("array", "AdmissionFairSharing.admissionFairSharing.resourceWeights",
         "map[v1.ResourceName]float64")),
    (_at("resources.deviceClassMappings", [{**_DEVICES, "deviceClassNames": [5]}]),
     _te("number", "DeviceClassMapping.resources.deviceClassMappings.deviceClassNames", "v1.ResourceName")),
    (_at("resources.deviceClassMappings", [{**_DEVICES, "sources": [{"capacity": {"name": 5}}]}]),
     _te("number", f"DeviceClassCapacitySource.{_SOURCE}.capacity.name", "v1.QualifiedName")),
    (_at("resources.deviceClassMappings", [{**_DEVICES, "sources": [{"counter": {"name": 5}}]}]),
     _te("number", f"DeviceClassCounterSource.{_SOURCE}.counter.name", "string")),
    (_at("resources.deviceClassMappings", [{**_DEVICES, "sources": [{"counter": _CEL_NUMBER}]}]),
     _te("number", f"DeviceSelector.{_SOURCE}.counter.deviceSelector.cel", "v1.CELDeviceSelector")),
    (_at("metrics.customLabels", [{"name": "a", "sourceKind": 5}]),
     _te("number", "ControllerMetricsCustomLabel.metrics.customLabels.sourceKind", "v1beta2.SourceKind")),
    (_at("metrics.localQueueMetrics.enable", "yes"),
     _te("string", "LocalQueueMetrics.metrics.localQueueMetrics.enable", "bool")),
    (_at("multiKueue.clusterProfile.credentialsProviders", 5),  # a type alias: reflect names the target
     _te("number", "ClusterProfile.multiKueue.clusterProfile.credentialsProviders",
         "[]v1beta2.ClusterProfileAccessProvider")),
    (_at("multiKueue.clusterProfile.accessProviders", [{**_PROVIDER, "execConfig": {"interactiveMode": 5}}]),
     _te("number", "ExecConfig.multiKueue.clusterProfile.accessProviders.execConfig.interactiveMode",
         "api.ExecInteractiveMode")),
    (_at("multiKueue.clusterProfile.accessProviders", [{**_PROVIDER, "execConfig": {"env": [{"name": 5}]}}]),
     _te("number", "ExecEnvVar.multiKueue.clusterProfile.accessProviders.execConfig.env.name", "string")),
    (_at("multiKueue.incrementalDispatcherConfig.stepSize", "2"),
     _te("string", "IncrementalDispatcherConfig.multiKueue.incrementalDispatcherConfig.stepSize", "int32")),
    (_at("visibilityServer.bindPort", "x"),
     _te("string", "VisibilityServerConfiguration.visibilityServer.bindPort", "int32")),
    (_at("internalCertManagement.enable", "x"),
     _te("string", "InternalCertManagement.internalCertManagement.enable", "bool")),
    (_at("health.healthProbeBindAddress", 5),
     _te("number", "ControllerHealth.health.healthProbeBindAddress", "string")),
]
TYPE_ERRORS_V1BETA1 = [
    ({"waitForPodsReady": 5}, _te("number", "Configuration.waitForPodsReady", "v1beta1.WaitForPodsReady")),
    (_at("waitForPodsReady.enable", "yes"),
     _te("string", "WaitForPodsReady.waitForPodsReady.enable", "bool")),
    (_at("fairSharing.preemptionStrategies", [5]),
     _te("number", "FairSharing.fairSharing.preemptionStrategies", "v1beta1.PreemptionStrategy")),
    (_at("queueVisibility.clusterQueues.maxCount", "x"),
     _te("string", "ClusterQueueVisibility.queueVisibility.clusterQueues.maxCount", "int32")),
    (_at("queueVisibility.updateIntervalSeconds", 2.5),
     _te("number 2.5", "QueueVisibility.queueVisibility.updateIntervalSeconds", "int32")),
    (_at("integrations.podOptions.podSelector", 1),
     _te("number", "PodIntegrationOptions.integrations.podOptions.podSelector", "v1.LabelSelector")),
]


@pytest.mark.parametrize(("version", "sections", "error"), [
    *((V1BETA2, sections, error) for sections, error in TYPE_ERRORS),
    *((V1BETA1, sections, error) for sections, error in TYPE_ERRORS_V1BETA1),
])
def test_a_value_of_the_wrong_json_type_is_gos_unmarshal_type_error(
        version: str, sections: dict[str, Any], error: str) -> None:
    """The type error alone: ahead of an unknown field (the strict errors are dropped when decoding
    failed, apimachinery ``serializer/json/json.go`` ``unmarshal``)."""
    assert _message(_with(version, bogus=1, **sections)) == PREFIX + "json: cannot unmarshal " + error


def test_the_first_type_error_in_the_file_is_the_one_reported() -> None:
    first = _with(clientConnection={"burst": "x"}, namespace=5)
    assert _message(first) == PREFIX + "json: cannot unmarshal " + _te(
        "string", "ClientConnection.clientConnection.burst", "int32")
    second = _with(namespace=5, clientConnection={"burst": "x"})
    assert _message(second) == PREFIX + "json: cannot unmarshal " + _te(
        "number", "Configuration.namespace", "string")
