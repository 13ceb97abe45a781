"""Cases of upstream's label-selector tables, ported one by one (k8s.io/apimachinery at commit
eed236ce, the 1.37 tree): ``pkg/labels/selector_test.go`` and ``pkg/apis/meta/v1/helpers_test.go``
(TestLabelSelectorAsSelector). Each test names the upstream test it follows; strings and label sets
are upstream's. Selectors are built the way a user's go: ``parse_label_selector`` for the string
form (``-l``, ``?labelSelector=``) and ``selector_from_model`` for a ``LabelSelector`` object;
``_requirement`` is kbatch's ``NewRequirement``.

Not translated: TestLexer's token *kinds* for single symbols are covered by the sequences below
(kbatch's lexer names tokens by their literal); TestParserLookahead tests the Go parser's buffer;
TestAdd/TestSafeSort/TestRequirementEqual test Go value semantics; TestRequiresExactMatch has no
kbatch counterpart (the field-indexed list it serves is not modelled).
"""

from __future__ import annotations

import pytest

from kbatch.api.errors import BadRequest
from kbatch.api.meta import LabelSelector
from kbatch.api.selectors import (
    EVERYTHING,
    NOTHING,
    LabelOp,
    Requirement,
    Selector,
    _lex,
    _requirement,
    parse_label_selector,
    selector_from_model,
    selector_from_set,
)
from kbatch.api.validation import validate_label_selector, validate_labels

VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
             "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
             "'my_value',  or '12345', regex used for validation is "
             "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
KEY_MSG = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
           "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
           "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
BINARY_OPS = "in, notin, =, ==, !=, gt, lt"


def error_of(text: str) -> str:
    with pytest.raises(BadRequest) as err:
        parse_label_selector(text)
    return err.value.message


# TestSelectorParse
@pytest.mark.parametrize("text", ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x",
                                  "x>1", "x>1,z<5"])
def test_selector_parse_good(text: str) -> None:
    assert str(parse_label_selector(text)) == text.replace(" ", "")


@pytest.mark.parametrize("text", ["x=a||y=b", "x==a==b", "!x=a", "x<a"])
def test_selector_parse_bad(text: str) -> None:
    error_of(text)


def test_deterministic_parse() -> None:
    assert str(parse_label_selector("x=a,a=x")) == str(parse_label_selector("a=x,x=a"))


def test_everything() -> None:
    assert EVERYTHING.matches({"x": "y"}) and EVERYTHING.empty


# TestSelectorMatches: (selector, labels, matches)
@pytest.mark.parametrize(("text", "labels", "want"), [
    ("", {"x": "y"}, True), ("x=y", {"x": "y"}, True), ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True), ("notin=in", {"notin": "in"}, True),
    ("x", {"x": "z"}, True), ("!x", {"y": "z"}, True), ("x>1", {"x": "2"}, True), ("x<1", {"x": "0"}, True),
    ("x=z", {}, False), ("x=y", {"x": "z"}, False), ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False), ("x", {"y": "z"}, False), ("!x", {"x": "z"}, False),
    ("x>1", {"x": "0"}, False), ("x<1", {"x": "2"}, False),
    ("foo=bar", {"foo": "bar", "baz": "blah"}, True), ("baz=blah", {"foo": "bar", "baz": "blah"}, True),
    ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True),
    ("foo=blah", {"foo": "bar", "baz": "blah"}, False), ("baz=bar", {"foo": "bar", "baz": "blah"}, False),
    ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
])
def test_selector_matches(text: str, labels: dict[str, str], want: bool) -> None:
    selector = parse_label_selector(text)
    assert selector.matches(labels) is want
    assert selector.compile()(labels) is want


# TestSetMatches, TestNilMapIsValid, TestSetIsEmpty, TestSetSelectorString
@pytest.mark.parametrize("selected", [{}, {"foo": "bar"}, {"baz": "blah"}, {"foo": "bar", "baz": "blah"}])
def test_set_matches(selected: dict[str, str]) -> None:
    assert selector_from_set(selected).matches({"foo": "bar", "baz": "blah"})


