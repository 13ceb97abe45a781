"""Property (hypothesis): however many pods ask for a DRA-backed extended resource, and whatever
other claims hold devices, the special claim of a pod gets exactly the quantity it asked for, and
no device is in two claims' allocations."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
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
