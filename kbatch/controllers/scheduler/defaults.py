"""The plugin registry of the composed families, and the default profile built from it.

The default profile is kube-scheduler's default ``multiPoint`` plugin set as far as kbatch models it
(upstream ``pkg/scheduler/apis/config/v1/default_plugins.go``; the core family declares it, with the
weights: TaintToleration 3, NodeAffinity 2, NodeResourcesFit 1, PodTopologySpread 2,
InterPodAffinity 2, NodeResourcesBalancedAllocation 1), plus whatever later families add. Node-static
filters run first, which preserves upstream's "first failing plugin" per node.
"""

from __future__ import annotations

from collections.abc import Iterable

from kbatch.controllers.scheduler.config import PluginSet, ProfileConfig, SchedulerConfig
from kbatch.controllers.scheduler.framework import Profile
from kbatch.controllers.scheduler.plugins import LEAST_ALLOCATED
from kbatch.controllers.scheduler.profiles import Handle, Registry, build_profiles
from kbatch.families import SchedulerPlugin, builtin, resolve

__all__ = ["default_profile", "plugin_registry"]


def plugin_registry(plugins: Iterable[SchedulerPlugin] | None = None) -> Registry:
    """The scheduler plugins of ``plugins`` (default: every built-in family's), by name."""
    registry = Registry()
    for plugin in plugins if plugins is not None else builtin().scheduler_plugins:
        registry.register(plugin.name, resolve(plugin.factory), weight=plugin.weight,
                          multi_point=plugin.multi_point, queue_sort=plugin.queue_sort,
                          before=plugin.before)
    return registry


def default_profile(
    scoring_strategy: str = LEAST_ALLOCATED,
    percentage_of_nodes_to_score: int | None = None,
    preemption: bool = True,
    handle: Handle | None = None,
) -> Profile:
    """The ``default-scheduler`` profile of the built-in families, with the most common knobs
    (NodeResourcesFit's scoring strategy, ``percentageOfNodesToScore``, DefaultPreemption on or off)
    expressed as the configuration a user would write."""
    plugins = {} if preemption else {"postFilter": PluginSet(disabled=("DefaultPreemption",))}
    fit_args = {"scoringStrategy": {"type": scoring_strategy}}
    config = ProfileConfig(plugins=plugins, plugin_config={"NodeResourcesFit": fit_args})
    made = build_profiles(SchedulerConfig((config,), percentage_of_nodes_to_score), plugin_registry(),
                          lambda: handle if handle is not None else Handle())
    return made[config.scheduler_name]