def test_nil_and_empty_set_are_everything() -> None:
    assert selector_from_set(None).empty and selector_from_set({}).empty


@pytest.mark.parametrize(("labels", "out"), [({}, ""), ({"app": "foo"}, "app=foo"),
                                             ({"app": "foo", "a": "b"}, "a=b,app=foo")])
def test_set_selector_string(labels: dict[str, str], out: str) -> None:
    assert str(selector_from_set(labels)) == out


# TestLexerSequence (token literals; kbatch names a token by its literal, identifiers "id")
@pytest.mark.parametrize(("text", "kinds"), [
    ("key in ( value )", ["id", "in", "(", "id", ")"]),
    ("key notin ( value )", ["id", "notin", "(", "id", ")"]),
    ("key in ( value1, value2 )", ["id", "in", "(", "id", ",", "id", ")"]),
    ("key", ["id"]), ("!key", ["!", "id"]), ("()", ["(", ")"]),
    ("x in (),y", ["id", "in", "(", ")", ",", "id"]),
    ("== != (), = notin", ["==", "!=", "(", ")", ",", "=", "notin"]),
    ("key>2", ["id", ">", "id"]), ("key<1", ["id", "<", "id"]),
    # TestLexer: the longest token wins; non-special characters make identifiers
    ("!=", ["!="]), ("~", ["id"]), ("||", ["id"]),
])
def test_lexer_sequence(text: str, kinds: list[str]) -> None:
    assert [kind for kind, _ in _lex(text)] == [*kinds, "end"]


# TestParseOperator, through a requirement whose operator is that token
@pytest.mark.parametrize(("token", "ok"), [("in (a)", True), ("=a", True), ("==a", True), (">1", True),
                                           ("<1", True), ("notin (a)", True), ("!=a", True)])
def test_parse_operator_accepts(token: str, ok: bool) -> None:
    assert parse_label_selector("x " + token).requirements


@pytest.mark.parametrize("token", ["!", "exists", "("])
def test_parse_operator_rejects(token: str) -> None:
    assert error_of("x " + token) == f"unable to parse requirement: found '{token}', expected: {BINARY_OPS}"


# TestRequirementConstructor: (key, operator, values) → None or the error's field path and bad value
@pytest.mark.parametrize(("key", "op", "values", "path", "bad"), [
    ("x1", "in", [], "values", "[]"), ("x2", "notin", [], "values", "[]"),
    ("x3", "in", ["foo"], None, None), ("x4", "notin", ["foo"], None, None),
    ("x5", "=", ["bar", "foo"], "values", '["bar","foo"]'),
    ("x6", "exists", [], None, None), ("x7", "!", [], None, None),
    ("x8", "exists", ["foo"], "values", '["foo"]'),
    ("x9", "in", ["bar"], None, None), ("x10", "in", ["bar"], None, None),
    ("x11", "gt", ["1"], None, None), ("x12", "lt", ["6"], None, None),
    ("x13", "gt", [], "values", "[]"),
    ("x14", "gt", ["bar"], "values[0]", '"bar"'), ("x15", "lt", ["bar"], "values[0]", '"bar"'),
    ("a" * 254, "exists", [], "key", f'"{"a" * 254}"'),
    ("x16", "=", ["a" * 254], "values[0][x16]", f'"{"a" * 254}"'),
    ("x17", "=", ["a b"], "values[0][x17]", '"a b"'),
])
def test_requirement_constructor(key: str, op: LabelOp, values: list[str], path: str | None,
                                 bad: str | None) -> None:
    if path is None:
        assert _requirement(key, op, values).key == key
        return
    with pytest.raises(BadRequest) as err:
        _requirement(key, op, values)
    assert err.value.message.startswith(f"{path}: Invalid value: {bad}: ")


