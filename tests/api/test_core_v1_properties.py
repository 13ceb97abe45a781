"""Property tests: random valid core objects round-trip and pass validation after defaulting; random
bad names are rejected at the right field path."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.strategies.core import PodStrategy
from kbatch.api.validation import is_dns1123_label

NAME = st.from_regex(r"[a-z]([-a-z0-9]{0,10}[a-z0-9])?", fullmatch=True)
QUANTITY = st.sampled_from(["100m", "1", "2", "500m", "1Gi", "1536Mi", "2e3", "128Mi", "0"])
RESOURCES = st.fixed_dictionaries(
    {},
    optional={
        "requests": st.dictionaries(st.sampled_from(["cpu", "memory"]), QUANTITY, min_size=1),
    },
)


@st.composite
def containers(draw: st.DrawFn, names: list[str]) -> list[dict[str, Any]]:
    out = []
    for name in names:
        c: dict[str, Any] = {
            "name": name,
            "image": draw(st.sampled_from(["busybox", "busybox:1.36", "a/b:c"])),
        }
        if draw(st.booleans()):
            c["command"] = draw(st.lists(st.text(max_size=5), max_size=3))
        if draw(st.booleans()):
            c["resources"] = draw(RESOURCES)
        if draw(st.booleans()):
            c["env"] = [{"name": "A", "value": draw(st.text(max_size=5))}]
        if draw(st.booleans()):
            c["ports"] = [{"containerPort": draw(st.integers(1, 65535)), "protocol": "TCP"}]
        out.append(c)
    return out


@st.composite
def pods(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
    spec: dict[str, Any] = {"containers": draw(containers(names))}
    if draw(st.booleans()):
        spec["restartPolicy"] = draw(st.sampled_from(["Always", "OnFailure", "Never"]))
    if draw(st.booleans()):
        spec["nodeSelector"] = draw(st.dictionaries(NAME, NAME, max_size=2))
    if draw(st.booleans()):
        spec["tolerations"] = [{"key": draw(NAME), "operator": "Exists", "effect": "NoSchedule"}]
    if draw(st.booleans()):
        spec["priority"] = draw(st.integers(-(2**31), 2**31 - 1))
    if draw(st.booleans()):
        spec["schedulingGates"] = [{"name": n} for n in draw(st.lists(NAME, max_size=2, unique=True))]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": draw(NAME),
            "namespace": "default",
            "labels": draw(st.dictionaries(NAME, NAME, max_size=2)),
        },
        "spec": spec,
    }


@settings(max_examples=60)
@given(pods())
def test_random_valid_pods_round_trip_and_validate(data: dict[str, Any]) -> None:
    pod = Pod.from_dict(data)
    assert pod.to_dict() == data  # the sampled quantities are canonical
    assert Pod.from_json(pod.to_json()) == pod
    PodStrategy().default(pod)
    assert PodStrategy().validate(pod) == []


@settings(max_examples=60)
@given(pods(), st.text(min_size=1, max_size=12), st.data())
def test_bad_container_names_rejected_at_their_path(
    data: dict[str, Any], name: str, pick: st.DataObject
) -> None:
    containers = data["spec"]["containers"]
    i = pick.draw(st.integers(0, len(containers) - 1))
    containers[i]["name"] = name
    pod = Pod.from_dict(data)
    PodStrategy().default(pod)
    errs = PodStrategy().validate(pod)
    names = [c["name"] for c in containers]
    if is_dns1123_label(name):
        assert any(e.field == f"spec.containers[{i}].name" and e.bad_value == name for e in errs)
    elif names.count(name) > 1:
        assert any(e.field.endswith(".name") and e.type.reason == "FieldValueDuplicate" for e in errs)
    else:
        assert errs == []
