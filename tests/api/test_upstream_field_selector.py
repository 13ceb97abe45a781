"""Cases of upstream's field-selector table, ported one by one (k8s.io/apimachinery at commit
eed236ce, the 1.37 tree, ``pkg/fields/selector_test.go``). Each test names the upstream test it
follows; strings are upstream's. Selectors are parsed as a ``?fieldSelector=`` / ``--field-selector``
value is (``parse_field_selector``); the splitting helpers are kbatch's ``splitTerms``/``splitTerm``.

Not translated: TestRequiresExactMatch and TestTransform (no kbatch counterpart: the label
conversion is :func:`check_field_selector`, tested at the end against each kind's conversion
function), TestSetIsEmpty's Go term types.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import ConfigMap, Namespace, Node, Pod
from kbatch.api.errors import BadRequest
from kbatch.api.kueue_v1beta2.queues import ClusterQueue, LocalQueue
from kbatch.api.resource_v1.slice import ResourceSlice
from kbatch.api.selectors import (
    _escape,
    _split_term,
    _split_terms,
    _unescape,
    check_field_selector,
    field_values,
    parse_field_selector,
)


# TestSplitTerms
@pytest.mark.parametrize(("text", "terms"), [
    ("a", ["a"]), ("a=avalue", ["a=avalue"]), ("a=avalue,b=bvalue", ["a=avalue", "b=bvalue"]),
    ("a=avalue,b==bvalue,c!=cvalue", ["a=avalue", "b==bvalue", "c!=cvalue"]),
    ("a=a,", ["a=a", ""]), (",a=a", ["", "a=a"]),
    (r"k=\,,k2=v2", [r"k=\,", "k2=v2"]), (r"k=\\,k2=v2", [r"k=\\", "k2=v2"]),
    (r"k=\\\,,k2=v2", [r"k=\\\,", "k2=v2"]), (r"k=\a\b" + "\\", [r"k=\a\b" + "\\"]),
    ("k=\\", ["k=\\"]), ("함=수,목=록", ["함=수", "목=록"]),
])
def test_split_terms(text: str, terms: list[str]) -> None:
    assert _split_terms(text) == terms


# TestSplitTerm (upstream's "==" term is a hasTerm, printed "="; kbatch keeps that operator)
@pytest.mark.parametrize(("term", "split"), [
    ("a=value", ("a", "=", "value")), ("b==value", ("b", "=", "value")), ("c!=value", ("c", "!=", "value")),
    ("", None), ("a", None),
    (r"k=\,", ("k", "=", r"\,")), (r"k=\=", ("k", "=", r"\=")),
    (r"k=\\\a\b\=\," + "\\", ("k", "=", r"\\\a\b\=\," + "\\")),
    ("함=수", ("함", "=", "수")),
])
def test_split_term(term: str, split: tuple[str, str, str] | None) -> None:
    assert _split_term(term) == split


# TestEscapeValue
@pytest.mark.parametrize(("raw", "escaped"), [
    ("", ""), ("a", "a"), ("=", r"\="), (",", r"\,"), ("\\", "\\\\"), (r"\=\," + "\\", r"\\\=\\\,\\"),
])
def test_escape_value(raw: str, escaped: str) -> None:
    assert _escape(raw) == escaped
    assert _unescape(escaped) == raw


@pytest.mark.parametrize(("escaped", "message"), [
    ("\\", "invalid field selector: invalid escape sequence: \\"),
    ("\\\\\\", "invalid field selector: invalid escape sequence: \\"),
    (r"\a", r"invalid field selector: invalid escape sequence: \a"),
])
def test_unescape_invalid(escaped: str, message: str) -> None:
    with pytest.raises(ValueError) as err:
        _unescape(escaped)
    assert str(err.value) == message


# TestSelectorParse
@pytest.mark.parametrize("text", ["x=a,y=b,z=c", "", "x!=a,y=b", r"x=a||y\=b", r"x=a\=\=b"])
def test_selector_parse_good(text: str) -> None:
    assert str(parse_field_selector(text)) == text


@pytest.mark.parametrize(("text", "message"), [
    # a bare "=" or "," left in a value: UnescapedRune, whose %v prints the rune's code
    ("x=a||y=b", "invalid field selector: unescaped character in value: 61"),
    ("x==a==b", "invalid field selector: unescaped character in value: 61"),
    ("x=a,b", "invalid selector: 'x=a,b'; can't understand 'b'"),
    ("x in (a)", "invalid selector: 'x in (a)'; can't understand 'x in (a)'"),
    ("x in (a,b,c)", "invalid selector: 'x in (a,b,c)'; can't understand 'b'"),
    ("x", "invalid selector: 'x'; can't understand 'x'"),
])
def test_selector_parse_bad(text: str, message: str) -> None:
    with pytest.raises(BadRequest) as err:
        parse_field_selector(text)
    assert err.value.message == message


def test_deterministic_parse() -> None:
    # parseSelector sorts the terms (as strings) before it parses them
    assert str(parse_field_selector("x=a,a=x")) == str(parse_field_selector("a=x,x=a")) == "a=x,x=a"


def test_everything() -> None:
    assert parse_field_selector("").empty and parse_field_selector("").matches({"x": "y"})


FIELDSET = {"foo": "bar", "baz": "blah", "complex": "=value\\,\\"}


# TestSelectorMatches
@pytest.mark.parametrize(("text", "fields", "want"), [
    ("", {"x": "y"}, True), ("x=y", {"x": "y"}, True), ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True), ("notin=in", {"notin": "in"}, True),
    ("x=y", {"x": "z"}, False), ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
    ("foo=bar", FIELDSET, True), ("baz=blah", FIELDSET, True), ("foo=bar,baz=blah", FIELDSET, True),
    (r"foo=bar,baz=blah,complex=\=value\\\,\\", FIELDSET, True),
    ("foo=blah", FIELDSET, False), ("baz=bar", FIELDSET, False),
    ("foo=bar,foobar=bar,baz=blah", FIELDSET, False),
])
def test_selector_matches(text: str, fields: dict[str, str], want: bool) -> None:
    assert parse_field_selector(text).matches(fields) is want


def test_double_equals_prints_as_equals() -> None:
    # "==" builds the same hasTerm as "=", whose String() is field=value
    assert str(parse_field_selector("b==value")) == "b=value"


def test_field_name_is_not_unescaped() -> None:
    # splitTerm cuts at the first operator, escaped or not; only the value is unescaped
    assert str(parse_field_selector(r"a\,b=c")) == r"a\,b=c"
    assert parse_field_selector(r"a\,b=c").fields == (r"a\,b",)
    with pytest.raises(BadRequest) as err:
        parse_field_selector(r"a\=b=c")  # lhs "a\", value "b=c"
    assert err.value.message == "invalid field selector: unescaped character in value: 61"


_value = st.text(alphabet="ab,=\\!x ", max_size=6)


@given(st.lists(st.tuples(st.sampled_from(["metadata.name", "spec.nodeName", "status.phase"]),
                          st.sampled_from(["=", "==", "!="]), _value), max_size=4))
def test_parse_of_print_is_the_same_selector(terms: list[tuple[str, str, str]]) -> None:
    text = ",".join(f + op + _escape(v) for f, op, v in terms)
    selector = parse_field_selector(text)
    reparsed = parse_field_selector(str(selector))  # the same terms; sorting may reorder equal fields
    assert sorted(map(str, reparsed.requirements)) == sorted(map(str, selector.requirements))
    want = sorted((f, "!=" if op == "!=" else "=", v) for f, op, v in terms)
    assert sorted((r.field, r.operator, r.value) for r in selector.requirements) == want


# ---- field label conversion per kind (kubernetes pkg/apis/core/v1/conversion.go,
# pkg/apis/batch/v1/conversion.go, pkg/apis/resource/v1/conversion.go, apimachinery
# runtime.DefaultMetaV1FieldSelectorConversion, apiextensions-apiserver crConverter) -----------------

def _refusal(model: type, text: str, custom_resource: bool = False) -> str:
    with pytest.raises(BadRequest) as err:
        check_field_selector(parse_field_selector(text), model.api_info, custom_resource=custom_resource)
    return err.value.message


@pytest.mark.parametrize(("model", "text", "custom", "message"), [
    (Pod, "spec.size=1", False, "field label not supported: spec.size"),
    (Node, "metadata.namespace=a", False, "field label not supported: metadata.namespace"),
    (Namespace, "metadata.namespace=a", False, "field label not supported: metadata.namespace"),
    (Job, "spec.parallelism=1", False, 'field label "spec.parallelism" not supported for batchv1.Job'),
    (ResourceSlice, "metadata.namespace=a", False,
     "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: metadata.namespace"),
    (ConfigMap, "data.x=1", False,
     '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    (ClusterQueue, "metadata.namespace=a", True, "field label not supported: metadata.namespace"),
    (LocalQueue, "spec.clusterQueue=a", True, "field label not supported: spec.clusterQueue"),
])
def test_unsupported_field_label_is_the_kinds_conversion_error(model: type, text: str, custom: bool,
                                                               message: str) -> None:
    assert _refusal(model, text, custom) == message


@pytest.mark.parametrize(("model", "text", "custom"), [
    (Pod, "spec.host=n1,status.podIPs=", False), (Node, "metadata.name=n", False),
    (ConfigMap, "metadata.namespace=a", False), (LocalQueue, "metadata.namespace=a", True),
    (Job, "metadata.namespace=a,status.successful=1", False),
])
def test_supported_field_labels(model: type, text: str, custom: bool) -> None:
    check_field_selector(parse_field_selector(text), model.api_info, custom_resource=custom)


def test_pod_spec_host_is_spec_node_name_and_pod_ips_is_never_set() -> None:
    # "spec.host" converts to spec.nodeName; "status.podIPs" is accepted but absent from the pod's
    # field set (pkg/registry/core/pod/strategy.go ToSelectableFields), so it reads ""
    pod = Pod.model_validate({"metadata": {"name": "p", "namespace": "d"}, "spec": {"nodeName": "n1"},
                              "status": {"podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}]}})
    fields = field_values(pod, ["spec.host", "status.podIPs"])
    assert fields == {"spec.host": "n1", "status.podIPs": ""}
    assert parse_field_selector("spec.host=n1,status.podIPs=").matches(fields)