# TestToString: requirements in the order given → the selector's string
@pytest.mark.parametrize(("reqs", "out"), [
    ([("x", "in", ["abc", "def"]), ("y", "notin", ["jkl"]), ("z", "exists", [])],
     "x in (abc,def),y notin (jkl),z"),
    ([("x", "notin", ["abc", "def"]), ("y", "!=", ["jkl"]), ("z", "!", [])], "x notin (abc,def),y!=jkl,!z"),
    ([("x", "notin", ["abc"]), ("y", "in", ["jkl", "mno"]), ("z", "notin", [""])],
     "x notin (abc),y in (jkl,mno),z notin ()"),
    ([("x", "=", ["abc"]), ("y", "==", ["jkl"]), ("z", "!=", ["a"]), ("z", "exists", [])],
     "x=abc,y==jkl,z!=a,z"),
    ([("x", "gt", ["2"]), ("y", "lt", ["8"]), ("z", "exists", [])], "x>2,y<8,z"),
])
def test_to_string(reqs: list[tuple[str, LabelOp, list[str]]], out: str) -> None:
    assert str(Selector(tuple(_requirement(k, op, v) for k, op, v in reqs))) == out


# TestRequirementSelectorMatching
@pytest.mark.parametrize(("labels", "reqs", "want"), [
    ({"x": "foo", "y": "baz"}, [("x", "in", ["foo"]), ("y", "notin", ["alpha"])], True),
    ({"x": "foo", "y": "baz"}, [("x", "in", ["foo"]), ("y", "in", ["alpha"])], False),
    ({"y": ""}, [("x", "notin", [""]), ("y", "exists", [])], True),
    ({"y": ""}, [("x", "!", []), ("y", "exists", [])], True),
    ({"y": ""}, [("x", "notin", [""]), ("y", "!", [])], False),
    ({"y": "baz"}, [("x", "in", [""])], False),
    ({"z": "2"}, [("z", "gt", ["1"])], True),
    ({"z": "v2"}, [("z", "gt", ["1"])], False),
])
def test_requirement_selector_matching(labels: dict[str, str], reqs: list[tuple[str, LabelOp, list[str]]],
                                       want: bool) -> None:
    assert Selector(tuple(_requirement(k, op, v) for k, op, v in reqs)).matches(labels) is want


# TestSetSelectorParser: valid strings and their (sorted, de-duplicated) selector
@pytest.mark.parametrize(("text", "out"), [
    ("", ""), ("\rx", "x"),
    ("this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"),
    ("this-is-another-dns.domain.com/key-with-dash in (so,what)",
     "this-is-another-dns.domain.com/key-with-dash in (so,what)"),
    ("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
     "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"),
    ("foo  in\t (abc)", "foo in (abc)"), ("x notin\n (abc)", "x notin (abc)"),
    ("x  notin\t\t\t(abc,def)", "x notin (abc,def)"), ("x in (abc,def)", "x in (abc,def)"),
    ("x in (abc,)", "x in (,abc)"), ("x in (abc,abc)", "x in (abc)"), ("x in ()", "x in ()"),
    ("x in (a,,)", "x in (,a)"), ("x in (a,,,)", "x in (,a)"), ("x in (a,,,,,,)", "x in (,a)"),
    ("x in (a,,a,,a,,a,,)", "x in (,a)"),
    ("x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"),
    ("x,y in (a)", "x,y in (a)"), ("x=a", "x=a"), ("x>1", "x>1"), ("x<7", "x<7"),
    ("x=a,y!=b", "x=a,y!=b"), ("x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"),
    ("x notin ( )", "x notin ()"), ("x notin (, a)", "x notin (,a)"), ("a ", "a"),
    ("a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"),
])
def test_set_selector_parser_valid(text: str, out: str) -> None:
    assert str(parse_label_selector(text)) == out


@pytest.mark.parametrize("text", ["x=a||y=b", "x,,y", ",x,y", "x nott in (y)", "a in (xyz),",
                                  "a in (xyz)b notin ()", "a in (xyz abc)", "a notin(", "a (", "("])
