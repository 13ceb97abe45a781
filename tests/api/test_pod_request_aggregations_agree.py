"""The two pod-request aggregations agree: quota's (exact ``Quantity``) and the scheduler's (ints).

Both are upstream's ``PodRequests`` (kubernetes ``staging/src/k8s.io/component-helpers/resource/
helpers.go``: containers and sidecars summed, the init containers' peak, pod-level requests replacing
cpu/memory/hugepages, overhead on top). They are kept apart on purpose: the scheduler's
:func:`kbatch.api.pod_resources.pod_requests` runs on plain ints on its hot path, while
:func:`kbatch.api.quota_usage.pod_totals` must keep ``Quantity`` values (a quota's ``status.used``
keeps the amounts' own format, ``1Gi`` stays ``1Gi``) and also sums limits (``PodLimits``). This
property holds them to one rule. Amounts are whole units (cpu in millicores) so the scheduler's
per-container rounding up is exact.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.quota_usage import pod_totals
from kbatch.controllers.scheduler.convert import pod_info

_NAMES = st.sampled_from(["cpu", "memory", "example.com/gpu", "hugepages-2Mi", "ephemeral-storage"])


def _text(name: str, n: int) -> str:
    return f"{n}m" if name == "cpu" else str(n)


_AMOUNTS = st.dictionaries(_NAMES, st.integers(0, 5000), max_size=4).map(
    lambda d: {k: _text(k, v) for k, v in sorted(d.items())})
_POD_LEVEL = st.dictionaries(st.sampled_from(["cpu", "memory", "hugepages-2Mi"]), st.integers(0, 5000),
                             max_size=2).map(lambda d: {k: _text(k, v) for k, v in sorted(d.items())})


def _container(name: str, requests: dict[str, str], sidecar: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "image": "i", "resources": {"requests": requests}}
    if sidecar:
        out["restartPolicy"] = "Always"
    return out


@st.composite
def _pods(draw: st.DrawFn) -> Pod:
    containers = [_container(f"c{i}", r) for i, r in enumerate(draw(st.lists(_AMOUNTS, min_size=1,
                                                                               max_size=3)))]
    inits = [_container(f"i{i}", r, s) for i, (r, s) in
             enumerate(draw(st.lists(st.tuples(_AMOUNTS, st.booleans()), max_size=3)))]
    spec: dict[str, Any] = {"containers": containers, "initContainers": inits}
    level = draw(_POD_LEVEL)
    if level:
        spec["resources"] = {"requests": level}
    overhead = draw(st.dictionaries(st.sampled_from(["cpu", "memory"]), st.integers(0, 500), max_size=2))
    if overhead:
        spec["overhead"] = {k: _text(k, v) for k, v in sorted(overhead.items())}
    return Pod.model_validate({"metadata": {"name": "p", "namespace": "default"}, "spec": spec})


@settings(max_examples=300, deadline=None)
@given(_pods())
def test_quota_and_scheduler_sum_a_pods_requests_alike(pod: Pod) -> None:
    quota = {name: q.milli_value() if name == "cpu" else q.value()
             for name, q in pod_totals(pod, False).items()}
    assert {k: v for k, v in quota.items() if v} == pod_info(pod).requests
