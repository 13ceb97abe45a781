"""The Configuration's ``metrics`` section is decoded strictly, as the rest of it.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/config/config.go`` ``fromFile`` decodes with
``serializer.NewCodecFactory(scheme, serializer.EnableStrict)``, so a field ``ControllerMetrics``,
``ControllerMetricsCustomLabel`` or ``LocalQueueMetrics`` (``apis/config/v1beta2/configuration_types.go``)
does not declare is ``strict decoding error: unknown field "<path>"`` (``pkg/config/config_test.go``
"invalid config" for the top level); v1beta1's ``ControllerMetricsCustomLabel``
(``apis/config/v1beta1``) has no ``sourceKind`` nor ``trackedValues``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.errors import Invalid
from kbatch.api.kueue_config import load

V1BETA2 = "config.kueue.x-k8s.io/v1beta2"
KNOWN = {"name", "sourceLabelKey", "sourceAnnotationKey", "sourceKind", "trackedValues"}


def _load(metrics: dict[str, Any], version: str = V1BETA2) -> str:
    try:
        load({"apiVersion": version, "kind": "Configuration", "metrics": metrics})
    except Invalid as err:
        return str(err)
    return ""


@pytest.mark.parametrize(("metrics", "path"), [
    ({"customLabels": [{"name": "team", "sourceLabelKy": "org/team"}]},
     "metrics.customLabels[0].sourceLabelKy"),
    ({"customLabels": [{"name": "a"}, {"name": "b", "trackedValue": ["x"]}]},
     "metrics.customLabels[1].trackedValue"),
    ({"enableClusterQueueResource": True}, "metrics.enableClusterQueueResource"),
    ({"customLabels": [{"name": "team", "source_label_key": "org/team"}]},  # the Go/Python spelling
     "metrics.customLabels[0].source_label_key"),
    ({"enable_cluster_queue_resources": True}, "metrics.enable_cluster_queue_resources"),
    ({"localQueueMetrics": {"enabled": True}}, "metrics.localQueueMetrics.enabled"),
    ({"localQueueMetrics": {"localQueueSelector": {"matchLabel": {"a": "b"}}}},
     "metrics.localQueueMetrics.localQueueSelector.matchLabel"),
])
def test_an_unknown_field_in_metrics_is_a_strict_decoding_error(metrics: dict[str, Any], path: str) -> None:
    assert _load(metrics) == f'invalid Kueue configuration: strict decoding error: unknown field "{path}"'


def test_every_unknown_field_is_named_sorted() -> None:
    message = _load({"customLabels": [{"name": "a", "zz": 1, "aa": 2}], "bogus": 1})
    assert message.endswith('unknown field "metrics.bogus", unknown field "metrics.customLabels[0].aa", '
                            'unknown field "metrics.customLabels[0].zz"'), message


def test_a_value_of_the_wrong_type_is_refused_before_validation() -> None:
    """encoding/json's ``UnmarshalTypeError``: the struct, the path without list indexes, the Go type."""
    assert _load({"customLabels": [{"name": "a", "trackedValues": "x"}]}) == (
        "invalid Kueue configuration: json: cannot unmarshal string into Go struct field "
        "ControllerMetricsCustomLabel.metrics.customLabels.trackedValues of type []string")
    assert _load({"customLabels": "team"}) == (
        "invalid Kueue configuration: json: cannot unmarshal string into Go struct field "
        "ControllerMetrics.metrics.customLabels of type []v1beta2.ControllerMetricsCustomLabel")


def test_known_fields_decode_and_reach_the_settled_configuration() -> None:
    selector = {"matchLabels": {"team": "a"}}
    prio = {"name": "prio", "sourceKind": "Workload", "sourceAnnotationKey": "x/prio",
            "trackedValues": ["high"]}
    metrics = {"bindAddress": ":8443", "enableClusterQueueResources": True,
               "localQueueMetrics": {"enable": True, "localQueueSelector": selector},
               "customLabels": [{"name": "team"}, prio]}
    cfg = load({"apiVersion": V1BETA2, "kind": "Configuration", "metrics": metrics})
    assert cfg.metrics == metrics


def test_v1beta1_entries_have_no_source_kind_nor_tracked_values() -> None:
    v1beta1 = "config.kueue.x-k8s.io/v1beta1"
    entry = {"name": "team", "sourceKind": "Workload", "trackedValues": ["a"]}
    assert _load({"customLabels": [entry]}, v1beta1).endswith(
        'unknown field "metrics.customLabels[0].sourceKind", '
        'unknown field "metrics.customLabels[0].trackedValues"')
    assert _load({"customLabels": [{"name": "team", "sourceLabelKey": "org/team"}]}, v1beta1) == ""


_KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_", min_size=1, max_size=12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["team", "env", "cost"]), min_size=1, max_size=3, unique=True),
       st.data())
def test_a_misspelt_key_in_any_entry_is_named_by_its_path(names: list[str], data: st.DataObject) -> None:
    """Property: a key no ``ControllerMetricsCustomLabel`` field has, put into any entry of an otherwise
    valid list, is refused as exactly that entry's unknown field; without it the list loads."""
    entries: list[dict[str, Any]] = [{"name": n} for n in names]
    assert _load({"customLabels": entries}) == ""
    index = data.draw(st.integers(0, len(entries) - 1))
    key = data.draw(_KEYS.filter(lambda k: k not in KNOWN))
    entries[index][key] = "x"
    assert _load({"customLabels": entries}) == ('invalid Kueue configuration: strict decoding error: '
                                                f'unknown field "metrics.customLabels[{index}].{key}"')


@pytest.mark.parametrize(("config", "path"), [
    ({"manage_jobs_without_queue_name": True}, "manage_jobs_without_queue_name"),
    ({"waitForPodsReady": {"block_admission": True}}, "waitForPodsReady.block_admission"),
    ({"fairSharing": {"preemption_strategies": ["LessThanOrEqualToFinalShare"]}},
     "fairSharing.preemption_strategies"),
])
def test_a_python_spelling_is_an_unknown_field_anywhere(config: dict[str, Any], path: str) -> None:
    """kbatch's models take snake_case names in Python code; the file takes only the json names."""
    with pytest.raises(Invalid) as err:
        load({"apiVersion": V1BETA2, "kind": "Configuration", **config})
    assert str(err.value) == f'invalid Kueue configuration: strict decoding error: unknown field "{path}"'