def test_set_selector_parser_invalid(text: str) -> None:
    error_of(text)


# TestValidatedSelectorFromSet, through a LabelSelector's matchLabels (NewRequirement per entry)
def test_validated_selector_from_set() -> None:
    assert str(selector_from_model(LabelSelector(match_labels={"key": "val"}))) == "key=val"
    long = "axahm2EJ8Phiephe2eixohbee9eGeiyees1thuozi1xoh0GiuH3diewi8iem7Nui"
    with pytest.raises(BadRequest) as err:
        selector_from_model(LabelSelector(match_labels={"Key": long}))
    assert err.value.message.startswith(f'values[0][Key]: Invalid value: "{long}": ')


# TestMatchesNothing
@pytest.mark.parametrize("text", ["", "a", "!a", "a=b", "a!=b", "a in (b)", "a notin (b)", "a,!a",
                                  "a=b,a!=b"])
def test_only_nothing_is_nothing(text: str) -> None:
    assert NOTHING.nothing and not NOTHING.matches({})
    assert not parse_label_selector(text).nothing
    assert not EVERYTHING.nothing


# helpers_test.go TestLabelSelectorAsSelector
IN_EXPR = [{"key": "baz", "operator": "In", "values": ["qux", "norf"]}]


@pytest.mark.parametrize(("wire", "out"), [
    ({}, ""), ({"matchLabels": {"foo": "bar"}}, "foo=bar"),
    ({"matchExpressions": IN_EXPR}, "baz in (norf,qux)"),
    ({"matchLabels": {"foo": "bar"}, "matchExpressions": IN_EXPR}, "baz in (norf,qux),foo=bar"),
])
def test_label_selector_as_selector(wire: dict, out: str) -> None:  # type: ignore[type-arg]
    selector = selector_from_model(LabelSelector.model_validate(wire))
    assert str(selector) == out and not selector.nothing
    assert str(selector) == str(parse_label_selector(out))


def test_label_selector_as_selector_nil_and_error() -> None:
    assert selector_from_model(None) is NOTHING
    exists_with_values = [{"key": "baz", "operator": "Exists", "values": ["qux", "norf"]}]
    with pytest.raises(BadRequest) as err:
        selector_from_model(LabelSelector.model_validate({"matchExpressions": exists_with_values}))
    assert err.value.message == ('values: Invalid value: ["qux","norf"]: values set must be empty for '
                                 "exists and does not exist")


# ---- the disagreements this audit found, each read from pkg/labels/selector.go ------------------

def test_value_error_path_is_values_index_key() -> None:
    # NewRequirement: validateLabelValue(key, vals[i], valuePath.Index(i)) → values[i][key]
    prefix = "unable to parse requirement: values[0][x]: Invalid value: "
    assert error_of("x=a||y=b") == f'{prefix}"a||y": {VALUE_MSG}'
    assert error_of("x in (b,-a)") == f'{prefix}"-a": {VALUE_MSG}'


def test_parser_key_error_has_the_nil_path() -> None:
    # parseKeyAndInferOperator validates the key with the parser's path, nil by default, and a nil
    # field.Path prints as "<nil>"
    assert error_of("-a=b") == f'unable to parse requirement: <nil>: Invalid value: "-a": {KEY_MSG}'


def test_several_errors_are_aggregated() -> None:
    assert error_of("x in (-a,-b)") == (
        "unable to parse requirement: ["
        f'values[0][x]: Invalid value: "-a": {VALUE_MSG}, values[1][x]: Invalid value: "-b": {VALUE_MSG}]')


@pytest.mark.parametrize("text", ["x>-1", "x<+1"])
def test_gt_lt_values_are_label_values_too(text: str) -> None:
    # every value goes through validateLabelValue, whatever the operator
    assert "a valid label must be an empty string" in error_of(text)


