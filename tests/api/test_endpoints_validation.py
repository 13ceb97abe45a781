"""Upstream validation rows for discovery.k8s.io/v1 EndpointSlice (kubernetes
``pkg/apis/discovery/validation/validation_test.go`` TestValidateEndpointSlice,
TestValidateEndpointSliceUpdate) and core/v1 Endpoints (``pkg/apis/core/validation/validation_test.go``
TestValidateEndpointsCreate), through the API server: the Invalid status names each field."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Endpoints
from kbatch.api.discovery_v1 import EndpointSlice
from kbatch.api.errors import Invalid


@pytest.fixture(scope="module")
def cp() -> ControlPlane:
    return ControlPlane(seed=0, controllers="")


def _slice(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"metadata": {"name": "s", "namespace": "default"}, "addressType": "IPv4",
                            "endpoints": [{"addresses": ["10.1.2.3"]}],
                            "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}
    return base | fields


def _causes(cp: ControlPlane, model: Any, body: dict[str, Any]) -> list[tuple[str, str, str]]:
    with pytest.raises(Invalid) as err:
        cp.client.create(model.model_validate(body), dry_run=True)
    return [(c.field or "", c.reason or "", c.message or "") for c in err.value.details.causes or ()]


GOOD_SLICES = {
    "good": _slice(),
    "fqdn": _slice(addressType="FQDN", endpoints=[{"addresses": ["foo.example.com"]}]),
    "ipv6": _slice(addressType="IPv6", endpoints=[{"addresses": ["2001:db8::1"]}]),
    "empty-port-name": _slice(ports=[{"name": "", "protocol": "TCP"}]),
    "no-endpoints": _slice(endpoints=[]),
    "hostname": _slice(endpoints=[{"addresses": ["10.1.2.3"], "hostname": "web-0"}]),
    "app-protocol": _slice(ports=[{"name": "a", "protocol": "TCP", "appProtocol": "example.com/custom"}]),
    "hints": _slice(endpoints=[{"addresses": ["10.1.2.3"], "hints": {"forZones": [{"name": "zone-a"}]}}]),
}


@pytest.mark.parametrize("name", GOOD_SLICES)
def test_valid_slices(cp: ControlPlane, name: str) -> None:
    cp.client.create(EndpointSlice.model_validate(GOOD_SLICES[name]), dry_run=True)


BAD_SLICES: dict[str, tuple[dict[str, Any], list[tuple[str, str]]]] = {
    "missing-address-type": (_slice(addressType=""), [("addressType", "FieldValueRequired")]),
    "unsupported-address-type": (_slice(addressType="IP"), [("addressType", "FieldValueNotSupported")]),
    "no-address": (_slice(endpoints=[{"addresses": []}]), [("endpoints[0].addresses", "FieldValueRequired")]),
    "too-many-addresses": (_slice(endpoints=[{"addresses": [f"10.0.0.{i}" for i in range(1, 102)]}]),
                           [("endpoints[0].addresses", "FieldValueTooMany")]),
    "bad-ipv4": (_slice(endpoints=[{"addresses": ["123.456.789.012"]}]),
                 [("endpoints[0].addresses[0]", "FieldValueInvalid")] * 2),
    "ipv6-in-ipv4-slice": (_slice(endpoints=[{"addresses": ["2001:db8::1"]}]),
                           [("endpoints[0].addresses[0]", "FieldValueInvalid")]),
    "loopback": (_slice(endpoints=[{"addresses": ["127.0.0.1"]}]),
                 [("endpoints[0].addresses[0]", "FieldValueInvalid")]),
    "bad-fqdn": (_slice(addressType="FQDN", endpoints=[{"addresses": ["foo.*"]}]),
                 [("endpoints[0].addresses[0]", "FieldValueInvalid")]),
    "bad-hostname": (_slice(endpoints=[{"addresses": ["10.1.2.3"], "hostname": "Nope_"}]),
                     [("endpoints[0].hostname", "FieldValueInvalid")]),
    "bad-node-name": (_slice(endpoints=[{"addresses": ["10.1.2.3"], "nodeName": "Node_1"}]),
                      [("endpoints[0].nodeName", "FieldValueInvalid")]),
    "duplicate-port-names": (_slice(ports=[{"name": "a", "protocol": "TCP"},
                                           {"name": "a", "protocol": "UDP"}]),
                             [("ports[1].name", "FieldValueDuplicate")]),
    "bad-port-name": (_slice(ports=[{"name": "Bad_Name", "protocol": "TCP"}]),
                      [("ports[0].name", "FieldValueInvalid")]),
    "bad-protocol": (_slice(ports=[{"name": "a", "protocol": "HTTP"}]),
                     [("ports[0].protocol", "FieldValueNotSupported")]),
    "bad-app-protocol": (_slice(ports=[{"name": "a", "protocol": "TCP", "appProtocol": "lots-of/slashes/x"}]),
                         [("ports[0].appProtocol", "FieldValueInvalid")]),
    "too-many-ports": (_slice(ports=[{"name": f"p{i}", "protocol": "TCP"} for i in range(101)]),
                       [("ports", "FieldValueTooMany")]),
    "too-many-zone-hints": (_slice(endpoints=[{"addresses": ["10.1.2.3"], "hints": {
        "forZones": [{"name": f"z{i}"} for i in range(9)]}}]),
        [("endpoints[0].hints.forZones", "FieldValueTooMany")]),
}


@pytest.mark.parametrize("name", BAD_SLICES)
def test_invalid_slices(cp: ControlPlane, name: str) -> None:
    body, want = BAD_SLICES[name]
    assert [c[:2] for c in _causes(cp, EndpointSlice, body)] == want


def test_address_type_is_immutable_and_ip_allowed_on_update(cp: ControlPlane) -> None:
    body = _slice(metadata={"name": "imm", "namespace": "default"})
    created = cp.client.create(EndpointSlice.model_validate(body))
    changed = created.model_copy(deep=True)
    changed.address_type = "IPv6"
    changed.endpoints = []
    with pytest.raises(Invalid) as err:
        cp.client.update(changed)
    assert [c.field for c in err.value.details.causes] == ["addressType"]
    assert "field is immutable" in err.value.message
    assert created.metadata.generation == 1
    bumped = created.model_copy(deep=True)
    bumped.endpoints = []
    assert cp.client.update(bumped).metadata.generation == 2  # any change outside metadata counts
    relabelled = cp.client.get(EndpointSlice, "imm", "default").model_copy(deep=True)
    relabelled.metadata.labels = {"a": "b"}
    assert cp.client.update(relabelled).metadata.generation == 2


def _endpoints(subsets: list[dict[str, Any]]) -> dict[str, Any]:
    return {"metadata": {"name": "mysvc", "namespace": "default"}, "subsets": subsets}


BAD_ENDPOINTS: dict[str, tuple[list[dict[str, Any]], list[tuple[str, str]]]] = {
    "empty-subset": ([{}], [("subsets[0]", "FieldValueRequired")]),
    "bad-ip": ([{"addresses": [{"ip": "[2001:db8::1]"}], "ports": [{"port": 80, "protocol": "TCP"}]}],
               [("subsets[0].addresses[0].ip", "FieldValueInvalid")]),
    "loopback": ([{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": 80, "protocol": "TCP"}]}],
                 [("subsets[0].addresses[0].ip", "FieldValueInvalid")]),
    "link-local": ([{"addresses": [{"ip": "169.254.0.1"}], "ports": [{"port": 80, "protocol": "TCP"}]}],
                   [("subsets[0].addresses[0].ip", "FieldValueInvalid")]),
    "multicast": ([{"addresses": [{"ip": "224.0.0.1"}], "ports": [{"port": 80, "protocol": "TCP"}]}],
                  [("subsets[0].addresses[0].ip", "FieldValueInvalid")]),
    "bad-hostname": ([{"addresses": [{"ip": "10.1.2.3", "hostname": "-bad"}]}],
                     [("subsets[0].addresses[0].hostname", "FieldValueInvalid")]),
    "name-required-with-two-ports": ([{"addresses": [{"ip": "10.1.2.3"}],
                                       "ports": [{"port": 80, "protocol": "TCP"},
                                                 {"name": "b", "port": 81, "protocol": "TCP"}]}],
                                     [("subsets[0].ports[0].name", "FieldValueRequired")]),
    "bad-port": ([{"addresses": [{"ip": "10.1.2.3"}], "ports": [{"port": 0, "protocol": "TCP"}]}],
                 [("subsets[0].ports[0].port", "FieldValueInvalid")]),
    "no-protocol": ([{"addresses": [{"ip": "10.1.2.3"}], "ports": [{"port": 80}]}],
                    [("subsets[0].ports[0].protocol", "FieldValueRequired")]),
    "bad-protocol": ([{"addresses": [{"ip": "10.1.2.3"}], "ports": [{"port": 80, "protocol": "HTTP"}]}],
                     [("subsets[0].ports[0].protocol", "FieldValueNotSupported")]),
}


@pytest.mark.parametrize("name", BAD_ENDPOINTS)
def test_invalid_endpoints(cp: ControlPlane, name: str) -> None:
    subsets, want = BAD_ENDPOINTS[name]
    assert [c[:2] for c in _causes(cp, Endpoints, _endpoints(subsets))] == want


def test_endpoints_are_repacked_on_create(cp: ControlPlane) -> None:
    """``RepackSubsets`` in the strategy: one subset per port set, ready wins over not ready."""
    body = _endpoints([
        {"addresses": [{"ip": "10.0.0.2"}], "ports": [{"name": "a", "port": 80, "protocol": "TCP"}]},
        {"addresses": [{"ip": "10.0.0.1"}], "ports": [{"name": "a", "port": 80, "protocol": "TCP"}]},
        {"notReadyAddresses": [{"ip": "10.0.0.1"}], "ports": [{"name": "a", "port": 80, "protocol": "TCP"}]},
        {"notReadyAddresses": [{"ip": "10.0.0.3"}], "ports": [{"name": "a", "port": 80, "protocol": "TCP"}]},
    ])
    created = cp.client.create(Endpoints.model_validate(body), dry_run=True)
    assert created.model_dump(by_alias=True, exclude_none=True)["subsets"] == [
        {"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "notReadyAddresses": [{"ip": "10.0.0.3"}],
         "ports": [{"name": "a", "port": 80, "protocol": "TCP"}]}]
    assert created.metadata.generation is None
