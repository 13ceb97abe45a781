"""Repository-wide pytest configuration: hypothesis profiles.

``ci`` (chosen when the ``CI`` environment variable is set) is derandomized, so a CI run is
reproducible; ``dev`` explores new examples each run. Neither has a deadline: virtual-time tests do
real work per example and the machine has two cores shared with other jobs.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev", deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
