"""Upstream's DRA CEL cases, translated: what a device selector may use, what it answers, what is
refused when the object is created.

Sources (read 2026-11-29): ``k8s.io/dynamic-resource-allocation`` ``cel/compile_test.go``
(``TestCEL``'s table, commit f34bcd0 of 2026-06-29, the 1.37 development line) and ``cel/compile.go``
(``newCompiler``: ``environment.MustBaseEnvSet`` plus ``ext.Bindings``); the base environment
``k8s.io/apiserver`` ``pkg/cel/environment/base.go`` (v0.37.0-beta.0): URLs, regex, lists, quantity,
optional types, ``ext.Strings(2)``, ``ext.Sets``, IP, CIDR, format, ``ext.TwoVarComprehensions``,
semver, ``ext.Lists(3)``; no ``ext.Math``.

Each selector goes through a DeviceClass created with kbatch's API (compile and cost checks), then is
evaluated on a device of a ResourceSlice as the allocator does.

Not translated: the rows of list-typed attributes (``names``, ``includes`` on lists, ``in`` on a
list attribute: gate DRAListTypeAttributes, alpha and off in 1.37, not modelled);
``allow_multiple_allocations_disabled`` (DRAConsumableCapacity is on in 1.37, so the field is
declared); the exact ``expectCost`` numbers (kbatch's estimate is an approximation, docs/dra.md: the
rows check the same side of the limit instead); the "expensive" row's *runtime* limit ("actual cost
limit exceeded": no runtime cost limit in kbatch; its compile-time refusal is translated from the
validation tests' "CEL-cost"). Messages that differ: "got 'types.Int', expected iterable type" is the
C++ runtime's "No matching overloads found : <iter_range>" (docs/dra.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.cel import DeviceInput, SelectorRuntimeError, compile_selector
from kbatch.api.errors import Invalid
from kbatch.api.resource_v1 import DeviceClass, ResourceClaim, ResourceSlice

DRIVER = "dra.example.com"
LIMIT = 1_000_000  # resourceapi.CELSelectorExpressionMaxCost


@pytest.fixture
def cp() -> ControlPlane:
    return ControlPlane(controllers=[])


def _device(attributes: dict[str, Any] | None = None, capacity: dict[str, str] | None = None) -> DeviceInput:
    body = {
        "metadata": {"name": "s"},
        "spec": {
            "driver": DRIVER,
            "nodeName": "node-0",
            "pool": {"name": "node-0", "generation": 0, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": "d",
                    "attributes": attributes or None,
                    "capacity": {k: {"value": v} for k, v in (capacity or {}).items()} or None,
                }
            ],
        },
    }
    device = ResourceSlice.model_validate(body).spec.devices[0]
    return DeviceInput(
        DRIVER, device.attributes or {}, {n: c.value for n, c in (device.capacity or {}).items()}
    )


def _create_class(cp: ControlPlane, expression: str) -> None:
    cp.client.create(
        DeviceClass.model_validate(
            {"metadata": {"name": "c"}, "spec": {"selectors": [{"cel": {"expression": expression}}]}}
        )
    )


def _refusal(cp: ControlPlane, expression: str) -> tuple[str, str, str]:
    with pytest.raises(Invalid) as info:
        _create_class(cp, expression)
    (cause,) = info.value.status.details.causes
    return cause.reason, cause.field, cause.message


def _matches(cp: ControlPlane, expression: str, device: DeviceInput | None = None) -> bool:
    _create_class(cp, expression)
    return compile_selector(expression).matches(device or _device())


# --- compile_test.go TestCEL: rows that compile and evaluate ------------------------------------------

S = {"string": "fish"}
MATCH_ROWS: list[tuple[str, str, dict[str, Any], dict[str, str], bool, int]] = [
    # (row, expression, attributes, capacity, expectMatch, upstream expectCost)
    ("true", "true", {}, {}, True, 0),
    ("false", "false", {}, {}, False, 0),
    ("domain-check-negative", '"no-such-domain" in device.attributes', {}, {}, False, 3),
    ("domain-check-positive", f'"{DRIVER}" in device.attributes', {"name": {"bool": True}}, {}, True, 3),
    ("real-driver-name", f'device.driver == "{DRIVER}"', {}, {}, True, 4),
    ("driver-name-qualifier", f'device.attributes["{DRIVER}"].name', {"name": {"bool": True}}, {}, True, 4),
    (
        "driver-name-qualifier-map-lookup",
        f'device.attributes["{DRIVER}"]["name"]',
        {"name": {"bool": True}},
        {},
        True,
        4,
    ),
    (
        "bind",
        f'cel.bind(dra, device.attributes["{DRIVER}"], dra.name)',
        {"name": {"bool": True}},
        {},
        True,
        15,
    ),
    (
        "qualified-attribute-name",
        'device.attributes["other.example.com"].name',
        {"other.example.com/name": {"bool": True}},
        {},
        True,
        4,
    ),
    ("bool", f'device.attributes["{DRIVER}"].name', {"name": {"bool": True}}, {}, True, 4),
    ("int", f'device.attributes["{DRIVER}"].name > 0', {"name": {"int": 1}}, {}, True, 5),
    ("string", f'device.attributes["{DRIVER}"].name == "fish"', {"name": S}, {}, True, 5),
    (
        "version",
        f'device.attributes["{DRIVER}"].name.isGreaterThan(semver("0.0.1"))',
        {"name": {"version": "1.0.0"}},
        {},
        True,
        6,
    ),
    (
        "version_v",
        f'device.attributes["{DRIVER}"].name.isGreaterThan(semver("v0.0.1", true)) && '
        'isSemver("v1.0.0", true)',
        {"name": {"version": "1.0.0"}},
        {},
        True,
        7,
    ),
    (
        "quantity",
        f'device.capacity["{DRIVER}"].name.isGreaterThan(quantity("1Ki"))',
        {},
        {"name": "1Mi"},
        True,
        6,
    ),
    (
        "check-positive",
        f'"name" in device.capacity["{DRIVER}"] && '
        f'device.capacity["{DRIVER}"].name.isGreaterThan(quantity("1Ki"))',
        {},
        {"name": "1Mi"},
        True,
        10,
    ),
    (
        "check-negative",
        f'!("name" in device.capacity["{DRIVER}"]) || '
        f'device.capacity["{DRIVER}"].name.isGreaterThan(quantity("1Ki"))',
        {},
        {},
        True,
        11,
    ),
    (
        "all",
        " && ".join(
            (
                f'device.capacity["{DRIVER}"].quantity.isGreaterThan(quantity("1Ki"))',
                f'device.attributes["{DRIVER}"].bool',
                f'device.attributes["{DRIVER}"].int > 0',
                f'device.attributes["{DRIVER}"].string == "fish"',
                f'device.attributes["{DRIVER}"].version.isGreaterThan(semver("0.0.1"))',
                f'device.capacity["{DRIVER}"]["quantity"].isGreaterThan(quantity("1Ki"))',
                f'device.attributes["{DRIVER}"]["bool"]',
                f'device.attributes["{DRIVER}"]["int"] > 0',
                f'device.attributes["{DRIVER}"]["string"] == "fish"',
                f'device.attributes["{DRIVER}"]["version"].isGreaterThan(semver("0.0.1"))',
            )
        ),
        {"bool": {"bool": True}, "int": {"int": 1}, "string": S, "version": {"version": "1.0.0"}},
        {"quantity": "1Mi"},
        True,
        52,
    ),
    (
        "many",
        " && ".join(f'device.attributes["{DRIVER}"].{n}' for n in "abc"),
        {n: {"bool": True} for n in "abc"},
        {},
        True,
        12,
    ),
    (
        "check_attribute_domains",
        f'device.attributes.exists_one(x, x == "{DRIVER}")',
        {"services": {"string": "some_example_value"}},
        {},
        True,
        164,
    ),
    (
        "check_attribute_ids",
        f'device.attributes["{DRIVER}"].exists_one(x, x == "services")',
        {"services": {"string": "some_example_value"}},
        {},
        True,
        133,
    ),
    (
        "split_attribute",
        f'device.attributes["{DRIVER}"].services.split("example").size() >= 2',
        {"services": {"string": "some_example_value"}},
        {},
        True,
        19,
    ),
    (
        "regexp_attribute",
        f'device.attributes["{DRIVER}"].services.matches("[^a]?sym")',
        {"services": {"string": "asymetric"}},
        {},
        True,
        18,
    ),
    (
        "check_capacity_domains",
        f'device.capacity.exists_one(x, x == "{DRIVER}")',
        {},
        {"memory": "1Mi"},
        True,
        164,
    ),
    (
        "check_capacity_ids",
        f'device.capacity["{DRIVER}"].exists_one(x, x == "memory")',
        {},
        {"memory": "1Mi"},
        True,
        133,
    ),
    ("allow_multiple_allocations_default", "device.allowMultipleAllocations == false", {}, {}, True, 3),
]


@pytest.mark.parametrize(
    ("row", "expression", "attributes", "capacity", "expected", "cost"),
    MATCH_ROWS,
    ids=[r[0] for r in MATCH_ROWS],
)
def test_compile_test_rows_that_match(
    cp: ControlPlane,
    row: str,
    expression: str,
    attributes: dict[str, Any],
    capacity: dict[str, str],
    expected: bool,
    cost: int,
) -> None:
    assert _matches(cp, expression, _device(attributes, capacity)) is expected
    # upstream's estimate is far under the limit; kbatch's approximation must agree on the side
    assert (compile_selector(expression).max_cost > LIMIT) is (cost > LIMIT)


RUNTIME_ERROR_ROWS = [
    # (row, expression, attributes, upstream's expectMatchError, kbatch's)
    (
        "runtime-error-lookup-identifier",
        'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
        {},
        "no such key: noSuchAttr",
        "no such key: noSuchAttr",
    ),
    (
        "runtime-error-lookup-map",
        'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))',
        {},
        "no such key: noSuchAttr",
        "no such key: noSuchAttr",
    ),
    (
        "macro-exists-on-int",
        f'device.attributes["{DRIVER}"].name.exists(x, x > 0)',
        {"name": {"int": 1}},
        "got 'types.Int', expected iterable type",
        "<iter_range>",
    ),
    (
        "macro-exists-on-bool",
        f'device.attributes["{DRIVER}"].name.exists(x, x == true)',
        {"name": {"bool": True}},
        "got 'types.Bool', expected iterable type",
        "<iter_range>",
    ),
    (
        "macro-exists-on-string",
        f'device.attributes["{DRIVER}"].name.exists(x, x == "fish")',
        {"name": S},
        "got 'types.String', expected iterable type",
        "<iter_range>",
    ),
    (
        "macro-exists-on-version",
        f'device.attributes["{DRIVER}"].name.exists(x, x.isGreaterThan(semver("0.0.1")))',
        {"name": {"version": "1.0.0"}},
        "got 'cel.Semver', expected iterable type",
        "<iter_range>",
    ),
]


@pytest.mark.parametrize(
    ("row", "expression", "attributes", "upstream", "message"),
    RUNTIME_ERROR_ROWS,
    ids=[r[0] for r in RUNTIME_ERROR_ROWS],
)
def test_compile_test_rows_that_fail_when_evaluated(
    cp: ControlPlane, row: str, expression: str, attributes: dict[str, Any], upstream: str, message: str
) -> None:
    with pytest.raises(SelectorRuntimeError) as info:
        _matches(cp, expression, _device(attributes))
    assert message in str(info.value)


def test_compile_test_row_empty_driver_name() -> None:
    # "empty-driver-name": a device of no driver (upstream's zero Device) has driver ""
    device = DeviceInput("", {}, {})
    assert compile_selector('device.driver == ""').matches(device) is True


COMPILE_ERROR_ROWS = [
    ("syntax-error", "?!", "Syntax error"),
    ("type-error", "1", "must evaluate to bool or the unknown type, not int"),
    (
        "includes-function-compilation-error",
        f'device.attributes["{DRIVER}"].attr.includes("fish")',
        "undeclared reference to 'includes'",
    ),
]


@pytest.mark.parametrize(
    ("row", "expression", "message"), COMPILE_ERROR_ROWS, ids=[r[0] for r in COMPILE_ERROR_ROWS]
)
def test_compile_test_rows_refused_at_create(
    cp: ControlPlane, row: str, expression: str, message: str
) -> None:
    reason, field, text = _refusal(cp, expression)
    assert (reason, field) == ("FieldValueInvalid", "spec.selectors[0].cel.expression")
    assert message in text


EXPENSIVE = (
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, "
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, "
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, "
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))"
)


def test_expensive_row_is_refused_at_create(cp: ControlPlane) -> None:
    # compile_test.go "expensive" (cost 85555551) as validation_resourceclaim_test.go "CEL-cost" uses
    # it: the regex library's find is declared, the estimate exceeds the limit, the claim is Forbidden
    claim = ResourceClaim.model_validate(
        {
            "metadata": {"name": "claim", "namespace": "default"},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "req-0",
                            "exactly": {
                                "deviceClassName": "class",
                                "selectors": [{"cel": {"expression": EXPENSIVE}}],
                            },
                        }
                    ]
                }
            },
        }
    )
    with pytest.raises(Invalid) as info:
        cp.client.create(claim)
    assert [(c.reason, c.field, c.message) for c in info.value.status.details.causes] == [
        (
            "FieldValueForbidden",
            "spec.devices.requests[0].exactly.selectors[0].cel.expression",
            "Forbidden: too complex, exceeds cost limit",
        )
    ]


# --- base.go: the libraries a selector may use at 1.37 -----------------------------------------------

LIBRARY_ROWS = [
    # regex (library.Regex, 1.0)
    ("regex find", "'abc 123'.find('[0-9]+') == '123'"),
    ("regex find no match", "'abc'.find('[0-9]+') == ''"),
    ("regex findAll", "'a1b22c333'.findAll('[0-9]+') == ['1', '22', '333']"),
    ("regex findAll limit", "'a1b22c333'.findAll('[0-9]+', 2) == ['1', '22']"),
    ("regex findAll limit 0", "'a1b22c333'.findAll('[0-9]+', 0) == []"),
    # Go's regexp, not Python's: $ is the end of the text, \\d ASCII digits, and FindAllString skips an
    # empty match where the previous match ended
    ("regex $ is end of text", "'ab\\n'.find('b$') == '' && 'ab'.find('b$') == 'b'"),
    ("regex \\d is ASCII", "'\u0663 7'.findAll('\\\\d') == ['7']"),
    ("regex empty matches as Go", "'baaab'.findAll('a*') == ['', 'aaa', '']"),
    # ext.Strings(StringsVersion(2)), 1.29
    ("strings v0", "'a,b'.split(',') == ['a', 'b'] && 'abc'.indexOf('c') == 2"),
    ("strings v1 format", "'%s-%d'.format(['a', 1]) == 'a-1' && strings.quote('a') == '\"a\"'"),
    ("strings v2 join", "['a', 'b'].join('-') == 'a-b'"),
    # ext.Sets, 1.29
    ("sets.contains", "sets.contains([1, 2, 3], [2, 3])"),
    ("sets.equivalent", "sets.equivalent([1, 1, 2], [2, 1])"),
    ("sets.intersects", "!sets.intersects([1], [2])"),
    # ext.TwoVarComprehensions, 1.32
    ("two-var all", "[10, 20].all(i, v, v == (i + 1) * 10)"),
    ("two-var exists on a map", f'device.attributes.exists(k, v, k == "{DRIVER}" && "model" in v)'),
    ("two-var existsOne", "[1, 2, 1].existsOne(i, v, v == 2)"),
    ("two-var transformList", "[1, 2].transformList(i, v, v * 2) == [2, 4]"),
    # ext.Lists(ListsVersion(3)), 1.34
    ("lists slice", "[1, 2, 3, 4].slice(1, 3) == [2, 3]"),
    ("lists flatten", "[1, [2, 3], [4]].flatten() == [1, 2, 3, 4]"),
    ("lists sort", "[3, 1, 2].sort() == [1, 2, 3]"),
    ("lists sortBy", "[3, 1, 2].sortBy(x, -x) == [3, 2, 1]"),
    ("lists distinct reverse range", "[1, 1, 2].distinct().reverse() == [2, 1] && lists.range(2) == [0, 1]"),
    # library.Lists (kubernetes.lists), 1.0
    ("kubernetes lists", "[1, 2, 3].isSorted() && [1, 2].sum() == 3 && [2, 1].min() == 1"),
    # optional types, 1.28
    ("optional", f'device.attributes["{DRIVER}"].?nothing.orValue("x") == "x"'),
]


@pytest.mark.parametrize(("row", "expression"), LIBRARY_ROWS, ids=[r[0] for r in LIBRARY_ROWS])
def test_base_environment_libraries(cp: ControlPlane, row: str, expression: str) -> None:
    assert _matches(cp, expression, _device({"model": S})) is True


NOT_DECLARED_ROWS = [
    # cel-go's ext.Math is not part of Kubernetes' base environment
    ("math.greatest", "math.greatest(1, 2) == 2", "undeclared reference to 'math'"),
    ("math.abs", "math.abs(-1) == 1", "undeclared reference to 'math'"),
    # ext.Strings version 3 (reverse) is newer than the base environment's version 2
    ("strings v3 reverse", "'abc'.reverse() == 'cba'", "found no matching overload for 'reverse'"),
    # cel-go's regex extension (regex.extract) is not loaded, only Kubernetes' find/findAll
    ("regex.extract", "regex.extract('abc', 'b') == optional.of('b')", "undeclared reference to 'regex'"),
]


@pytest.mark.parametrize(
    ("row", "expression", "message"), NOT_DECLARED_ROWS, ids=[r[0] for r in NOT_DECLARED_ROWS]
)
def test_functions_outside_the_base_environment_are_refused(
    cp: ControlPlane, row: str, expression: str, message: str
) -> None:
    reason, _, text = _refusal(cp, expression)
    assert reason == "FieldValueInvalid"
    assert message in text


def test_regex_error_when_evaluated(cp: ControlPlane) -> None:
    # regex.go find: a pattern that does not compile is "Illegal regex: ..." (a runtime error; the
    # pattern may come from an attribute)
    with pytest.raises(SelectorRuntimeError) as info:
        _matches(
            cp, f'"abc".find(device.attributes["{DRIVER}"].model) == ""', _device({"model": {"string": "("}})
        )
    assert "Illegal regex: error parsing regexp: missing closing ): `(`" in str(info.value)


@pytest.mark.parametrize(
    ("pattern", "go_error"),
    [
        ("a(?=b)", "invalid or unsupported Perl syntax: `(?=`"),  # a look-ahead: Python's re takes it
        ("(a)\\\\1", "invalid escape sequence: `\\1`"),  # a backreference
        ("a**", "invalid nested repetition operator: `**`"),
        ("\\\\C", "invalid escape sequence: `\\C`"),  # RE2's any-byte, which Go refuses
    ],
)
def test_regex_patterns_go_refuses(cp: ControlPlane, pattern: str, go_error: str) -> None:
    with pytest.raises(SelectorRuntimeError) as info:
        _matches(cp, f"'abc'.find('{pattern}') == ''")
    assert f"Illegal regex: error parsing regexp: {go_error}" in str(info.value)


def test_transform_map_fails_as_a_selector_error(cp: ControlPlane) -> None:
    # two-variable transformMap compiles (as upstream's) but the runtime cannot evaluate it: the
    # allocator must see a selector error (its fatal status), not a crash (docs/dra.md)
    with pytest.raises(SelectorRuntimeError, match=r"cel\.@mapInsert"):
        _matches(cp, "{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}")


def test_nested_two_variable_comprehensions_exceed_the_cost_limit(cp: ControlPlane) -> None:
    # upstream estimates every comprehension over a device's maps (at most 32 entries each,
    # ResourceSliceMaxAttributesAndCapacitiesPerDevice) as a loop: four nested levels exceed
    # CELSelectorExpressionMaxCost, whichever comprehension macro nests them (kbatch/api/cel/cost.py)
    for macro in ("all", "exists", "existsOne"):
        expression = (
            f"device.attributes.{macro}(a, x, device.attributes.{macro}(b, y, "
            f"device.attributes.{macro}(c, z, device.attributes.{macro}(d, w, a == d))))"
        )
        reason, _, message = _refusal(cp, expression)
        assert (reason, message) == ("FieldValueForbidden", "Forbidden: too complex, exceeds cost limit")


@pytest.mark.parametrize("text", ["1.0.0", "1.0.0-alpha.1", "1.0.0+build.5"])
def test_a_semver_ending_in_a_newline_is_refused(cp: ControlPlane, text: str) -> None:
    # blang/semver's Parse refuses "1.0.0\n" (its parts may hold only digits or alphanumerics); a
    # Python ``$`` anchor matched before the final newline, so kbatch took it
    assert _matches(cp, f'isSemver("{text}") && !isSemver("{text}\\n")') is True
    with pytest.raises(SelectorRuntimeError) as info:
        compile_selector(f'semver("{text}\\n").major() == 1').matches(_device())
    assert f"string is not a valid SemVer: {text}\n" in str(info.value)


def test_a_semver_of_other_scripts_digits_is_refused(cp: ControlPlane) -> None:
    # blang/semver reads ASCII digits only; Python's \d also takes Arabic-Indic ones
    assert _matches(cp, 'isSemver("10.0.0") && !isSemver("1\u0660.0.0")') is True
