"""DRA-backed extended resources, translated from kueue v0.19.2 ``pkg/dra/extended_resources_test.go``
(``TestSelectedDeviceClass``, ``TestResolveExtendedResourceQuota`` — upstream compares error types
and fields only, kbatch also the messages of ``extended_resources.go`` — and ``TestNeedsDRAReconcile``),
plus a property: per pod set, the counted quantity is the per-class sum of both paths."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import FieldErrorType
from kbatch.api.kueue_config_dra import DeviceClassMapping
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.resource_v1.claim import ResourceClaimSpec
from kbatch.api.resource_v1.deviceclass import DeviceClass
from kbatch.controllers.kueue.dra_requests import DraGates, DraResolver, merge_requests
from kbatch.controllers.kueue.model.dra import requests_for_templates
from kbatch.controllers.kueue.model.dra_extended import (
    ExtendedResourceCache,
    requests_extended,
    resolve_extended,
    selected_device_class,
)
from kbatch.controllers.kueue.model.info import WorkloadInfo


def _class(name: str, ern: str | None = None, created: int = 0) -> DeviceClass:
    ts = datetime.fromtimestamp(created, UTC).isoformat().replace("+00:00", "Z")
    spec = {"extendedResourceName": ern} if ern else {}
    return DeviceClass.model_validate({"metadata": {"name": name, "creationTimestamp": ts}, "spec": spec})


GPU = _class("gpu.nvidia.com", "example.com/gpu")
MIG = _class("mig.nvidia.com", "nvidia.com/mig-1g.10gb")
PLAIN = _class("plain.nvidia.com")
ALPHA = _class("alpha.example.com", "example.com/gpu", 100)
OMEGA = _class("omega.example.com", "example.com/gpu", 200)
CLASS_A = _class("class-a", "vendor.example/a")
CLASS_B = _class("class-b", "vendor.example/b")
C0 = "spec.podSets[0].template.spec.containers[0]"


def _c(**requests: str) -> dict[str, Any]:
    return {
        "name": "c",
        "image": "pause",
        "resources": {"requests": {k.replace("__", "/").replace("_", "."): v for k, v in requests.items()}},
    }


def _wl(containers: list[dict[str, Any]], inits: list[dict[str, Any]] | None = None, **spec: Any) -> Workload:
    pod = {"containers": containers, **({"initContainers": inits} if inits else {}), **spec}
    return Workload.model_validate(
        {
            "metadata": {"name": "wl", "namespace": "ns1"},
            "spec": {"podSets": [{"name": "main", "count": 1, "template": {"spec": pod}}]},
        }
    )


def _resolve(
    wl: Workload,
    classes: list[DeviceClass],
    mapping: dict[str, str] | None = None,
    counters: set[str] = frozenset(),
):  # type: ignore[no-untyped-def,assignment]
    by_name = lambda n: [dc for dc in classes if dc.spec.extended_resource_name == n]  # noqa: E731
    return resolve_extended(wl, by_name, mapping or {}, lambda dc: "counter" if dc in counters else None)


@pytest.mark.parametrize(
    ("items", "want"),
    [
        ([("a", 100)], "a"),  # one class is the one
        ([("a", 100), ("b", 200)], "b"),  # the class created later wins
        ([("b", 200), ("a", 100)], "b"),  # and wins from either end of the list
        ([("b", 100), ("a", 100)], "a"),  # created together, the lexicographically first name wins
        ([("a", 100), ("b", 100)], "a"),  # and that tie does not depend on the list order either
        ([("a", 100), ("z", 200)], "z"),  # a later class beats an earlier one with a smaller name
        ([("a", 300), ("z", 100), ("b", 300)], "a"),  # the tie-break applies among the latest only
    ],
)
def test_selected_device_class(items: list[tuple[str, int]], want: str) -> None:
    assert selected_device_class([_class(n, "x/y", t) for n, t in items]).metadata.name == want


# (name, workload, classes, mapping, want requests, want replaced); TestResolveExtendedResourceQuota
RESOLVE = [
    (
        "backed by DRA",
        _wl([_c(example_com__gpu="2")]),
        [GPU],
        {},
        {"main": {"example.com/gpu": 2}},
        {"main": {"example.com/gpu"}},
    ),
    ("negative request is not charged", _wl([_c(example_com__gpu="-1")]), [GPU], {}, {}, {}),
    (
        "multiple extended resources",
        _wl(
            [
                {
                    "name": "c",
                    "resources": {"requests": {"example.com/gpu": "2", "nvidia.com/mig-1g.10gb": "1"}},
                }
            ]
        ),
        [GPU, MIG],
        {},
        {"main": {"example.com/gpu": 2, "nvidia.com/mig-1g.10gb": 1}},
        {"main": {"example.com/gpu", "nvidia.com/mig-1g.10gb"}},
    ),
    ("not backed by DRA", _wl([_c(example_com__gpu="2")]), [], {}, {}, {}),
    ("fractional, not backed by DRA", _wl([_c(example_com__gpu="500m")]), [], {}, {}, {}),
    ("no extended resources", _wl([_c(cpu="1")]), [GPU], {}, {}, {}),
    ("DeviceClass without extendedResourceName", _wl([_c(example_com__gpu="1")]), [PLAIN], {}, {}, {}),
    (
        "multiple containers",
        _wl([_c(example_com__gpu="1"), _c(example_com__gpu="2")]),
        [GPU],
        {},
        {"main": {"example.com/gpu": 3}},
        {"main": {"example.com/gpu"}},
    ),
    (
        "init containers use max, regular containers use sum",
        _wl(
            [_c(example_com__gpu="1"), _c(example_com__gpu="2")],
            [_c(example_com__gpu="5"), _c(example_com__gpu="3")],
        ),
        [GPU],
        {},
        {"main": {"example.com/gpu": 5}},
        {"main": {"example.com/gpu"}},
    ),
    (
        "two names sharing a quota key are not collapsed",
        _wl([_c(vendor_example__b="5")], [_c(vendor_example__a="5")]),
        [CLASS_A, CLASS_B],
        {"class-a": "gpu-claims", "class-b": "gpu-claims"},
        {"main": {"gpu-claims": 10}},
        {"main": {"vendor.example/a", "vendor.example/b"}},
    ),
    (
        "a negative name does not offset a positive one",
        _wl([_c(vendor_example__a="5", vendor_example__b="-3")]),
        [CLASS_A, CLASS_B],
        {"class-a": "gpu-claims", "class-b": "gpu-claims"},
        {"main": {"gpu-claims": 5}},
        {"main": {"vendor.example/a"}},
    ),
    (
        "the mapped logical name is the key",
        _wl([_c(example_com__gpu="1")]),
        [GPU],
        {"gpu.nvidia.com": "gpu-claims"},
        {"main": {"gpu-claims": 1}},
        {"main": {"example.com/gpu"}},
    ),
    (
        "the mapping of the later DeviceClass decides the key",
        _wl([_c(example_com__gpu="1")]),
        [ALPHA, OMEGA],
        {"alpha.example.com": "alpha-claims", "omega.example.com": "omega-claims"},
        {"main": {"omega-claims": 1}},
        {"main": {"example.com/gpu"}},
    ),
    (
        "an unmapped later DeviceClass leaves the name as the key",
        _wl([_c(example_com__gpu="1")]),
        [ALPHA, OMEGA],
        {"alpha.example.com": "alpha-claims"},
        {"main": {"example.com/gpu": 1}},
        {"main": {"example.com/gpu"}},
    ),
]


@pytest.mark.parametrize(
    ("name", "wl", "classes", "mapping", "want", "replaced"), RESOLVE, ids=[r[0] for r in RESOLVE]
)
def test_resolve_extended_resource_quota(
    name: str, wl: Workload, classes: list[DeviceClass], mapping: dict[str, str], want: Any, replaced: Any
) -> None:
    out = _resolve(wl, classes, mapping)
    assert out.errors == ()
    assert out.requests == want
    assert {k: set(v) for k, v in out.replaced.items()} == replaced


def test_a_fractional_dra_backed_request_is_refused_per_container() -> None:
    out = _resolve(_wl([_c(example_com__gpu="500m"), _c(example_com__gpu="500m")]), [GPU])
    assert [(e.type, e.field) for e in out.errors] == [
        (FieldErrorType.INVALID, f"{C0}.resources.requests.example.com/gpu"),
        (
            FieldErrorType.INVALID,
            "spec.podSets[0].template.spec.containers[1].resources.requests.example.com/gpu",
        ),
    ]
    assert str(out.errors[0]) == (
        f'{C0}.resources.requests.example.com/gpu: Invalid value: "500m": '
        "extended resource quantity must be an integer"
    )


def test_per_container_integers_overflowing_int64_are_refused() -> None:
    out = _resolve(_wl([_c(example_com__gpu="9e18"), _c(example_com__gpu="9e18")]), [GPU])
    assert [(e.type, e.field) for e in out.errors] == [
        (FieldErrorType.INVALID, f"{C0}.resources.requests.example.com/gpu")
    ]
    assert out.errors[0].detail == "total extended resource quantity overflows int64"


def test_a_class_with_counters_is_refused() -> None:
    out = _resolve(
        _wl([_c(example_com__gpu="1")]), [GPU], {"gpu.nvidia.com": "gpu-claims"}, {"gpu.nvidia.com"}
    )
    assert [(e.type, e.field) for e in out.errors] == [(FieldErrorType.INVALID, C0)]
    assert str(out.errors[0]) == (
        f'{C0}: Invalid value: "example.com/gpu": extended resource example.com/gpu resolves to DeviceClass '
        "gpu.nvidia.com with counters configured; use ResourceClaimTemplates with CEL selectors for "
        "counter-based quota"
    )


class _Cache:
    def __init__(self, *classes: DeviceClass) -> None:
        self.classes = {dc.metadata.name: dc for dc in classes}

    def get(self, kind: Any, name: str, namespace: str | None = None) -> Any:
        from kbatch.api.errors import NotFound

        if kind is DeviceClass and name in self.classes:
            return self.classes[name]
        raise NotFound.of(kind.api_info.group_resource, name)

    def list(self, kind: Any, namespace: str | None = None) -> list[Any]:
        return list(self.classes.values()) if kind is DeviceClass else []


def _resolver(*, enabled: bool = True, extended: bool = True, cached: tuple[str, ...] = ()) -> DraResolver:
    r = DraResolver(_Cache(GPU), (), DraGates(enabled, True, extended))
    for name in cached:
        r.backed.add(name, "gpu.nvidia.com")
    return r


RCT = {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]}


@pytest.mark.parametrize(
    ("wl", "resolver", "want"),
    [
        (_wl([_c(cpu="1")], **RCT), _resolver(), True),  # with RCT always needs DRA reconcile
        (_wl([_c(example_com__gpu="1")]), _resolver(), False),  # not in cache
        (_wl([_c(example_com__gpu="1")]), _resolver(cached=("example.com/gpu",)), True),  # in cache
        (_wl([_c(example_com__gpu="1")]), _resolver(enabled=False, cached=("example.com/gpu",)), False),
        (_wl([_c(example_com__gpu="1")]), _resolver(extended=False, cached=("example.com/gpu",)), False),
        (
            _wl([_c(cpu="1", memory="1Gi")]),
            _resolver(cached=("example.com/gpu",)),
            False,
        ),  # cpu and memory only
    ],
)
def test_needs_dra_reconcile(wl: Workload, resolver: DraResolver, want: bool) -> None:
    assert resolver.needs(wl) is want


def test_the_cache_keeps_a_name_while_a_class_backs_it() -> None:
    cache = ExtendedResourceCache()
    cache.add("example.com/gpu", "a")
    cache.add("example.com/gpu", "b")
    cache.remove("example.com/gpu", "a")
    assert cache.has("example.com/gpu")
    cache.remove("example.com/gpu", "b")
    assert not cache.has("example.com/gpu")
    assert not requests_extended(_wl([_c(example_com__gpu="1")]), cache)


def test_the_extended_resource_is_replaced_by_its_key_in_the_pod_set_requests() -> None:
    wl = _wl([_c(cpu="1", example_com__gpu="2")])
    r = DraResolver(
        _Cache(GPU), (DeviceClassMapping("gpus", ("gpu.nvidia.com",)),), DraGates(True, True, True)
    )
    r.backed.add("example.com/gpu", "gpu.nvidia.com")
    outcome = r(wl)
    assert outcome is not None and not outcome.inadmissible
    info = WorkloadInfo.of(wl, None, outcome.requests, outcome.replaced)
    assert info.pod_sets[0].requests == {"cpu": 1000, "gpus": 2}


@given(
    st.lists(st.tuples(st.sampled_from(["dc-a", "dc-b", "dc-c"]), st.integers(1, 4)), max_size=4),
    st.lists(st.tuples(st.sampled_from(["x.io/a", "x.io/b", "x.io/c"]), st.integers(1, 6)), max_size=4),
    st.integers(1, 5),
)
def test_the_counted_quantity_is_the_per_class_sum_of_both_paths(
    claims: list[tuple[str, int]], extended: list[tuple[str, int]], pods: int
) -> None:
    """Per pod set: devices of each class through templates plus extended requests through each
    class's ``extendedResourceName``, summed per mapped resource, times the pods."""
    ern = {"x.io/a": "dc-a", "x.io/b": "dc-b", "x.io/c": "dc-c"}
    classes = [_class(dc, name) for name, dc in ern.items()]
    mapping = {"dc-a": "r1", "dc-b": "r1", "dc-c": "r2"}
    spec = ResourceClaimSpec.model_validate(
        {
            "devices": {
                "requests": [
                    {"name": f"r{i}", "exactly": {"deviceClassName": dc, "count": n}}
                    for i, (dc, n) in enumerate(claims)
                ]
            }
        }
    )
    containers = [
        {"name": f"c{i}", "resources": {"requests": {name: str(n)}}} for i, (name, n) in enumerate(extended)
    ]
    wl = _wl(containers or [_c(cpu="1")], resourceClaims=[{"name": "c", "resourceClaimTemplateName": "t"}])
    wl.spec.pod_sets[0].count = pods
    rct = requests_for_templates(wl, lambda ns, n: spec, mapping)
    ext = _resolve(wl, classes, mapping)
    merged = merge_requests(rct.requests, ext.requests)
    want: dict[str, int] = {}
    for dc, n in claims:
        want[mapping[dc]] = want.get(mapping[dc], 0) + n
    for name, n in extended:
        want[mapping[ern[name]]] = want.get(mapping[ern[name]], 0) + n
    assert {k: v for k, v in merged.get("main", {}).items() if v} == {k: v for k, v in want.items() if v}
    info = WorkloadInfo.of(wl, None, merged, ext.replaced)
    got = {k: v for k, v in info.pod_sets[0].requests.items() if k != "cpu"}
    assert got == {k: v * pods for k, v in want.items() if v}
