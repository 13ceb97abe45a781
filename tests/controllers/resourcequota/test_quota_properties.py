"""Properties of quota admission and the controller's recount (plugin/pkg/admission/resourcequota
``CheckRequest``: an admitted create never takes ``status.used`` past ``status.hard``; the
controller's ``CalculateUsage`` agrees with what admission charged)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod, ResourceQuota
from kbatch.api.errors import Forbidden
from kbatch.api.quantity import Quantity
from kbatch.runtime.controlplane import ControlPlane

HARD = {"pods": "3", "requests.cpu": "2"}


def _pod(i: int, millis: int) -> Pod:
    return Pod.model_validate({"metadata": {"name": f"p{i}", "namespace": "default"}, "spec": {"containers": [
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": f"{millis}m"}}}]}})


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=1500), max_size=8))
def test_admitted_creates_stay_within_hard_and_match_the_recount(requests: list[int]) -> None:
    cp = ControlPlane(seed=0, controllers="resourcequota")
    cp.client.create(ResourceQuota.model_validate({"metadata": {"name": "q", "namespace": "default"},
                                                   "spec": {"hard": HARD}}))
    cp.run_until_idle()
    admitted: list[int] = []
    for i, millis in enumerate(requests):
        try:
            cp.client.create(_pod(i, millis))
            admitted.append(millis)
        except Forbidden as err:
            assert "exceeded quota: q" in err.status.message
            assert len(admitted) == 3 or sum(admitted) + millis > 2000
        used = cp.client.get(ResourceQuota, "q", "default").status.used  # type: ignore[union-attr]
        assert used["pods"].cmp(Quantity(3)) <= 0 and used["requests.cpu"].cmp(Quantity(2)) <= 0
    charged = cp.client.get(ResourceQuota, "q", "default").status.used  # type: ignore[union-attr]
    cp.client.create(ResourceQuota.model_validate({"metadata": {"name": "later", "namespace": "default"},
                                                   "spec": {"hard": HARD}}))
    cp.run_until_idle()
    recount = cp.client.get(ResourceQuota, "later", "default").status.used  # type: ignore[union-attr]
    expected = {"pods": Quantity(len(admitted)), "requests.cpu": Quantity.milli(sum(admitted))}
    assert recount == charged == expected
