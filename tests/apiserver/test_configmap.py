"""core/v1 ConfigMap: key rules, the 1 MiB limit, ``immutable`` (ValidateConfigMap[Update])."""

from __future__ import annotations

import base64
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.core_v1 import ConfigMap
from kbatch.api.errors import Invalid
from kbatch.api.strategies.core.configmap import config_key_errors


def cm(name: str = "c", **fields: object) -> ConfigMap:
    return ConfigMap.model_validate({"metadata": {"name": name, "namespace": "default"}, **fields})


@given(st.text(alphabet=st.characters(codec="ascii"), max_size=300))
def test_config_keys_follow_is_config_map_key(key: str) -> None:
    valid = bool(re.fullmatch(r"[-._a-zA-Z0-9]+", key)) and len(key) <= 253 and not key.startswith("..") \
        and key != "."
    assert (config_key_errors(key) == []) == valid


@pytest.mark.parametrize(("fields", "message"), [
    ({"data": {"bad key": "x"}},
     "data[bad key]: Invalid value: \"bad key\": a valid config key must consist"),
    ({"data": {"..x": "x"}}, "must not start with '..'"),
    ({"data": {"a": "1"}, "binaryData": {"a": "MQ=="}},
     "data[a]: Invalid value: \"a\": duplicate of key present in binaryData"),
    ({"data": {"a": "x" * (1024 * 1024 + 1)}}, "Too long: may not be more than 1048576 bytes"),
])
def test_invalid_config_maps_are_refused(fields: dict[str, object], message: str) -> None:
    cp = ControlPlane()
    with pytest.raises(Invalid) as err:
        cp.client.create(cm(**fields))
    assert message in err.value.message


def test_immutable_config_maps_keep_their_data() -> None:
    cp = ControlPlane()
    created = cp.client.create(cm(immutable=True, data={"a": "1"},
                                  binaryData={"b": base64.b64encode(b"hi").decode()}))
    assert created.binary_data == {"b": "aGk="}
    from kbatch.api import edit

    changed = edit(created)
    changed.data = {"a": "2"}
    changed.immutable = False
    with pytest.raises(Invalid) as err:
        cp.client.update(changed)
    assert "immutable: Forbidden: field is immutable when `immutable` is set" in err.value.message
    assert "data: Forbidden: field is immutable when `immutable` is set" in err.value.message
    labelled = edit(created)
    labelled.metadata.labels = {"ok": "yes"}  # metadata may still change
    assert cp.client.update(labelled).metadata.labels == {"ok": "yes"}
