"""A body names fields by their wire (JSON) names only: a Go or Python spelling of a field
(``active_deadline_seconds`` for ``activeDeadlineSeconds``) is an unknown field, refused under
``fieldValidation=Strict`` and dropped with a warning under ``Warn``, as kube-apiserver's decoder
(``sigs.k8s.io/json`` with ``DisallowUnknownFields``; KEP-2885) treats any name the Go struct's json
tags do not declare. kbatch's models take snake_case names in Python code (``validate_by_name``), which
must not leak into decoding."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.base import KubeModel
from kbatch.api.batch_v1 import Job, JobSpec
from kbatch.api.core_v1 import PodSpec
from kbatch.apiserver.decoding import StrictDecodingError, decode_dict

JOB: dict[str, Any] = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
                       "spec": {"template": {"spec": {"restartPolicy": "Never",
                                                      "containers": [{"name": "c", "image": "busybox"}]}}}}


def _spelt_differently(model: type[KubeModel]) -> list[tuple[str, str]]:
    """(Python name, wire name) of each field whose two names differ."""
    return sorted((name, info.alias) for name, info in model.model_fields.items()
                  if info.alias and info.alias != name)


# (where the field sits in JOB, Python name, wire name)
CASES = ([(("spec",), n, a) for n, a in _spelt_differently(JobSpec)]
         + [(("spec", "template", "spec"), n, a) for n, a in _spelt_differently(PodSpec)])


def _with(path: tuple[str, ...], name: str, value: Any) -> dict[str, Any]:
    body = copy.deepcopy(JOB)
    node = body
    for part in path:
        node = node[part]
    node[name] = value
    return body


def test_there_are_cases() -> None:
    assert len(CASES) > 40
    assert (("spec",), "active_deadline_seconds", "activeDeadlineSeconds") in CASES


@given(st.sampled_from(CASES), st.integers(0, 5))
def test_a_python_name_is_an_unknown_field_under_strict(case: tuple[tuple[str, ...], str, str],
                                                        value: int) -> None:
    path, name, _wire = case
    with pytest.raises(StrictDecodingError) as err:
        decode_dict(Job, _with(path, name, value), "Strict")
    assert err.value.message == f'strict decoding error: unknown field "{".".join((*path, name))}"'


@given(st.sampled_from(CASES), st.integers(0, 5))
def test_a_python_name_is_dropped_with_a_warning_under_warn(case: tuple[tuple[str, ...], str, str],
                                                           value: int) -> None:
    path, name, _wire = case
    job, warnings = decode_dict(Job, _with(path, name, value), "Warn")
    assert warnings == [f'unknown field "{".".join((*path, name))}"']
    assert job.to_dict() == decode_dict(Job, JOB)[0].to_dict()  # the value went nowhere, wire name included
