"""core/v1 Endpoints strategy (kubernetes ``pkg/registry/core/endpoint/strategy.go``: no generation,
no status; ``Canonicalize`` repacks the subsets, :mod:`.endpoints_repack`) and validation
(``pkg/apis/core/validation/validation.go`` ``ValidateEndpoints``, ``validateEndpointSubsets``,
``validateEpAddress``, ``validateEndpointPort``; the checks shared with EndpointSlice,
:mod:`..endpoint_common`).
"""

from __future__ import annotations

from kbatch.api.core_v1 import EndpointAddress, Endpoints, EndpointsPort, EndpointSubset
from kbatch.api.errors import FieldError
from kbatch.api.meta import Resource
from kbatch.api.strategies.core.endpoints_repack import repack_subsets
from kbatch.api.strategies.core.pod_dns_validation import ip_errors
from kbatch.api.strategies.endpoint_common import non_special_ip_errors, protocol_errors
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import child, index, is_dns1123_label, is_dns1123_subdomain

__all__ = ["EndpointsStrategy", "validate_endpoints"]


def _address_errors(address: EndpointAddress, path: str) -> list[FieldError]:
    errs = ip_errors(address.ip, child(path, "ip"))
    if address.hostname:
        errs += [FieldError.invalid(child(path, "hostname"), address.hostname, m)
                 for m in is_dns1123_label(address.hostname)]
    if address.node_name is not None:
        errs += [FieldError.invalid(child(path, "nodeName"), address.node_name, m)
                 for m in is_dns1123_subdomain(address.node_name)]
    if not errs:  # ValidateEndpointIP runs on a parsed address only
        errs += non_special_ip_errors(address.ip, child(path, "ip"))
    return errs


def _port_errors(port: EndpointsPort, require_name: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if require_name and not port.name:
        errs.append(FieldError.required(child(path, "name")))
    elif port.name:
        errs += [FieldError.invalid(child(path, "name"), port.name, m) for m in is_dns1123_label(port.name)]
    if not 1 <= port.port <= 65535:
        errs.append(FieldError.invalid(child(path, "port"), port.port,
                                       "must be between 1 and 65535, inclusive"))
    return errs + protocol_errors(port.protocol, port.app_protocol, path)


def _subset_errors(subset: EndpointSubset, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not subset.addresses and not subset.not_ready_addresses:
        errs.append(FieldError.required(path, "must specify `addresses` or `notReadyAddresses`"))
    for field, addresses in (("addresses", subset.addresses),
                             ("notReadyAddresses", subset.not_ready_addresses)):
        for i, address in enumerate(addresses or ()):
            errs += _address_errors(address, index(child(path, field), i))
    ports = subset.ports or []
    for i, port in enumerate(ports):
        errs += _port_errors(port, len(ports) > 1, index(child(path, "ports"), i))
    return errs


def validate_endpoints(obj: Endpoints) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, subset in enumerate(obj.subsets or ()):
        errs += _subset_errors(subset, index("subsets", i))
    return errs


class EndpointsStrategy(DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation
    has_status = False

    def prepare_for_create(self, obj: Resource) -> None:
        assert isinstance(obj, Endpoints)
        if obj.subsets:
            obj.subsets = repack_subsets(obj.subsets)

    def prepare_for_update(self, new: Resource, old: Resource) -> None:
        self.prepare_for_create(new)

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, Endpoints)
        return validate_endpoints(obj)

    def validate_update(self, new: Resource, old: Resource) -> list[FieldError]:
        return []  # ValidateEndpointsUpdate: the create rules (run first) and the metadata update checks
