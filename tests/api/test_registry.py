"""The built-in registry knows the core kinds with kubectl's names, scopes and strategies."""

from __future__ import annotations

import pytest

from kbatch.api.core_v1 import Event, Namespace, Node, Pod, Service
from kbatch.api.scheduling_v1 import PriorityClass
from kbatch.api.strategies.core import (
    EventStrategy,
    NamespaceStrategy,
    NodeStrategy,
    PodStrategy,
    PriorityClassStrategy,
    ServiceStrategy,
)
from kbatch.families import builtin_registry


@pytest.mark.parametrize(
    ("name", "model", "api_version", "namespaced", "strategy"),
    [
        ("po", Pod, "v1", True, PodStrategy),
        ("pods", Pod, "v1", True, PodStrategy),
        ("no", Node, "v1", False, NodeStrategy),
        ("ns", Namespace, "v1", False, NamespaceStrategy),
        ("svc", Service, "v1", True, ServiceStrategy),
        ("ev", Event, "v1", True, EventStrategy),
        ("pc", PriorityClass, "scheduling.k8s.io/v1", False, PriorityClassStrategy),
        (
            "priorityclasses.scheduling.k8s.io",
            PriorityClass,
            "scheduling.k8s.io/v1",
            False,
            PriorityClassStrategy,
        ),
    ],
)
def test_core_kinds_registered(
    name: str, model: type, api_version: str, namespaced: bool, strategy: type
) -> None:
    spec = builtin_registry().for_name(name)
    assert spec.model is model
    assert spec.info.api_version == api_version
    assert spec.info.namespaced is namespaced
    assert isinstance(spec.strategy, strategy)
    assert builtin_registry().for_gvk(api_version, model.api_info.kind) is not None


def test_core_kinds_come_first_and_registries_are_independent() -> None:
    first, second = builtin_registry(), builtin_registry()
    kinds = [s.info.kind for s in first]
    assert kinds[:6] == ["Namespace", "Pod", "Node", "Service", "Event", "PriorityClass"]
    assert first.for_model(Pod) is not second.for_model(Pod)


def test_api_version_and_kind_default_from_api_info() -> None:
    assert Pod().to_dict()["apiVersion"] == "v1"
    assert PriorityClass().to_dict()["kind"] == "PriorityClass"
    assert Pod.api_info.group_kind == "Pod"
    assert PriorityClass.api_info.group_resource == "priorityclasses.scheduling.k8s.io"
