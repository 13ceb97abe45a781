"""A bad ``KubeSchedulerConfiguration`` is refused in kube-scheduler's words, never a Python repr.

kube-scheduler decodes its ``--config`` file strictly (cmd/kube-scheduler/app/options/configfile.go
``loadConfig``: the scheme's UniversalDecoder over sigs.k8s.io/json), so a value of the wrong JSON
type is a decoding error ("json: cannot unmarshal string into Go struct field
KubeSchedulerConfiguration.percentageOfNodesToScore of type int32"), and validation
(pkg/scheduler/apis/config/validation) reports ``field.Error``s, which render a bad value as
k8s.io/apimachinery ``field.Error.ErrorBody`` does: a string as Go's ``%q``, a bool as ``true``.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.scheduler import SchedulerConfigError, build_profiles, parse_config, plugin_registry


def _config(*profiles: dict[str, Any], **extra: object) -> dict[str, Any]:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": list(profiles), **extra}


def _args(plugin: str, args: dict[str, Any]) -> dict[str, Any]:
    return _config({"schedulerName": "default-scheduler", "pluginConfig": [{"name": plugin, "args": args}]})


def _score_weight(weight: object) -> dict[str, Any]:
    return _config({"plugins": {"score": {"enabled": [{"name": "NodeResourcesFit", "weight": weight}]}}})


def _decoding(kind: str, field: str, go_type: str) -> str:
    return f"json: cannot unmarshal {kind} into Go struct field {field} of type {go_type}"


PERCENTAGE = "KubeSchedulerConfiguration.percentageOfNodesToScore"
CASES: list[tuple[dict[str, Any], str]] = [
    (_config(percentageOfNodesToScore="abc"), _decoding("string", PERCENTAGE, "int32")),
    (_config(percentageOfNodesToScore=True), _decoding("bool", PERCENTAGE, "int32")),
    (_config(percentageOfNodesToScore=1.5), _decoding("number 1.5", PERCENTAGE, "int32")),
    # a number names its literal only where the target is a number (encoding/json literalStore); the
    # literal is the text json.Marshal writes for the YAML value (sigs.k8s.io/yaml YAMLToJSON)
    (_config(percentageOfNodesToScore=2**31), _decoding("number 2147483648", PERCENTAGE, "int32")),
    (_config(percentageOfNodesToScore=1e21), _decoding("number 1e+21", PERCENTAGE, "int32")),
    (_config(percentageOfNodesToScore=1.2345678901234567e18),
     _decoding("number 1234567890123456800", PERCENTAGE, "int32")),
    ({**_config(), "profiles": 5},
     _decoding("number", "KubeSchedulerConfiguration.profiles", "[]v1.KubeSchedulerProfile")),
    (_config(5),  # type: ignore[arg-type]
     _decoding("number", "KubeSchedulerConfiguration.profiles", "v1.KubeSchedulerProfile")),
    (_config({"plugins": {"score": 2.5}}),
     _decoding("number", "Plugins.profiles.plugins.score", "v1.PluginSet")),
    (_config({"plugins": {"score": {"enabled": 1}}}),
     _decoding("number", "PluginSet.profiles.plugins.score.enabled", "[]v1.Plugin")),
    (_config(percentageOfNodesToScore=101),
     "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"),
    (_score_weight("x"), _decoding("string", "Plugin.profiles.plugins.score.enabled.weight", "int32")),
    ({**_config(), "profiles": {"a": 1}},
     _decoding("object", "KubeSchedulerConfiguration.profiles", "[]v1.KubeSchedulerProfile")),
    (_config("default-scheduler"),  # type: ignore[arg-type]
     _decoding("string", "KubeSchedulerConfiguration.profiles", "v1.KubeSchedulerProfile")),
    (_args("InterPodAffinity", {"hardPodAffinityWeight": "x"}),
     _decoding("string", "InterPodAffinityArgs.hardPodAffinityWeight", "int32")),
    (_args("InterPodAffinity", {"hardPodAffinityWeight": 101}),
     "hardPodAffinityWeight: Invalid value: 101: not in valid range [0-100]"),
    (_args("DefaultPreemption", {"minCandidateNodesPercentage": "ten"}),
     _decoding("string", "DefaultPreemptionArgs.minCandidateNodesPercentage", "int32")),
    (_args("NodeResourcesFit", {"scoringStrategy": {"resources": [{"name": "cpu", "weight": "heavy"}]}}),
     _decoding("string", "ResourceSpec.scoringStrategy.resources.weight", "int64")),
    (_args("PodTopologySpread", {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": "one", "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}),
     _decoding("string", "TopologySpreadConstraint.defaultConstraints.maxSkew", "int32")),
    (_args("Coscheduling", {"permitWaitingTimeSeconds": "sixty"}),
     _decoding("string", "CoschedulingArgs.permitWaitingTimeSeconds", "int64")),
]


@pytest.mark.parametrize(("doc", "message"), CASES, ids=[m[:60] for _, m in CASES])
def test_bad_values_are_reported_as_kube_scheduler_does(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(SchedulerConfigError) as err:
        build_profiles(parse_config(doc), plugin_registry())
    assert message in str(err.value)
    assert "'" not in str(err.value)  # no Python repr of a string


@pytest.mark.parametrize(("doc", "prefix"), [
    (_args("InterPodAffinity", {"hardPodAffinityWeight": "x"}),
     "decoding .profiles[0].pluginConfig[0]: decoding args for plugin InterPodAffinity: json: "),
    (_config({"schedulerName": "a"}, {"schedulerName": "b", "pluginConfig": [
        {"name": "NodeAffinity", "args": {}},
        {"name": "DefaultPreemption", "args": {"minCandidateNodesPercentage": "ten"}}]}),
     "decoding .profiles[1].pluginConfig[1]: decoding args for plugin DefaultPreemption: json: "),
])
def test_a_plugin_args_decoding_error_is_wrapped_with_where_it_is(doc: dict[str, Any], prefix: str) -> None:
    """Plugin args are decoded as nested objects (kube-scheduler ``config/v1/types.go``:
    ``KubeSchedulerConfiguration.DecodeNestedObjects`` wraps ``PluginConfig.decodeNestedObjects``'
    error, itself wrapping the decoder's); the KubeSchedulerConfiguration's own fields are not."""
    with pytest.raises(SchedulerConfigError) as err:
        build_profiles(parse_config(doc), plugin_registry())
    assert str(err.value).startswith(prefix)


def test_a_top_level_decoding_error_is_not_wrapped() -> None:
    with pytest.raises(SchedulerConfigError) as err:
        parse_config(_config(percentageOfNodesToScore="abc"))
    assert str(err.value).startswith("json: cannot unmarshal string")


@pytest.mark.parametrize(("doc", "prefix"), [
    # args of a plugin no extension point enables are decoded all the same
    (_config({"plugins": {"multiPoint": {"disabled": [{"name": "InterPodAffinity"}]}},
              "pluginConfig": [{"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": "x"}}]}),
     "decoding .profiles[0].pluginConfig[0]: decoding args for plugin InterPodAffinity: json: "),
    # a later profile's decoding error before an earlier profile's validation error
    (_config({"schedulerName": "a", "pluginConfig": [{"name": "NoSuchPlugin", "args": {}}]},
             {"schedulerName": "b", "pluginConfig": [
                 {"name": "DefaultPreemption", "args": {"minCandidateNodesPercentage": "ten"}}]}),
     "decoding .profiles[1].pluginConfig[0]: decoding args for plugin DefaultPreemption: json: "),
    # the first entry in file order, across profiles
    (_config({"schedulerName": "a", "pluginConfig": [
                 {"name": "NodeAffinity", "args": {}},
                 {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": "x"}}]},
             {"schedulerName": "b", "pluginConfig": [
                 {"name": "DefaultPreemption", "args": {"minCandidateNodesPercentage": "ten"}}]}),
     "decoding .profiles[0].pluginConfig[1]: decoding args for plugin InterPodAffinity: json: "),
])
def test_every_plugin_args_entry_is_decoded_at_load_first(doc: dict[str, Any], prefix: str) -> None:
    """``DecodeNestedObjects`` runs while the file is decoded: every profile's every ``pluginConfig``
    entry of a known plugin, in file order, the first type error returned at once; validation and
    building the profiles (``plugin "NoSuchPlugin" does not exist``) come after."""
    with pytest.raises(SchedulerConfigError) as err:
        build_profiles(parse_config(doc), plugin_registry())
    assert str(err.value).startswith(prefix)
