"""Scheduler configuration and profiles: KubeSchedulerConfiguration parsing and validation, the plugin
set merge and multiPoint expansion (upstream default_plugins.go mergePluginSet, framework.go
expandMultiPointPlugins), and several profiles selected by spec.schedulerName."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kubelet.cluster import condition, get_pod, pod_yaml

from kbatch import ControlPlane
from kbatch.controllers.scheduler import (
    SchedulerConfigError,
    build_profiles,
    default_profile,
    parse_config,
    plugin_registry,
)
from kbatch.controllers.scheduler.config import PluginEntry, PluginSet, merge_plugin_set
from kbatch.families import CORE
from kbatch.sim import NodeTemplate, create_nodes

DEFAULTS = [e.name for e in plugin_registry().defaults.enabled]


def _config(*profiles: dict, **extra: object) -> dict:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": list(profiles), **extra}


def _profiles(doc: dict) -> dict:
    return build_profiles(parse_config(doc), plugin_registry())


def test_the_default_profile_is_upstreams_default_plugin_set() -> None:
    profile = default_profile()
    assert [p.name for p in profile.filter] == [
        "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
        "VolumeBinding", "PodTopologySpread", "InterPodAffinity", "DynamicResources"]
    assert [(p.name, p.weight) for p in profile.score] == [
        ("TaintToleration", 3), ("NodeAffinity", 2), ("NodeResourcesFit", 1), ("PodTopologySpread", 2),
        ("InterPodAffinity", 2), ("DynamicResources", 1), ("NodeResourcesBalancedAllocation", 1)]
    assert [p.name for p in profile.pre_score] == [
        "PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation"]
    # the coscheduling family's plugin follows the in-tree ones and sorts the queue (scheduler-plugins'
    # own configuration); a composition without it keeps PrioritySort
    # DynamicResources just before DefaultPreemption, as upstream's default_plugins.go: its PostFilter
    # (deallocating, or deleting a leftover special claim) runs first
    assert [p.name for p in profile.post_filter] == ["DynamicResources", "DefaultPreemption", "Coscheduling"]
    assert profile.queue_sort is not None and profile.queue_sort.name == "Coscheduling"
    core_only = build_profiles(parse_config(None),
                               plugin_registry(CORE.scheduler_plugins))["default-scheduler"]
    assert core_only.queue_sort is not None and core_only.queue_sort.name == "PrioritySort"
    assert [p.name for p in core_only.post_filter] == ["DefaultPreemption"]
    # DefaultPreemption runs the profile's own filters and PreFilter extensions (the framework handle)
    preemption = profile.post_filter[1]
    assert preemption.filters == profile.filter
    # (DynamicResources' AddPod/RemovePod act only with DRAPreemption, KEP-5690; docs/dra.md)
    assert [p.name for p in preemption.extensions] == [
        "PodTopologySpread", "InterPodAffinity", "DynamicResources"]


def test_a_plugin_is_built_once_per_profile_and_shared_by_its_extension_points() -> None:
    profile = default_profile()
    spread = profile.plugins["PodTopologySpread"]
    assert spread in profile.pre_filter and spread in profile.filter and spread in profile.score


def test_disabling_at_one_extension_point_keeps_the_others() -> None:
    profile = _profiles(_config({"plugins": {"score": {"disabled": [{"name": "NodeResourcesFit"}]}}}))[
        "default-scheduler"]
    assert "NodeResourcesFit" not in [p.name for p in profile.score]
    assert "NodeResourcesFit" in [p.name for p in profile.filter]


def test_disabling_star_at_score_leaves_only_the_explicit_ones_with_their_weights() -> None:
    doc = _config({"plugins": {"score": {"disabled": [{"name": "*"}],
                                         "enabled": [{"name": "NodeResourcesFit", "weight": 7}]}}})
    profile = _profiles(doc)["default-scheduler"]
    assert [(p.name, p.weight) for p in profile.score] == [("NodeResourcesFit", 7)]


def test_an_explicit_extension_point_entry_overrides_the_multipoint_position() -> None:
    """Explicit overrides come first, then the other multiPoint plugins (expandMultiPointPlugins)."""
    doc = _config({"plugins": {"filter": {"enabled": [{"name": "InterPodAffinity"}]}}})
    profile = _profiles(doc)["default-scheduler"]
    assert profile.filter[0].name == "InterPodAffinity"
    assert [p.name for p in profile.filter].count("InterPodAffinity") == 1


def test_plugin_args_reach_the_plugin() -> None:
    scoring = {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 3}]}
    doc = _config({"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": scoring}}]})
    fit = _profiles(doc)["default-scheduler"].plugins["NodeResourcesFit"]
    assert (fit.strategy, fit.resources) == ("MostAllocated", (("cpu", 3),))


@pytest.mark.parametrize(("doc", "message"), [
    (_config({"schedulerName": "a"}, {"schedulerName": "a"}),
     'profiles[1].schedulerName: Duplicate value: "a"'),
    (_config(percentageOfNodesToScore=101), "percentageOfNodesToScore: Invalid value: 101"),
    (_config({"plugins": {"filter": {"enabled": [{"name": "NoSuchPlugin"}]}}}),
     'plugin "NoSuchPlugin" does not exist'),
    (_config({"plugins": {"score": {"enabled": [{"name": "NodeName"}]}}}),
     'plugin "NodeName" does not extend score plugin'),
    (_config({"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "Best"}}}]}),
     'scoringStrategy.type: Unsupported value: "Best"'),
    (_config({"pluginConfig": [{"name": "InterPodAffinity", "args": {"bogus": 1}}]}),
     'strict decoding error: unknown field "pluginConfig[InterPodAffinity].args.bogus"'),
    (_config({"plugins": {"filtre": {}}}), 'unknown field "profiles[0].plugins.filtre"'),
    ({"apiVersion": "kubescheduler.config.k8s.io/v1beta3", "kind": "KubeSchedulerConfiguration"},
     'no kind "KubeSchedulerConfiguration" is registered for version'),
])
def test_invalid_configurations_are_refused_with_upstreams_field_paths(doc: dict, message: str) -> None:
    with pytest.raises(SchedulerConfigError) as err:
        _profiles(doc)
    assert message in str(err.value)


def test_every_profile_must_sort_the_queue_alike() -> None:
    doc = _config({"schedulerName": "a"},
                  {"schedulerName": "b", "plugins": {"queueSort": {"disabled": [{"name": "*"}]}}})
    with pytest.raises(SchedulerConfigError, match="queueSort must be the same for all profiles"):
        _profiles(doc)


names = st.sampled_from(DEFAULTS)


@settings(max_examples=200, deadline=None)
@given(disabled=st.lists(names, unique=True), enabled=st.lists(names, unique=True), star=st.booleans())
def test_merged_plugin_sets_keep_default_order_and_list_each_plugin_once(
        disabled: list[str], enabled: list[str], star: bool) -> None:
    """mergePluginSet: every default not disabled keeps its relative order; a re-enabled default
    takes its custom entry in place; nothing is listed twice; disabled defaults never appear unless
    enabled again explicitly."""
    default = PluginSet(tuple(PluginEntry(n, 1) for n in DEFAULTS))
    custom = PluginSet(tuple(PluginEntry(n, 5) for n in enabled), tuple(["*"] if star else disabled))
    merged = [e.name for e in merge_plugin_set(default, custom).enabled]
    assert len(merged) == len(set(merged))
    kept = [n for n in DEFAULTS if not star and n not in disabled]
    assert [n for n in merged if n in kept] == kept
    assert set(merged) == set(kept) | set(enabled)
    for entry in merge_plugin_set(default, custom).enabled:
        assert entry.weight == (5 if entry.name in enabled else 1)


def test_pods_are_scheduled_by_the_profile_their_scheduler_name_names() -> None:
    """Two profiles (KubeSchedulerConfiguration profiles): the second packs pods (MostAllocated);
    a pod naming an unknown scheduler is left alone, as another scheduler's."""
    most = [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}]
    config = _config({"schedulerName": "default-scheduler"},
                     {"schedulerName": "packer", "pluginConfig": most})
    cp = ControlPlane(seed=3, controllers="scheduler,kubelet", scheduler_config=config)
    create_nodes(cp, 3, NodeTemplate(cpu="4"))
    for i in range(3):
        cp.apply(pod_yaml(f"pack-{i}", "sleep 100", cpu="1", extra_spec="\n  schedulerName: packer"))
    cp.apply(pod_yaml("other", "sleep 100", cpu="1", extra_spec="\n  schedulerName: someone-else"))
    packed = {get_pod(cp, f"pack-{i}").spec.node_name for i in range(3)}
    assert len(packed) == 1  # MostAllocated keeps choosing the fullest node
    assert not get_pod(cp, "other").spec.node_name
    assert condition(get_pod(cp, "other"), "PodScheduled") is None


def test_disabled_preemption_in_a_profile_does_not_preempt() -> None:
    config = _config({"plugins": {"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}}})
    cp = ControlPlane(seed=1, controllers="scheduler,kubelet", scheduler_config=config)
    create_nodes(cp, 1, NodeTemplate(cpu="1"))
    cp.apply("{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 100}")
    cp.apply(pod_yaml("low", "sleep 1000", cpu="1"))
    cp.apply(pod_yaml("high", "sleep 10", cpu="1", extra_spec="\n  priorityClassName: high"))
    assert get_pod(cp, "low").metadata.deletion_timestamp is None
    assert not get_pod(cp, "high").status.nominated_node_name
