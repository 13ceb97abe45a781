"""Repository-wide pytest configuration: hypothesis profiles, and strict mode.

Strict mode (:mod:`kbatch.api.frozen`) freezes every shared read object, so a test or a controller
that changes one in place fails where it does (``KBATCH_STRICT=0`` turns it off for a run).

``ci`` (chosen when the ``CI`` environment variable is set) is derandomized, so a CI run is
reproducible; ``dev`` explores new examples each run. Neither has a deadline: virtual-time tests do
real work per example and the machine has two cores shared with other jobs.
"""

from __future__ import annotations

import gc
import os

import pytest
from hypothesis import HealthCheck, settings

from kbatch.api.frozen import changed_since_frozen, reset_frozen, set_strict, strict
from kbatch.api.model_intern import reset_interning

set_strict(os.environ.get("KBATCH_STRICT", "1") not in ("", "0"))


@pytest.fixture(autouse=True)
def _shared_objects_unchanged() -> object:
    """Strict mode: after each test, no shared object changed inside its lists or dicts (attribute
    assignments fail at once); then forget the test's frozen objects. Interning (a process-wide table
    of canonical instances) starts afresh for every test."""
    reset_interning()
    yield
    # A command run in process freezes the image it loaded for the command's life (runtime/image.py
    # gc.freeze); the test outlives it. Frozen objects are never collected, so without this every
    # later freeze would also pin whatever garbage was pending: the serial suite grew to ~6 GiB.
    gc.unfreeze()
    if not strict():
        return
    changed = changed_since_frozen()
    reset_frozen()
    if changed:
        pytest.fail("shared read-only objects were changed in place (copy with kbatch.api.edit first): "
                    + ", ".join(changed[:10]))


def pytest_configure(config: pytest.Config) -> None:
    """The conformance suite's markers are known to every session, also one that imports checks from
    tests/ without the suite's plugin (else pytest warns PytestUnknownMarkWarning)."""
    from conformance.plugin import register_markers

    register_markers(config)


settings.register_profile(
    "ci", deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev", deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
