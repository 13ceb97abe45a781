"""A quantity in Kueue's Configuration (``resources.transformations[].outputs``) decodes itself.

Upstream: kubernetes-sigs/kueue v0.19.2 ``apis/config/v1beta2/configuration_types.go``
(``ResourceTransformation.Outputs corev1.ResourceList``), decoded by ``pkg/config/config.go``
``fromFile``. ``resource.Quantity`` is a ``json.Unmarshaler`` (apimachinery
``pkg/api/resource/quantity.go`` ``UnmarshalJSON``): it gets the value's JSON text whatever its type
(encoding/json ``literalStore``, ``object`` and ``array`` hand an Unmarshaler its bytes), drops the
quotes of a string, trims blanks and runs ``ParseQuantity``; its error (``ErrFormatWrong``,
``ErrSuffix``, ``ErrNumeric``) ends decoding at once, unwrapped, ahead of any type error saved
earlier and of the unknown fields, like a bad ``metav1.Duration``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbatch.api.kueue_config import load
from kbatch.api.quantity import ERR_FORMAT, ERR_SUFFIX, Quantity
from kbatch.controllers.kueue.config import check_config_text
from tests.controllers.kueue.test_kueue_config_strict_sections import V1BETA1, V1BETA2, _message

PREFIX = "invalid Kueue configuration: "


def _outputs(value: Any, version: str = V1BETA2, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": version, "kind": "Configuration", **extra,
            "resources": {"transformations": [{"input": "example.com/gpu", "outputs": {"memory": value}}]}}


@pytest.mark.parametrize(("value", "error"), [
    ("abc", ERR_FORMAT), ("", ERR_FORMAT), ("1.5.5", ERR_FORMAT), ("5 Gi", ERR_FORMAT),
    ("1ki", ERR_SUFFIX), (True, ERR_FORMAT), (False, ERR_FORMAT), ([1], ERR_FORMAT), ({"a": 1}, ERR_FORMAT),
])
@pytest.mark.parametrize("version", [V1BETA2, V1BETA1])
def test_a_bad_quantity_is_the_parsers_error_alone(value: Any, error: str, version: str) -> None:
    assert _message(_outputs(value, version)) == PREFIX + error


def test_a_bad_quantity_stops_decoding_before_earlier_type_errors_and_unknown_fields() -> None:
    assert _message(_outputs("abc", namespace=5, unknownField=1)) == PREFIX + ERR_FORMAT


def test_the_first_value_decoder_failing_in_the_file_is_reported() -> None:
    later = _outputs("abc")
    later["waitForPodsReady"] = {"timeout": "5 minutes"}
    assert _message(later) == PREFIX + ERR_FORMAT
    earlier = {"waitForPodsReady": {"timeout": "5 minutes"}, **_outputs("abc")}
    assert _message(earlier) == PREFIX + 'time: unknown unit " minutes" in duration "5 minutes"'


@pytest.mark.parametrize(("value", "want"), [
    (" 5Gi ", "5Gi"), (2, "2"), (1.5, "1500m"), ("0.5", "500m"), (None, "0"),
])
def test_good_quantities_decode(value: Any, want: str) -> None:
    cfg = load(_outputs(value))
    (transformation,) = cfg.transformations
    assert transformation.outputs == {"memory": Quantity(want)}


def test_a_json_number_is_parsed_from_its_text() -> None:
    text = json.dumps(_outputs("MARK")).replace('"MARK"', "1.50e3")
    (transformation,) = check_config_text(text).transformations
    assert transformation.outputs == {"memory": Quantity("1500")}
