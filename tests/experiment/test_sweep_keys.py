"""Sweep parameters inside mapping keys: a feature gate, a label key, a workload's own ``${i}`` in a key;
two keys that become one are refused with the field path; substitution is a pure function."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.experiment import ExperimentError, load_plan
from kbatch.experiment.generators import render
from kbatch.experiment.sweep import substitute
from tests.experiment.test_plan import doc


def test_a_feature_gate_named_by_the_sweep() -> None:
    d = doc(sweep={"gate": ["JobPodReplacementPolicy", "JobManagedBy"]},
            featureGates={"${gate}": False})
    plan = load_plan(d)
    assert [p.experiment.spec.feature_gates for p in plan.points] == [
        {"JobPodReplacementPolicy": False}, {"JobManagedBy": False}]


def test_keys_take_parameters_inside_text_and_numbers_as_text() -> None:
    out = substitute({"team-${t}": {"${n}": "${n}"}, "plain": 1}, {"t": "a", "n": 8})
    assert out == {"team-a": {"8": 8}, "plain": 1}


def test_a_template_key_takes_the_workload_index() -> None:
    d = doc(sweep={"key": ["team"]})
    metadata = {"name": "${name}", "labels": {"${key}": "slot-${i}"}, "annotations": {"note/${i}": "x"}}
    d["spec"]["workloads"][0]["template"] = {**d["spec"]["workloads"][0]["template"], "metadata": metadata}
    generator = load_plan(d).points[0].experiment.spec.workloads[0]
    [manifest] = render(generator, 2)
    assert manifest["metadata"]["labels"] == {"team": "slot-2"}
    assert manifest["metadata"]["annotations"] == {"note/2": "x"}


def test_keys_that_become_one_are_refused() -> None:
    d = doc(sweep={"a": ["x"]})
    d["spec"]["nodes"][0]["labels"] = {"${a}": "1", "x": "2"}
    with pytest.raises(ExperimentError) as err:
        load_plan(d)
    assert err.value.path == "spec.nodes[0].labels" and 'duplicate key "x"' in err.value.message


def test_an_unknown_parameter_in_a_key_names_the_key() -> None:
    with pytest.raises(ExperimentError) as err:
        substitute({"spec": {"${nope}": 1}}, {"a": 1})
    assert err.value.path == "spec.${nope}" and "nope" in err.value.message


KEYS = st.text(st.sampled_from("ab-${}x"), max_size=8)


@given(st.dictionaries(KEYS, st.integers(), max_size=6), st.sampled_from(["v", "w", 3]))
def test_substitution_is_pure_and_keeps_unaffected_keys(mapping: dict[str, Any], value: Any) -> None:
    try:
        first = substitute(mapping, {"x": value})
    except ExperimentError:
        with pytest.raises(ExperimentError):
            substitute(mapping, {"x": value})
        return
    assert first == substitute(mapping, {"x": value})
    assert all(k in first and first[k] == v for k, v in mapping.items() if "${" not in k)
    assert sorted(first.values()) == sorted(mapping.values())
