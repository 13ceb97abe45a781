"""Property (hypothesis): however many pods ask for a DRA-backed extended resource, and whatever
other claims hold devices, the special claim of a pod gets exactly the quantity it asked for, and
no device is in two claims' allocations."""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.resource_v1 import ResourceClaim
from kbatch.api.resource_v1.constants import EXTENDED_RESOURCE_CLAIM_ANNOTATION
from tests.dra.test_extended_resources import cluster, pod
from tests.dra.test_lifecycle import gpu_pod


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nodes=st.integers(1, 3),
    gpus=st.integers(1, 4),
    asks=st.lists(st.integers(1, 3), min_size=1, max_size=5),
    template_pods=st.integers(0, 2),
)
def test_special_claims_get_their_quantity_and_share_nothing(
    nodes: int,
    gpus: int,
    asks: list[int],
    template_pods: int,
) -> None:
    cp = cluster(nodes=nodes, gpus=gpus)
    cp.client.create(_template())
    for i in range(template_pods):
        cp.client.create(gpu_pod(f"t{i}", seconds=1000))
    for i, count in enumerate(asks):
        cp.client.create(pod(f"p{i}", count=count))
    cp.run_until_idle()
    claims = cp.client.list(ResourceClaim, "default").items
    seen: set[tuple[str, str, str]] = set()
    for claim in claims:
        allocation = claim.status.allocation if claim.status is not None else None
        for r in allocation.devices.results if allocation is not None else ():
            device = (r.driver, r.pool, r.device)
            assert device not in seen, f"{device} allocated twice"
            seen.add(device)
        if (claim.metadata.annotations or {}).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) == "true":
            owner = claim.metadata.owner_references[0].name
            asked = asks[int(owner[1:])]
            assert allocation is not None and len(allocation.devices.results) == asked
    for i in range(len(asks)):
        got = cp.client.get(Pod, f"p{i}", "default")
        ext = got.status.extended_resource_claim_status
        assert bool(got.spec.node_name) == (ext is not None)
    assert len(seen) <= nodes * gpus


def _template():  # type: ignore[no-untyped-def]
    from kbatch.api.resource_v1 import ResourceClaimTemplate

    return ResourceClaimTemplate.model_validate(
        {
            "metadata": {"name": "one-gpu", "namespace": "default"},
            "spec": {
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}
            },
        }
    )


def _special_claims(cp: Any) -> dict[str, str]:
    """Special claims by name -> the uid of the pod controlling them."""
    out = {}
    for claim in cp.client.list(ResourceClaim, "default").items:
        if (claim.metadata.annotations or {}).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) == "true":
            [owner] = [r for r in claim.metadata.owner_references if r.controller]
            out[claim.metadata.name] = owner.uid
    return out


def _expected(cp: Any) -> dict[str, str]:
    """What the special claims must be: one per pod bound with the resource through DRA."""
    out = {}
    for got in cp.client.list(Pod, "default").items:
        ext = got.status.extended_resource_claim_status
        if got.spec.node_name and ext is not None:
            out[ext.resource_claim_name] = got.metadata.uid
        else:
            assert ext is None, "only a bound pod records a special claim"
    return out


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    gpus=st.integers(1, 4),
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("create"), st.integers(1, 3)),
            st.tuples(st.just("delete"), st.integers(0, 7)),
            st.tuples(st.just("taint"), st.integers(0, 3)),
            st.tuples(st.just("wait"), st.integers(1, 40)),
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_a_special_claim_exists_iff_its_pod_is_bound_with_dra_backed_resources(
    gpus: int, steps: list[tuple[str, int]],
) -> None:
    """Whatever pods come, go, finish or are evicted by a device taint: the special claims are
    exactly those of the bound pods that record one, each controlled by its pod; and none is left
    once the pods are gone."""
    from kbatch.api.resource_v1 import DeviceTaintRule

    cp = cluster(nodes=2, gpus=gpus)
    created = 0
    for verb, n in steps:
        if verb == "create":
            cp.client.create(pod(f"p{created}", count=n))
            created += 1
        elif verb == "delete" and n < created:
            with contextlib.suppress(NotFound):
                cp.client.delete(Pod, f"p{n}", "default")
        elif verb == "taint":
            name = f"t{n}-{len(cp.client.list(DeviceTaintRule).items)}"
            cp.client.create(DeviceTaintRule.model_validate({
                "metadata": {"name": name},
                "spec": {"deviceSelector": {"pool": f"node-{n % 2}", "device": f"gpu-{n}"},
                         "taint": {"key": "broken", "effect": "NoExecute"}}}))
        else:
            cp.advance(n)
        cp.run_until_idle()
        assert _special_claims(cp) == _expected(cp)
    for got in cp.client.list(Pod, "default").items:
        cp.client.delete(Pod, got.metadata.name, "default")
    cp.advance(60)
    assert _special_claims(cp) == {}
