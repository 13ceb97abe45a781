"""A number in Kueue's Configuration reaches Go's decoder as YAML or as JSON text gives it.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/config/config.go`` ``fromFile`` decodes the file with
``serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDecoder()``. Its recognizer
hands data whose first non-space byte is ``{`` to the JSON serializer (apimachinery
``pkg/runtime/serializer/json/json.go`` ``RecognizesData``: ``utilyaml.IsJSONBuffer``), which decodes
the text as it is; anything else goes to the YAML serializer, which first runs sigs.k8s.io/yaml
``YAMLToJSON``: the YAML is read into Go values (``3.0`` a float64) and written back with
``json.Marshal`` (float64 3 is ``3``). So a whole-number float is an integer to an ``int32`` field
from a YAML file (or a mapping, which kbatch takes as YAML), while a JSON file's ``3.0`` fails
``strconv.ParseInt`` in ``literalStore`` and is refused with its literal: ``number 3.0``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.errors import Invalid
from kbatch.api.kueue_config import load
from kbatch.controllers.kueue.config import check_config_text
from tests.controllers.kueue.test_kueue_config_strict_sections import V1BETA2

BURST = "ClientConnection.clientConnection.burst"
BASE = "RequeuingStrategy.waitForPodsReady.requeuingStrategy.backoffBaseSeconds"


def _refusal(value: str, field: str, go_type: str = "int32") -> str:
    return (f"invalid Kueue configuration: json: cannot unmarshal {value} into Go struct field {field} "
            f"of type {go_type}")


def _yaml(section: str) -> str:
    return f"apiVersion: {V1BETA2}\nkind: Configuration\n{section}\n"


def _json(section: str) -> str:
    return f'{{"apiVersion": "{V1BETA2}", "kind": "Configuration", {section}}}'


def _burst_yaml(value: str) -> str:
    return _yaml(f"clientConnection:\n  burst: {value}")


def _burst_json(value: str) -> str:
    return _json(f'"clientConnection": {{"burst": {value}}}')


def _error(text: str) -> str:
    try:
        check_config_text(text)
    except Invalid as err:
        return str(err)
    return ""


def test_a_whole_float_in_an_int_field_of_a_yaml_file_is_the_integer() -> None:
    cfg = check_config_text(_yaml("waitForPodsReady:\n  requeuingStrategy:\n    backoffBaseSeconds: 60.0"))
    assert cfg.wait_for_pods_ready is not None
    assert cfg.wait_for_pods_ready.backoff_base_seconds == 60
    assert type(cfg.wait_for_pods_ready.backoff_base_seconds) is int
    assert [_error(_burst_yaml(v)) for v in ("3.0", "3.", "3e2")] == ["", "", ""]


def test_a_whole_float_in_a_mapping_is_taken_as_yaml() -> None:
    cfg = load({"apiVersion": V1BETA2, "kind": "Configuration",
                "waitForPodsReady": {"requeuingStrategy": {"backoffBaseSeconds": 60.0}}})
    assert cfg.wait_for_pods_ready is not None
    assert cfg.wait_for_pods_ready.backoff_base_seconds == 60


@pytest.mark.parametrize(("yaml_value", "go_value"), [
    ("3.5", "number 3.5"), ("3.50", "number 3.5"), ("3e9", "number 3000000000"),
    ("1e21", "number 1e+21"), ("-2.5e-7", "number -2.5e-7"),
])
def test_a_yaml_number_no_int32_holds_is_named_as_json_marshal_writes_it(yaml_value: str,
                                                                         go_value: str) -> None:
    assert _error(_burst_yaml(yaml_value)) == _refusal(go_value, BURST)


@pytest.mark.parametrize("literal", ["3.0", "3.00", "1e2", "1E2", "-0.0", "3.5", "2147483648"])
def test_a_json_file_keeps_its_literal(literal: str) -> None:
    assert _error(_burst_json(literal)) == _refusal(f"number {literal}", BURST)


def test_a_json_file_decodes_its_numbers_by_value_where_they_fit() -> None:
    assert _error(_json('"clientConnection": {"burst": 3, "qps": 3.0}')) == ""
    cfg = check_config_text(_json('"admissionFairSharing": {"resourceWeights": {"cpu": 2.50}}'))
    assert cfg.admission_fair_sharing is not None
    assert cfg.admission_fair_sharing.resource_weights == {"cpu": 2.5}
    assert _error(_json('"clientConnection": {"qps": 1e39}')) == _refusal(
        "number 1e39", "ClientConnection.clientConnection.qps", "float32")


@settings(max_examples=60, deadline=None)
@given(st.integers(-(2**31), 2**31 - 1), st.sampled_from([".0", ".000", "e0", "E+0"]))
def test_whole_floats_yaml_takes_json_refuses(n: int, suffix: str) -> None:
    """The same literal: a YAML file's int32 field takes it as ``n`` would be taken; a JSON file's
    refuses it by its literal."""
    literal = f"{n}{suffix}"
    assert _error(_burst_yaml(literal)) == _error(_burst_yaml(str(n)))
    assert _error(_burst_json(literal)) == _refusal(f"number {literal}", BURST)


@pytest.mark.parametrize(("text", "cause"), [
    (_json('"namespace": "x",'), "invalid character '}' looking for beginning of object key string"),
    ('{"apiVersion": "x" "kind": 1}', "invalid character '\"' after object key:value pair"),
    ("  {apiVersion: v}", "invalid character 'a' looking for beginning of object key string"),
    ('{"a": NaN}', "invalid character 'N' looking for beginning of value"),
    ('{"a": 1', "unexpected end of JSON input"),
])
def test_text_starting_with_a_brace_is_json_and_its_syntax_error_is_gos(text: str, cause: str) -> None:
    """The JSON serializer takes any text whose first non-blank byte is ``{`` (``IsJSONBuffer``),
    even flow-style YAML, and reads its apiVersion and kind first (``SimpleMetaFactory.Interpret``:
    ``couldn't get version/kind; json parse error: …`` around encoding/json's syntax error)."""
    with pytest.raises(Invalid) as err:
        check_config_text(text)
    prefix = "invalid Kueue configuration: couldn't get version/kind; json parse error: "
    assert str(err.value) == prefix + cause