def test_gt_lt_value_must_fit_int64() -> None:
    # strconv.ParseInt(vals[i], 10, 64)
    assert error_of("x>9223372036854775808") == (
        'unable to parse requirement: values[0]: Invalid value: "9223372036854775808": '
        "for 'Gt', 'Lt' operators, the value must be an integer")
    assert parse_label_selector("x>9223372036854775807").requirements


@pytest.mark.parametrize(("label", "want"), [("10", True), ("1_0", False), ("٣٣", False),
                                             ("99999999999999999999", False), ("0010", True)])
def test_gt_lt_match_parses_the_label_as_go_int64(label: str, want: bool) -> None:
    # Requirement.Matches: strconv.ParseInt(label value, 10, 64), no match when it fails
    assert parse_label_selector("x>5").matches({"x": label}) is want


def test_requirement_values_keep_upstream_order_for_paths() -> None:
    # LabelSelectorAsSelector hands NewRequirement the expression's values as written
    with pytest.raises(BadRequest) as err:
        selector_from_model(LabelSelector.model_validate(
            {"matchExpressions": [{"key": "k", "operator": "In", "values": ["ok", "-bad"]}]}))
    assert err.value.message.startswith('values[1][k]: Invalid value: "-bad"')
    assert Requirement("k", "in", ("a",)).matches({"k": "a"})


# ---- pkg/apis/meta/v1/validation/validation_test.go ----------------------------------------------

@pytest.mark.parametrize("labels", [
    {"simple": "bar"}, {"now-with-dashes": "bar"}, {"1-starts-with-num": "bar"}, {"1234": "bar"},
    {"simple/simple": "bar"}, {"now-with-dashes/simple": "bar"}, {"now-with-dashes/now-with-dashes": "bar"},
    {"now.with.dots/simple": "bar"}, {"now-with.dashes-and.dots/simple": "bar"}, {"1-num.2-num/3-num": "bar"},
    {"1234/5678": "bar"}, {"1.2.3.4/5678": "bar"}, {"UpperCaseAreOK123": "bar"}, {"goodvalue": "123_-.BaR"},
])
def test_validate_labels_success(labels: dict[str, str]) -> None:
    assert validate_labels(labels, "field") == []


# TestValidateLabels: exactly one error, whose detail holds the given text
@pytest.mark.parametrize(("labels", "expect"), [
    ({"nospecialchars^=@": "bar"}, "name part must consist of"),
    ({"cantendwithadash-": "bar"}, "name part must consist of"),
    ({"only/one/slash": "bar"}, "a valid label key must consist of"),
    ({"a" * 254: "bar"}, "must be no more than"),
    ({"toolongvalue": "a" * 64}, "must be no more than"),
    ({"backslashesinvalue": "some\\bad\\value"}, "a valid label must be an empty string or consist of"),
    ({"nocommasallowed": "bad,value"}, "a valid label must be an empty string or consist of"),
    ({"strangecharsinvalue": "?#$notsogood"}, "a valid label must be an empty string or consist of"),
])
def test_validate_labels_errors(labels: dict[str, str], expect: str) -> None:
    errs = validate_labels(labels, "field")
    assert len(errs) == 1 and expect in errs[0].detail


# TestLabelSelectorMatchExpression: (expression, number of errors, text in one of them)
@pytest.mark.parametrize(("expr", "count", "text"), [
    ({"key": "key", "operator": "In", "values": ["value"]}, 0, ""),
    ({"key": "-key", "operator": "In", "values": ["value"]}, 1, "name part must consist of alphanumeric"),
    ({"key": "key", "operator": "abc", "values": ["value"]}, 1, "not a valid selector operator"),
    ({"key": "key", "operator": "In", "values": ["-value"]}, 1, "a valid label must be an empty string"),
])
def test_label_selector_match_expression(expr: dict, count: int, text: str) -> None:  # type: ignore[type-arg]
    selector = LabelSelector.model_validate({"matchExpressions": [expr]})
    errs = validate_label_selector(selector, "labelSelector")
    assert len(errs) == count
    assert all(text in str(e) for e in errs)
