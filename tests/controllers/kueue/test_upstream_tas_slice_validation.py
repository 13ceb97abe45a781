"""The slice, multi-layer and group annotation checks, translated from kubernetes-sigs/kueue v0.19.2
``pkg/controller/jobframework/tas_validation_test.go``
(``TestValidateSliceRequiredTopologyConstraintsAnnotation``,
``TestValidateSliceSizeAnnotationUpperBound``), the slice rows of
``pkg/controller/jobs/job/job_webhook_test.go`` (``TestValidateCreate``), and the request a Job's
annotations build (``Build`` in ``pkg/controller/jobframework/tas.go``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.controllers.kueue.tas.request import slice_layers, topology_request, validate

PATH = "spec.template.metadata"
REQ = "kueue.x-k8s.io/podset-required-topology"
UNC = "kueue.x-k8s.io/podset-unconstrained-topology"
PREF = "kueue.x-k8s.io/podset-preferred-topology"
SLICE = "kueue.x-k8s.io/podset-slice-required-topology"
SIZE = "kueue.x-k8s.io/podset-slice-size"
LAYERS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
GROUP = "kueue.x-k8s.io/podset-group-name"
A = f"{PATH}.annotations"
RACK16_HOST4 = '[{"topology":"cloud.com/rack","size":16},{"topology":"kubernetes.io/hostname","size":4}]'
RACK16_HOST5 = '[{"topology":"cloud.com/rack","size":16},{"topology":"kubernetes.io/hostname","size":5}]'

# TestValidateSliceRequiredTopologyConstraintsAnnotation: (annotations, gate, number of errors)
CONSTRAINT_ROWS = {
    "valid: single constraint layer": ({LAYERS: '[{"topology":"cloud.com/rack","size":16}]'}, True, 0),
    "valid: two constraint layers": ({LAYERS: RACK16_HOST4}, True, 0),
    "valid: three constraint layers": (
        {
            LAYERS: '[{"topology":"cloud.com/rack","size":16},{"topology":"cloud.com/sub-rack","size":4},'
            '{"topology":"kubernetes.io/hostname","size":2}]'
        },
        True,
        0,
    ),
    "invalid: not valid JSON": ({LAYERS: "invalid-json"}, True, 1),
    "invalid: empty array": ({LAYERS: "[]"}, True, 1),
    "invalid: more than 3 entries": (
        {
            LAYERS: '[{"topology":"a","size":64},{"topology":"b","size":16},{"topology":"c","size":4},'
            '{"topology":"d","size":1}]'
        },
        True,
        1,
    ),
    "invalid: size less than 1": ({LAYERS: '[{"topology":"cloud.com/rack","size":0}]'}, True, 1),
    "invalid: size does not divide parent": ({LAYERS: RACK16_HOST5}, True, 1),
    "invalid: mutual exclusivity with podset-slice-required-topology": (
        {SLICE: "cloud.com/rack", SIZE: "16", LAYERS: '[{"topology":"cloud.com/rack","size":16}]'},
        True,
        2,
    ),
    "invalid: with podset-group-name": (
        {LAYERS: '[{"topology":"cloud.com/rack","size":16}]', GROUP: "group1"},
        True,
        1,
    ),
    "invalid: feature gate disabled": ({LAYERS: '[{"topology":"cloud.com/rack","size":16}]'}, False, 1),
    "invalid: duplicate topology labels": (
        {LAYERS: '[{"topology":"cloud.com/rack","size":16},{"topology":"cloud.com/rack","size":4}]'},
        True,
        1,
    ),
    "invalid: duplicate topology label among three entries": (
        {
            LAYERS: '[{"topology":"cloud.com/rack","size":16},{"topology":"kubernetes.io/hostname","size":4},'
            '{"topology":"cloud.com/rack","size":2}]'
        },
        True,
        1,
    ),
}


@pytest.mark.parametrize("name", sorted(CONSTRAINT_ROWS))
def test_constraints_annotation(name: str) -> None:
    annotations, gate, want = CONSTRAINT_ROWS[name]
    errs = validate({REQ: "cloud.com/block", **annotations}, PATH, multi_layer=gate)
    assert len(errs) == want, [str(e) for e in errs]


@pytest.mark.parametrize(
    ("annotations", "count", "want"),
    [
        ({SIZE: "16", SLICE: "cloud.com/rack"}, 20, 0),
        ({SIZE: "20", SLICE: "cloud.com/rack"}, 16, 1),
        ({LAYERS: RACK16_HOST4}, 20, 0),
        ({LAYERS: RACK16_HOST4}, 10, 1),
    ],
    ids=["size-within", "size-exceeds", "layers-within", "layers-exceed"],
)
def test_slice_size_upper_bound(annotations: dict[str, str], count: int, want: int) -> None:
    """``TestValidateSliceSizeAnnotationUpperBound``."""
    assert len(validate({REQ: "cloud.com/block", **annotations}, PATH, count)) == want


# TestValidateCreate's slice rows (job_webhook_test.go): annotations, parallelism, the errors' text
JOB_ROWS = {
    "valid slice topology request": ({REQ: "cloud.com/block", SLICE: "cloud.com/block", SIZE: "1"}, 1, []),
    "valid topology request - slice-only topology - unconstrained with slices defined": (
        {UNC: "true", SLICE: "cloud.com/block", SIZE: "1"},
        1,
        [],
    ),
    "invalid topology request - slice requested without slice size": (
        {REQ: "cloud.com/block", SLICE: "cloud.com/block"},
        1,
        [f"{A}[{SIZE}]: Required value: must be set when '{SLICE}' is specified"],
    ),
    "invalid topology request - slice size is not a number": (
        {REQ: "cloud.com/block", SLICE: "cloud.com/block", SIZE: "not a number"},
        1,
        [f'{A}[{SIZE}]: Invalid value: "not a number": must be a numeric value'],
    ),
    "invalid topology request - slice size is negative": (
        {REQ: "cloud.com/block", SLICE: "cloud.com/block", SIZE: "-1"},
        1,
        [f'{A}[{SIZE}]: Invalid value: "-1": must be greater than or equal to 1'],
    ),
    "invalid topology request - slice size is zero": (
        {REQ: "cloud.com/block", SLICE: "cloud.com/block", SIZE: "0"},
        1,
        [f'{A}[{SIZE}]: Invalid value: "0": must be greater than or equal to 1'],
    ),
    "invalid topology request - slice size provided without slice topology": (
        {REQ: "cloud.com/block", SIZE: "1"},
        1,
        [f"{A}[{SIZE}]: Forbidden: may not be set when '{SLICE}' is not specified"],
    ),
    "valid topology request - slice-only topology": ({SLICE: "cloud.com/block", SIZE: "1"}, 1, []),
    "invalid slice topology request - slice size larger than number of podsets": (
        {REQ: "cloud.com/block", SLICE: "cloud.com/block", SIZE: "20"},
        4,
        [f'{A}[{SIZE}]: Invalid value: "20": must not be greater than pod set count 4'],
    ),
    # ValidateTASPodSetRequest's group rows (tas_validation.go)
    "group name that is a number": (
        {REQ: "cloud.com/block", GROUP: "42"},
        1,
        [f'{A}[{GROUP}]: Invalid value: "42": must not be a number'],
    ),
    "group name without a required or preferred level": (
        {UNC: "true", GROUP: "g"},
        1,
        [f"{A}[{GROUP}]: Forbidden: may not be set when neither '{PREF}' nor '{REQ}' is specified"],
    ),
    "group name beside slices": (
        {REQ: "cloud.com/block", SLICE: "cloud.com/rack", SIZE: "1", GROUP: "g"},
        1,
        [
            f"{A}[{GROUP}]: Forbidden: may not be set when '{SIZE}' is specified",
            f"{A}[{GROUP}]: Forbidden: may not be set when '{SLICE}' is specified",
        ],
    ),
    "slice level that is not a label name": (
        {REQ: "cloud.com/block", SLICE: "not a label", SIZE: "1"},
        1,
        [
            f'{A}[{SLICE}]: Invalid value: "not a label": name part must consist of alphanumeric characters, '
            "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(JOB_ROWS))
def test_job_webhook_slice_rows(name: str) -> None:
    annotations, count, want = JOB_ROWS[name]
    assert [str(e) for e in validate(annotations, PATH, count)] == want


@pytest.mark.parametrize(
    ("annotations", "want"),
    [
        ({REQ: "b", SLICE: "r", SIZE: "4"}, (("r", 4),)),
        ({SLICE: "r", SIZE: "4"}, (("r", 4),)),
        ({REQ: "b", SLICE: "r"}, ()),  # the pair only
        ({REQ: "b", LAYERS: '[{"topology":"r","size":4},{"topology":"h","size":2}]'}, (("r", 4), ("h", 2))),
        ({REQ: "b", LAYERS: '[{"topology":"r","size":4}]', SLICE: "x", SIZE: "2"}, (("r", 4),)),
    ],
)
def test_request_built_from_annotations(
    annotations: dict[str, str], want: tuple[tuple[str, int], ...]
) -> None:
    """``Build``: a slice layer alone makes a request; the constraints win over the pair."""
    tr = topology_request(annotations, None)
    assert tr is not None and slice_layers(tr) == want


def test_group_name_kept_only_beside_a_level() -> None:
    tr = topology_request({REQ: "b", GROUP: "g"}, None)
    assert tr is not None and tr.pod_set_group_name == "g"
    tr = topology_request({UNC: "true", GROUP: "g"}, None)
    assert tr is not None and tr.pod_set_group_name is None


def test_constraints_ignored_without_the_gate() -> None:
    tr = topology_request({REQ: "b", LAYERS: '[{"topology":"r","size":4}]'}, None, multi_layer=False)
    assert tr is not None and slice_layers(tr) == ()


@given(st.text(max_size=40))
def test_any_constraints_text_is_answered_without_raising(text: str) -> None:
    """Bad input gets field errors, never an exception."""
    errs = validate({REQ: "b", LAYERS: text}, PATH, 8)
    assert all(str(e).startswith(f"{A}[") for e in errs)
