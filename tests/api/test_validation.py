"""Generic validators: exact upstream messages (apimachinery pkg/util/validation, objectmeta.go)."""

from __future__ import annotations

from datetime import UTC, datetime
from unittest.mock import patch

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import ResourceClaim, ResourceRequirements
from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.meta import LabelSelector, LabelSelectorRequirement, ObjectMeta, OwnerReference
from kbatch.api.quantity import Quantity
from kbatch.api.validation import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_extended_resource_name,
    is_qualified_name,
    is_valid_label_value,
    validate_annotations,
    validate_finalizers,
    validate_label_selector,
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
    validate_resource_requirements,
)

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
QNAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def strs(errors: list) -> list[str]:
    return [str(e) for e in errors]


def test_name_formats() -> None:
    assert is_dns1123_subdomain("a.b-c") == []
    assert is_dns1123_subdomain("Foo") == [SUBDOMAIN_MSG]
    assert is_dns1123_subdomain("a" * 254) == ["must be no more than 253 characters"]
    assert is_dns1123_label("a.b") == ["must not contain dots"]
    assert is_dns1123_label("-a") == [LABEL_MSG]
    assert is_dns1035_label("1a") and not is_dns1035_label("a1")
    assert is_qualified_name("example.com/My_Name.1") == []
    assert is_qualified_name("bad/") == ["name part must be non-empty", QNAME_MSG]
    assert is_qualified_name("/x") == ["prefix part must be non-empty"]
    assert is_qualified_name("a" * 64) == ["name part must be no more than 63 bytes"]  # content.MaxLenError
    assert is_qualified_name("a/b/c")[0].startswith("a valid label key must consist of")
    assert is_valid_label_value("") == []
    assert is_valid_label_value("-x")[0].startswith("a valid label must be an empty string or consist")


def test_object_meta_messages() -> None:
    errs = strs(validate_object_meta(ObjectMeta(), namespaced=True))
    assert errs == [
        "metadata.name: Required value: name or generateName is required",
        "metadata.namespace: Required value",
    ]
    errs = strs(validate_object_meta(ObjectMeta(name="Bad_Name", namespace="ns"), namespaced=False))
    assert errs == [
        f'metadata.name: Invalid value: "Bad_Name": {SUBDOMAIN_MSG}',
        "metadata.namespace: Forbidden: not allowed on this type",
    ]
    assert validate_object_meta(ObjectMeta(name="x", generate_name="x-"), namespaced=False) == []


def test_object_meta_owner_references_and_finalizers() -> None:
    refs = [
        OwnerReference(api_version="batch/v1", kind="Job", name="a", uid="1", controller=True),
        OwnerReference(api_version="", kind="", name="", uid="", controller=True),
    ]
    meta = ObjectMeta(name="x", owner_references=refs, finalizers=["orphan", "foregroundDeletion", "a/b/c"])
    errs = strs(validate_object_meta(meta, namespaced=False))
    assert 'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty' in errs
    assert 'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty' in errs
    assert any(
        e.endswith(
            'Only one reference can have Controller set to true. Found "true" in references for Job/a and /'
        )
        for e in errs
    )
    assert any(e.endswith("finalizer orphan and foregroundDeletion cannot be both set") for e in errs)
    assert any(e.startswith('metadata.finalizers: Invalid value: "a/b/c"') for e in errs)


def test_labels_and_annotations() -> None:
    meta = ObjectMeta(name="x", labels={"ok": "-bad"}, annotations={"a": "x" * (256 * 1024)})
    errs = strs(validate_object_meta(meta, namespaced=False))
    assert errs[0].startswith('metadata.labels: Invalid value: "-bad": a valid label must be')
    assert errs[1] == "metadata.annotations: Too long: may not be more than 262144 bytes"


