"""Generated structural copies (kbatch.api.model_copy): equal to the original, sharing nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from ruamel.yaml import YAML

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Event, Node, Pod
from kbatch.api.meta import Resource
from kbatch.api.model_copy import copy_model, copy_value

MANIFESTS = Path(__file__).parent / "manifests"
MODELS: dict[str, type[Resource]] = {"Pod": Pod, "Job": Job, "Node": Node, "Event": Event}


def _manifests() -> list[Resource]:
    out = []
    for path in sorted(MANIFESTS.rglob("*.yaml")):
        if path.name.startswith("invalid"):
            continue
        for doc in YAML(typ="safe").load_all(path.read_text()):
            if doc and doc.get("kind") in MODELS:
                out.append(MODELS[doc["kind"]].model_validate(doc))
    assert out
    return out


def _mutables(value: Any, seen: dict[int, Any]) -> None:
    """id -> object of every mutable container reachable from ``value``."""
    if isinstance(value, BaseModel):
        seen[id(value)] = value
        seen[id(value.__dict__)] = value.__dict__
        seen[id(value.__pydantic_fields_set__)] = value.__pydantic_fields_set__
        for item in value.__dict__.values():
            _mutables(item, seen)
    elif isinstance(value, list):
        seen[id(value)] = value
        for item in value:
            _mutables(item, seen)
    elif isinstance(value, dict):
        seen[id(value)] = value
        for item in value.values():
            _mutables(item, seen)


def _shared(a: Any, b: Any) -> set[int]:
    left: dict[int, Any] = {}
    right: dict[int, Any] = {}
    _mutables(a, left)
    _mutables(b, right)
    return left.keys() & right.keys()


@pytest.mark.parametrize("obj", _manifests(), ids=lambda o: f"{o.kind}/{o.name}")
def test_copy_is_equal_and_shares_nothing_mutable(obj: Resource) -> None:
    copy = copy_model(obj)
    assert copy == obj
    assert copy.to_json() == obj.to_json()
    assert not _shared(obj, copy)


def test_copy_is_independent_of_later_mutation() -> None:
    pod = Pod.model_validate({"metadata": {"name": "p", "labels": {"a": "1"}},
                              "spec": {"containers": [{"name": "c", "image": "i", "command": ["x"]}]}})
    copy = copy_model(pod)
    copy.metadata.labels["a"] = "2"  # type: ignore[index]
    copy.spec.containers[0].command.append("y")  # type: ignore[union-attr]
    copy.spec.containers.append(copy.spec.containers[0])  # type: ignore[union-attr]
    assert pod.metadata.labels == {"a": "1"}
    assert pod.spec.containers[0].command == ["x"]  # type: ignore[union-attr]
    assert len(pod.spec.containers) == 1  # type: ignore[union-attr]


def test_copy_value_handles_plain_values() -> None:
    data = {"a": [1, {"b": "c"}], "t": datetime(2026, 1, 1, tzinfo=UTC)}
    copy = copy_value(data)
    assert copy == data
    assert copy["a"] is not data["a"] and copy["a"][1] is not data["a"][1]
    assert copy_value(None) is None and copy_value("x") == "x"
