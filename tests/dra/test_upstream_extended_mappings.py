"""Upstream's ``extendeddynamicresources_test.go`` tables (``Test_createRequestsAndMappings_requests``,
``Test_createRequestsAndMappings_mappings``), translated: the special claim's device requests and
the container mappings for explicit and implicit extended resources, init containers and sidecars."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.resource_v1 import DeviceClass
from kbatch.controllers.dra.extended import ContainerInfo, requests_and_mappings

ER = "example.com/gpu"
IMPLICIT = "deviceclass.resource.kubernetes.io/classInit"


def con(name: str, short_lived: bool = False, **requests: int) -> ContainerInfo:
    return ContainerInfo(name, short_lived, tuple(sorted(requests.items())))


def res(name: str, count: int) -> dict[str, int]:
    return {name: count}


def _pod(*containers: ContainerInfo) -> tuple[ContainerInfo, ...]:
    return containers


# st.MakePod(): init containers first (init-con<i>, sidecar-con<i>), then regular (con<i>)
POD1 = _pod(con("con0", **{ER: 1, ER + "1": 2}))
POD2 = _pod(con("con0", **{ER: 1}), con("con1", **{ER + "1": 2}))
POD_INIT = _pod(con("init-con0", True, **{ER + "init": 2}), con("con0", **{ER: 1}))
POD_INIT2 = _pod(
    con("init-con0", True, **{ER + "init": 1}),
    con("init-con1", True, **{ER + "init": 2}),
    con("con0", **{ER: 1}),
)
POD_INIT3 = _pod(
    con("init-con0", True, **{ER + "init": 1}),
    con("sidecar-con1", False, **{ER + "init": 1}),
    con("init-con2", True, **{ER + "init": 2}),
    con("con0", **{ER: 1}),
)
POD1_INIT_IMPLICIT = _pod(con("init-con0", True, **{ER + "init": 1, IMPLICIT: 2}))
POD_INIT_IMPLICIT = _pod(
    con("init-con0", True, **{ER + "init": 1}),
    con("init-con1", True, **{IMPLICIT: 2}),
    con("con0", **{ER: 1}),
)

DEV_MAP = {ER: "class"}
DEV_MAP2 = {ER: "class", ER + "1": "class1"}
DEV_MAP_INIT = {ER: "class", ER + "init": "classInit", IMPLICIT: "classInit"}
RES = {ER: 1}
RES2 = {ER: 1, ER + "1": 2}
RES_INIT = {ER: 1, ER + "init": 2}
RES_INIT_IMPLICIT = {ER: 1, ER + "init": 2, IMPLICIT: 2}


def resolver(mapping: dict[str, str]) -> Any:
    classes = {n: DeviceClass.model_validate({"metadata": {"name": c}}) for n, c in mapping.items()}
    return classes.get


REQUESTS = {
    "nil": (POD1, {}, {}, []),
    "one resource match": (POD1, RES, DEV_MAP, [("container-0-request-0", "class", 1)]),
    "one resource match, one resource not match": (
        POD1,
        RES2,
        DEV_MAP,
        [("container-0-request-0", "class", 1)],
    ),
    "two resources match": (
        POD1,
        RES2,
        DEV_MAP2,
        [("container-0-request-0", "class", 1), ("container-0-request-1", "class1", 2)],
    ),
    "two containers match": (
        POD2,
        RES2,
        DEV_MAP2,
        [("container-0-request-0", "class", 1), ("container-1-request-0", "class1", 2)],
    ),
    "one init container, one regular container": (
        POD_INIT,
        RES_INIT,
        DEV_MAP_INIT,
        [("container-0-request-0", "classInit", 2), ("container-1-request-0", "class", 1)],
    ),
    "two init containers, one regular container": (
        POD_INIT2,
        RES_INIT,
        DEV_MAP_INIT,
        [("container-1-request-0", "classInit", 2), ("container-2-request-0", "class", 1)],
    ),
    "three init containers, one sidecar, one regular container": (
        POD_INIT3,
        RES_INIT,
        DEV_MAP_INIT,
        [
            ("container-1-request-0", "classInit", 1),
            ("container-2-request-0", "classInit", 2),
            ("container-3-request-0", "class", 1),
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(REQUESTS))
def test_requests(case: str) -> None:
    pod, resources, mapping, want = REQUESTS[case]
    got, _ = requests_and_mappings(pod, resources, resolver(mapping))
    assert [(r.name, r.exactly.device_class_name, r.exactly.count) for r in got] == want
    assert all(r.exactly.allocation_mode == "ExactCount" for r in got)


MAPPINGS = {
    "one container, two requests": (
        POD1,
        RES2,
        DEV_MAP2,
        [("con0", ER, "container-0-request-0"), ("con0", ER + "1", "container-0-request-1")],
    ),
    "one container, one explicit and one implicit request": (
        POD1_INIT_IMPLICIT,
        RES_INIT_IMPLICIT,
        DEV_MAP_INIT,
        [
            ("init-con0", IMPLICIT, "container-0-request-0"),
            ("init-con0", ER + "init", "container-0-request-1"),
        ],
    ),
    "two containers, two requests": (
        POD2,
        RES2,
        DEV_MAP2,
        [("con0", ER, "container-0-request-0"), ("con1", ER + "1", "container-1-request-0")],
    ),
    "one init container, one regular container, one request": (
        POD_INIT,
        RES_INIT,
        DEV_MAP_INIT,
        [("init-con0", ER + "init", "container-0-request-0"), ("con0", ER, "container-1-request-0")],
    ),
    "three containers (two are init container), two requests": (
        POD_INIT2,
        RES_INIT,
        DEV_MAP_INIT,
        [
            ("init-con0", ER + "init", "container-1-request-0"),
            ("init-con1", ER + "init", "container-1-request-0"),
            ("con0", ER, "container-2-request-0"),
        ],
    ),
    "three containers (two are init container), both explicit and implicit resources": (
        POD_INIT_IMPLICIT,
        RES_INIT_IMPLICIT,
        DEV_MAP_INIT,
        [
            ("init-con0", ER + "init", "container-0-request-0"),
            ("init-con1", IMPLICIT, "container-1-request-0"),
            ("con0", ER, "container-2-request-0"),
        ],
    ),
    "four containers (two are init container, one sidecar), three requests": (
        POD_INIT3,
        RES_INIT,
        DEV_MAP_INIT,
        [
            ("init-con0", ER + "init", "container-1-request-0"),
            ("sidecar-con1", ER + "init", "container-1-request-0"),
            ("init-con2", ER + "init", "container-2-request-0"),
            ("con0", ER, "container-3-request-0"),
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(MAPPINGS))
def test_mappings(case: str) -> None:
    pod, resources, mapping, want = MAPPINGS[case]
    _, got = requests_and_mappings(pod, resources, resolver(mapping))
    ordered = sorted(((m.request, m.container), (m.container, m.resource, m.request)) for m in got)
    assert [t for _, t in ordered] == want
