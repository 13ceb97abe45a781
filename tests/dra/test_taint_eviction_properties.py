"""Properties of the device taint eviction decision (:mod:`kbatch.controllers.dra.devicetainteviction.sync`,
upstream ``claimEvictionTime``): it does not depend on the order of taints or tolerations, a
NoExecute ``Exists`` toleration without seconds prevents every eviction, and an eviction is never
earlier than the earliest untolerated taint's ``timeAdded``."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.resource_v1 import DeviceTaint, DeviceToleration
from kbatch.controllers.dra.devicetainteviction.sync import TaintSource, device_eviction

KEYS = st.sampled_from(["a", "b"])
EFFECTS = st.sampled_from(["NoExecute", "NoSchedule", "None"])

taints = st.builds(
    lambda k, v, e, t, rule: TaintSource(DeviceTaint(key=k, value=v, effect=e), float(t), rule),
    KEYS,
    st.sampled_from(["x", "y", None]),
    EFFECTS,
    st.integers(0, 100),
    st.sampled_from([None, ("r1", "u1"), ("r2", "u2")]),
)
tolerations = st.builds(
    DeviceToleration,
    key=st.sampled_from(["a", "b", None]),
    operator=st.sampled_from(["Equal", "Exists"]),
    value=st.sampled_from(["x", "y", None]),
    effect=st.sampled_from(["NoExecute", "NoSchedule", None]),
    toleration_seconds=st.sampled_from([None, -5, 0, 10, 60]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(taints, max_size=5), st.lists(tolerations, max_size=4), st.randoms(use_true_random=False))
def test_the_decision_does_not_depend_on_order(
    sources: list[TaintSource], tols: list[DeviceToleration], rnd: random.Random
) -> None:
    shuffled_sources, shuffled_tols = list(sources), list(tols)
    rnd.shuffle(shuffled_sources)
    rnd.shuffle(shuffled_tols)
    assert device_eviction(sources, tols) == device_eviction(shuffled_sources, shuffled_tols)


@settings(max_examples=200, deadline=None)
@given(st.lists(taints, max_size=5), st.lists(tolerations, max_size=4))
def test_tolerating_everything_for_ever_evicts_nobody(
    sources: list[TaintSource], tols: list[DeviceToleration]
) -> None:
    forever = DeviceToleration(operator="Exists", effect="NoExecute")
    assert device_eviction(sources, [*tols, forever]) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(taints, max_size=5), st.lists(tolerations, max_size=4))
def test_never_before_the_earliest_no_execute_taint(
    sources: list[TaintSource], tols: list[DeviceToleration]
) -> None:
    found = device_eviction(sources, tols)
    no_execute = [s for s in sources if s.taint.effect == "NoExecute"]
    if found is None:
        return
    assert found.when >= min(s.added or 0.0 for s in no_execute)
    assert found.rules <= {s.rule for s in no_execute if s.rule is not None}
