"""Which API modules contribute kinds to :func:`kbatch.api.registry.builtin_registry`.

Each API module exposes ``install(registry)``; list it here in preferred order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kbatch.api.registry import Registry

INSTALLERS: list[Callable[[Registry], None]] = []

from kbatch.api.strategies import core as _core  # noqa: E402  (core/v1 kinds, then PriorityClass)

INSTALLERS.append(_core.install)
INSTALLERS.append(_core.install_scheduling)

from kbatch.api import batch_v1  # noqa: E402  (batch/v1 Job, CronJob)

INSTALLERS.append(batch_v1.install)

from kbatch.api import policy_v1  # noqa: E402  (policy/v1 PodDisruptionBudget)

INSTALLERS.append(policy_v1.install)

from kbatch.api import coordination_v1  # noqa: E402  (coordination.k8s.io/v1 Lease: node heartbeats)

INSTALLERS.append(coordination_v1.install)