def test_object_meta_update() -> None:
    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    old = ObjectMeta(
        name="a",
        namespace="n",
        uid="1",
        resource_version="5",
        generation=2,
        creation_timestamp=t0,
        deletion_timestamp=t0,
        finalizers=["x/y"],
    )
    new = old.model_copy(update={"name": "b", "uid": "2", "generation": 1, "finalizers": ["x/y", "x/z"]})
    errs = strs(validate_object_meta_update(new, old))
    assert errs == [
        "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, "
        'found new finalizers []string{"x/z"}',
        "metadata.generation: Invalid value: 1: must not be decremented",
        'metadata.name: Invalid value: "b": field is immutable',
        'metadata.uid: Invalid value: "2": field is immutable',
    ]


def test_label_selector() -> None:
    sel = LabelSelector(
        match_labels={"a": "b"},
        match_expressions=[
            LabelSelectorRequirement(key="k", operator="In"),
            LabelSelectorRequirement(key="k", operator="Exists", values=["v"]),
            LabelSelectorRequirement(key="k", operator="Near", values=["-v"]),
        ],
    )
    assert strs(validate_label_selector(sel, "spec.selector")) == [
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is "
        "'In' or 'NotIn'",
        "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is "
        "'Exists' or 'DoesNotExist'",
        'spec.selector.matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator',
        'spec.selector.matchExpressions[2].values[0]: Invalid value: "-v": a valid label must be an empty '
        "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]


def q(text: str) -> Quantity:
    return Quantity.parse(text)


@pytest.mark.parametrize(
    ("requests", "limits", "want"),
    [
        (
            {"cpu": "2"},
            {"cpu": "1"},
            ['r.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
        ),
        ({"cpu": "-1"}, None, ['r.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0']),
        (
            {"example.com/gpu": "500m"},
            {"example.com/gpu": "500m"},
            [
                'r.limits[example.com/gpu]: Invalid value: "500m": must be an integer',
                'r.requests[example.com/gpu]: Invalid value: "500m": must be an integer',
            ],
        ),
        (
            {"example.com/gpu": "1"},
            None,
            ["r.limits: Required value: Limit must be set for non overcommitable resources"],
        ),
        (
            {"example.com/gpu": "1"},
            {"example.com/gpu": "2"},
            ['r.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2'],
        ),
        (
            {"pods": "1"},
            None,
            ['r.requests[pods]: Invalid value: "pods": must be a standard resource for containers'],
        ),
        (
            {"foo": "1"},
            None,
            [
                'r.requests[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
                'r.requests[foo]: Invalid value: "foo": must be a standard resource for containers',
            ],
        ),
        (
            {"hugepages-2Mi": "2Mi"},
            {"hugepages-2Mi": "2Mi"},
            ["r: Forbidden: HugePages require cpu or memory"],
        ),
        ({"cpu": "500m", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"}, []),
    ],
)
def test_resource_requirements(requests: dict | None, limits: dict | None, want: list[str]) -> None:
    res = ResourceRequirements(
        requests={k: q(v) for k, v in (requests or {}).items()} or None,
        limits={k: q(v) for k, v in (limits or {}).items()} or None,
    )
    assert strs(validate_resource_requirements(res, "r")) == want


def test_resource_claims_must_name_pod_claims() -> None:
    res = ResourceRequirements(claims=[ResourceClaim(name="gpu"), ResourceClaim(name="gpu"), ResourceClaim()])
    errs = validate_resource_requirements(res, "r", pod_claim_names={"nic"})
    assert [e.type for e in errs] == [
        FieldErrorType.NOT_FOUND,
        FieldErrorType.DUPLICATE,
        FieldErrorType.NOT_FOUND,
        FieldErrorType.REQUIRED,
    ]
    assert (
        str(errs[0])
        == 'r.claims[0]: Not found: "gpu": must be one of the names in pod.spec.resourceClaims: nic'
    )


def test_extended_resource_names() -> None:
    assert is_extended_resource_name("example.com/gpu")
    assert not is_extended_resource_name("kubernetes.io/foo")
    assert not is_extended_resource_name("cpu")


_LABELS = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?", fullmatch=True)


@given(_LABELS)
def test_valid_labels_are_valid_everywhere(name: str) -> None:
    assert is_dns1123_label(name) == []
    assert is_dns1123_subdomain(name) == []
    assert is_qualified_name(name) == []
    assert is_valid_label_value(name) == []


@given(st.text(min_size=1, max_size=30))
def test_invalid_names_rejected_at_metadata_name(name: str) -> None:
    errs = validate_object_meta(ObjectMeta(name=name), namespaced=False)
    if is_dns1123_subdomain(name):
        assert errs and all(e.field == "metadata.name" for e in errs)
    else:
        assert errs == []


# --- fast paths: validators skip their per-entry walk when every entry is valid -------------------

_MAYBE_NAME = st.one_of(st.sampled_from(["app", "example.com/tier", "a/b/c", "-bad", "", "x" * 64,
                                         "Ok.Name", "/x", "k8s.io/"]),
                        st.text(alphabet="aZ-_./9 ", max_size=8))


@given(entries=st.dictionaries(_MAYBE_NAME, _MAYBE_NAME, max_size=4))
def test_label_and_annotation_fast_paths_report_as_the_full_walk(entries: dict[str, str]) -> None:
    """The sorted per-key walk is skipped only when it would report nothing: same errors, same order."""
    path = "metadata.labels"
    walked = []
    for k in sorted(entries):
        walked += [FieldError.invalid(path, k, m) for m in is_qualified_name(k)]
        walked += [FieldError.invalid(path, entries[k], m) for m in is_valid_label_value(entries[k])]
    assert validate_labels(entries, path) == walked
    annotations = [FieldError.invalid("a", k, m)
                   for k in sorted(entries) for m in is_qualified_name(k.lower())]
    assert validate_annotations(entries, "a") == annotations
    names = list(entries)
    finalizers = [FieldError.invalid("f", n, m) for n in names for m in is_qualified_name(n)]
    assert validate_finalizers(names, "f") == finalizers


_PLAIN_NAMES = ["cpu", "memory", "ephemeral-storage"]
_RESOURCE_NAMES = st.sampled_from(_PLAIN_NAMES) | st.sampled_from([
    *_PLAIN_NAMES, "hugepages-2Mi", "example.com/gpu", "pods", "storage", "kubernetes.io/foo", "Bad_Name",
    "requests.cpu"])
_AMOUNTS = st.sampled_from(["0", "1", "-1", "100m", "1.5", "2Gi", "-100m", "500m", "3"]).map(Quantity.parse)


@settings(max_examples=300)
@example(limits={"cpu": Quantity.parse("1")}, requests={"cpu": Quantity.parse("1.5")}, claims=None)
@example(limits=None, requests={"memory": Quantity.parse("-1")}, claims=None)
@given(limits=st.none() | st.dictionaries(_RESOURCE_NAMES, _AMOUNTS, max_size=3),
       requests=st.none() | st.dictionaries(_RESOURCE_NAMES, _AMOUNTS, max_size=3),
       claims=st.sampled_from([None, [], [ResourceClaim(name="nic")]]))
def test_the_plain_resources_shortcut_reports_what_the_full_walk_does(
        limits: dict[str, Quantity] | None, requests: dict[str, Quantity] | None,
        claims: list[ResourceClaim] | None) -> None:
    res = ResourceRequirements(limits=limits, requests=requests, claims=claims)
    fast = validate_resource_requirements(res, "r", pod_claim_names={"nic"})
    with patch("kbatch.api.validation._plain_resource_names", lambda *_: False):  # always the full walk
        assert validate_resource_requirements(res, "r", pod_claim_names={"nic"}) == fast


@given(st.integers(-3, 3))
def test_object_meta_generation_must_not_be_negative(generation: int) -> None:
    """``ValidateObjectMeta``: a negative generation is reported at metadata.generation, others pass."""
    meta = ObjectMeta(name="a", namespace="ns", generation=generation)
    errs = strs(validate_object_meta(meta, namespaced=True))
    assert errs == ([f'metadata.generation: Invalid value: {generation}: must be greater than or equal to 0']
                    if generation < 0 else [])
