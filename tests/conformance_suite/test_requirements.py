"""Requirement markers against target capabilities: a check runs exactly where every requirement
holds, and is otherwise skipped with one reason per unmet requirement."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import requirements
from conformance.requirements import REQUIREMENTS, Requirement, excluded, needed, register, unmet
from conformance.target import CAPABILITIES, KUBELET, VIRTUAL_CLOCK

markers = st.lists(st.sampled_from(sorted(REQUIREMENTS)) | st.sampled_from(["semantic", "parametrize"]),
                   max_size=6)
capability_sets = st.frozensets(st.sampled_from(CAPABILITIES))


@given(markers, capability_sets)
def test_unmet_lists_exactly_the_requirements_that_do_not_hold(names, caps):
    known = sorted({m for m in names if m in REQUIREMENTS})
    failing = [REQUIREMENTS[m] for m in known
               if not (REQUIREMENTS[m].needs <= caps) or REQUIREMENTS[m].excludes & caps]
    assert unmet(names, caps) == [r.reason for r in failing]
    assert all(r.reason for r in failing)  # a skip always says why


@given(markers)
def test_needed_and_excluded_are_the_sorted_unions(names):
    known = [REQUIREMENTS[m] for m in names if m in REQUIREMENTS]
    assert needed(names) == sorted({c for r in known for c in r.needs})
    assert excluded(names) == sorted({c for r in known for c in r.excludes})
    assert not unmet(names, frozenset(needed(names))) or set(needed(names)) & set(excluded(names))


def test_the_documented_skips():
    assert unmet(["needs_virtual_clock", "plays_kubelet"], frozenset({KUBELET})) == [
        "needs a virtual clock (the check jumps time); this target's time is real",
        "plays the kubelet (patches pod status), but a kubelet runs this target's pods"]
    assert unmet(["runs_pods"], frozenset({VIRTUAL_CLOCK})) == [REQUIREMENTS["runs_pods"].reason]
    assert unmet(["api_validation"], frozenset()) == []


def test_a_family_registers_its_own_marker_once(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(requirements, "REQUIREMENTS", dict(REQUIREMENTS))
    gang = Requirement(needs=frozenset({"gang-scheduler"}), reason="needs a gang scheduler")
    register("needs_gang_scheduler", gang)
    register("needs_gang_scheduler", gang)  # the same again is fine
    assert requirements.unmet(["needs_gang_scheduler"], frozenset({KUBELET})) == ["needs a gang scheduler"]
    with pytest.raises(ValueError, match="already registered"):
        register("needs_gang_scheduler", Requirement(reason="something else"))
