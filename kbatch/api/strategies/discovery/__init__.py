"""discovery.k8s.io/v1 EndpointSlice strategy (kubernetes ``pkg/registry/discovery/endpointslice/
strategy.go``): generation 1 on create, bumped by an update that changes anything but metadata; no
status. Validation: :mod:`.validation`.
"""

from __future__ import annotations

from kbatch.api.discovery_v1 import EndpointSlice
from kbatch.api.errors import FieldError
from kbatch.api.meta import Resource
from kbatch.api.strategies.discovery.validation import validate_endpoint_slice, validate_endpoint_slice_update
from kbatch.api.strategy import DefaultStrategy

__all__ = ["EndpointSliceStrategy"]


class EndpointSliceStrategy(DefaultStrategy):
    has_status = False
    update_revalidates = False  # ValidateEndpointSliceUpdate is a whole validation (the IP type passes)

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, EndpointSlice)
        return validate_endpoint_slice(obj, update=False)

    def validate_update(self, new: Resource, old: Resource) -> list[FieldError]:
        assert isinstance(new, EndpointSlice) and isinstance(old, EndpointSlice)
        return validate_endpoint_slice_update(new, old)

    def spec_changed(self, new: Resource, old: Resource) -> bool:
        """``PrepareForUpdate``: any change outside metadata bumps the generation."""
        assert isinstance(new, EndpointSlice) and isinstance(old, EndpointSlice)
        return bool((new.address_type, new.endpoints, new.ports or [])
                    != (old.address_type, old.endpoints, old.ports or []))
