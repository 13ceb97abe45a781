"""A request or subrequest as the allocator sees it (upstream ``requestAccessor`` and
``requestData``): its class, selectors, mode, count, admin access, tolerations and capacity."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbatch.api.tolerations import tolerates  # upstream resourceclaim.ToleratesTaint

__all__ = ["RequestData", "tolerates"]


@dataclass(slots=True)
class RequestData:
    claim_index: int
    request_index: int
    sub_index: int
    name: str  # the request's name, or the subrequest's
    parent: str  # the parent request's name for a subrequest, else ""
    device_class: Any
    selectors: list[Any]
    mode: str
    count: int
    admin_access: bool
    tolerations: list[Any]
    capacity_requests: dict[str, Any] | None
    num_devices: int = 0
    all_devices: list[Any] = field(default_factory=list)  # "All" mode: the candidates, in order
    selected_sub: int = 0  # on the sub_index 0 entry of a firstAvailable request: the one chosen

    @property
    def full_name(self) -> str:
        """``<request>`` or ``<request>/<subrequest>``: how results and configs name it."""
        return f"{self.parent}/{self.name}" if self.parent else self.name

    @property
    def base_name(self) -> str:
        return self.parent or self.name

    @property
    def sub_name(self) -> str:
        return self.name if self.parent else ""
