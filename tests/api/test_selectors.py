"""Label and field selectors: grammar, canonical printing, matching, upstream error messages."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.base import ApiInfo
from kbatch.api.errors import BadRequest
from kbatch.api.meta import LabelSelector, LabelSelectorRequirement
from kbatch.api.selectors import (
    NOTHING,
    Requirement,
    Selector,
    check_field_selector,
    parse_field_selector,
    parse_label_selector,
    selector_from_model,
    selector_from_set,
)

PODS = ApiInfo("", "v1", "Pod", "pods", True)
JOBS = ApiInfo("batch", "v1", "Job", "jobs", True)


def test_parse_and_print_every_operator() -> None:
    sel = parse_label_selector("g,a=b,c!=d,e in (y,x),f notin (z),!h,i==j")
    assert str(sel) == "a=b,c!=d,e in (x,y),f notin (z),g,!h,i==j"


@pytest.mark.parametrize(("labels", "want"), [
    ({"a": "b", "e": "x", "g": "1"}, True),
    ({"a": "b", "e": "x", "g": "1", "h": "1"}, False),
    ({"a": "b", "c": "d", "e": "x", "g": "1"}, False),
    ({"a": "b", "e": "w", "g": "1"}, False),
    ({"a": "b", "e": "x"}, False),
    ({"a": "b", "e": "x", "g": "1", "f": "z"}, False),
])
def test_matching(labels: dict[str, str], want: bool) -> None:
    sel = parse_label_selector("a=b,c!=d,e in (x,y),f notin (z),g,!h")
    assert sel.matches(labels) is want


def test_empty_selector_matches_everything_and_nil_model_matches_nothing() -> None:
    assert parse_label_selector("").matches({})
    assert selector_from_model(LabelSelector()).matches({"x": "y"})
    assert selector_from_model(None) is NOTHING
    assert not NOTHING.matches({})


def test_model_conversion() -> None:
    model = LabelSelector(match_labels={"app": "web"}, match_expressions=[
        LabelSelectorRequirement(key="tier", operator="In", values=["a", "b"]),
        LabelSelectorRequirement(key="gone", operator="DoesNotExist"),
    ])
    sel = selector_from_model(model)
    assert str(sel) == "app=web,!gone,tier in (a,b)"
    assert sel.matches({"app": "web", "tier": "b"})
    with pytest.raises(BadRequest, match='"Foo" is not a valid label selector operator'):
        selector_from_model(LabelSelector(match_expressions=[
            LabelSelectorRequirement(key="a", operator="Foo", values=["x"])]))


def test_gt_lt() -> None:
    sel = parse_label_selector("a>3,b<10")
    assert sel.matches({"a": "4", "b": "9"})
    assert not sel.matches({"a": "3", "b": "9"})
    assert not sel.matches({"a": "x", "b": "9"})


@pytest.mark.parametrize(("text", "message"), [
    ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("a=b,", "found '', expected: identifier after ','"),
    (",", "found ',', expected: !, identifier, or 'end of string'"),
    ("a in x", "unable to parse requirement: found 'x' expected: '('"),
    ("a=b c", "found 'c', expected: ',' or 'end of string'"),
    ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
    ("a=b=c", "found '=', expected: ',' or 'end of string'"),
])
def test_syntax_errors_carry_upstream_messages(text: str, message: str) -> None:
    with pytest.raises(BadRequest) as err:
        parse_label_selector(text)
    assert err.value.message == message
    assert err.value.code == 400


def test_invalid_key_and_value_are_rejected() -> None:
    with pytest.raises(BadRequest, match="name part must consist of alphanumeric"):
        parse_label_selector("-a=b")
    with pytest.raises(BadRequest, match="a valid label must be an empty string"):
        parse_label_selector("a=-b")


_name = st.from_regex(r"[a-z0-9]([a-z0-9._-]{0,8}[a-z0-9])?", fullmatch=True)
_key = st.one_of(_name, st.builds(lambda p, n: f"{p}.io/{n}", st.from_regex(r"[a-z]{1,5}", fullmatch=True),
                                  _name))
_value = st.one_of(st.just(""), _name)


@st.composite
def _requirements(draw: st.DrawFn) -> Requirement:
    key = draw(_key)
    op = draw(st.sampled_from(["=", "==", "!=", "in", "notin", "exists", "!"]))
    if op in ("exists", "!"):
        return Requirement(key, op)
    if op in ("in", "notin"):
        return Requirement(key, op, tuple(sorted(set(draw(st.lists(_value, min_size=1, max_size=3))))))
    return Requirement(key, op, (draw(_value),))


@given(st.lists(_requirements(), max_size=5), st.dictionaries(_key, _value, max_size=4))
def test_parse_of_print_is_the_same_selector(reqs: list[Requirement], labels: dict[str, str]) -> None:
    sel = Selector(tuple(sorted(reqs, key=lambda r: r.key)))
    again = parse_label_selector(str(sel))
    assert again == sel
    assert again.matches(labels) == sel.matches(labels) == sel.compile()(labels)
    assert str(parse_label_selector(str(again))) == str(again)


@given(st.dictionaries(_key, _value, max_size=4))
def test_selector_from_set_matches_its_own_labels(labels: dict[str, str]) -> None:
    assert selector_from_set(labels).matches(labels)
    assert selector_from_set(labels).compile()(labels)
    assert selector_from_set(labels).compile()(None) == (not labels)
    assert parse_label_selector(str(selector_from_set(labels))) == selector_from_set(labels)


# --- field selectors -----------------------------------------------------------------------


def test_field_selector_parse_match_print() -> None:
    sel = parse_field_selector("metadata.name=x,status.phase!=Running,spec.nodeName==n1")
    assert str(sel) == "metadata.name=x,spec.nodeName=n1,status.phase!=Running"  # sorted; == is =
    assert sel.matches({"metadata.name": "x", "status.phase": "Pending", "spec.nodeName": "n1"})
    assert not sel.matches({"metadata.name": "x", "status.phase": "Running", "spec.nodeName": "n1"})


def test_field_selector_escapes_round_trip() -> None:
    sel = parse_field_selector(r"metadata.name=a\,b\=c")
    assert sel.requirements[0].value == "a,b=c"
    assert parse_field_selector(str(sel)) == sel


def test_field_selector_without_operator_is_bad_request() -> None:
    with pytest.raises(BadRequest, match="invalid selector: 'foo'; can't understand 'foo'"):
        parse_field_selector("foo")


def test_unsupported_field_label() -> None:
    check_field_selector(parse_field_selector("spec.nodeName=a,metadata.namespace=b"), PODS)
    check_field_selector(parse_field_selector("status.successful=1"), JOBS)
    with pytest.raises(BadRequest) as err:
        check_field_selector(parse_field_selector("spec.parallelism=1"), JOBS)
    assert err.value.message == 'field label "spec.parallelism" not supported for batchv1.Job'


def _esc(v: str) -> str:
    return v.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


_fvalue = st.text(alphabet="ab,=\\!x ", max_size=6)


@given(st.lists(st.tuples(st.sampled_from(["metadata.name", "spec.nodeName", "status.phase"]),
                          st.sampled_from(["=", "==", "!="]), _fvalue), max_size=4))
def test_field_selector_parse_of_print(terms: list[tuple[str, str, str]]) -> None:
    text = ",".join(f + op + _esc(v) for f, op, v in terms)
    sel = parse_field_selector(text)
    want = sorted((f, "!=" if op == "!=" else "=", v) for f, op, v in terms)  # "==" is upstream's hasTerm
    assert sorted((r.field, r.operator, r.value) for r in sel.requirements) == want
    again = parse_field_selector(str(sel))  # same terms; the sort may reorder terms on one field
    assert sorted(map(str, again.requirements)) == sorted(map(str, sel.requirements))
