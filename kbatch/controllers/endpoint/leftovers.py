"""``checkLeftoverEndpoints`` (kubernetes ``pkg/controller/endpoint/endpoints_controller.go``): at the
controller's start every Endpoints but a leader-election lock (``control-plane.alpha.kubernetes.io/leader``,
client-go ``resourcelock.LeaderElectionRecordAnnotationKey``) queues the Service of its name, so one
whose Service went while the controller was down is deleted. Only then: an Endpoints created later
queues nothing (the controller's Endpoints handler has only ``DeleteFunc``), so an Endpoints written
before its selector-less Service is kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kbatch.api.core_v1.endpoints import LEADER_ANNOTATION
from kbatch.runtime.reconcile import Request

__all__ = ["LEADER_ANNOTATION", "leftover_requests", "request_of"]


def request_of(endpoints: Any) -> Request:
    """The Service an Endpoints belongs to: same namespace, same name."""
    return Request(endpoints.metadata.namespace or "", endpoints.metadata.name or "")


def leftover_requests(endpoints: Iterable[Any]) -> list[Request]:
    """The Services to check at start, in key order (upstream walks its lister in no fixed order)."""
    return sorted(request_of(ep) for ep in endpoints
                  if LEADER_ANNOTATION not in (ep.metadata.annotations or {}))
