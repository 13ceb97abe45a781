"""The kbatch pytest plugin: a ready ``control_plane`` fixture.

Enable it with ``pytest_plugins = ["kbatch.testing.plugin"]`` in your root ``conftest.py`` (or via
the ``pytest11`` entry point once installed). Configure per test with markers::

    @pytest.mark.controllers("job,garbage-collector")   # kube-controller-manager syntax
    @pytest.mark.seed(7)
    @pytest.mark.addons("")                              # a cluster without the default StorageClass
    def test_job(control_plane): ...

or indirectly with ``@pytest.mark.parametrize("control_plane", ["*", "job"], indirect=True)``.
Defaults: seed 0, every default controller, every default cluster add-on (the StorageClass
``standard``), virtual clock at 2025-01-01T00:00:00Z.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kbatch.runtime.controlplane import ControlPlane

__all__ = ["control_plane", "pytest_configure"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "controllers(selection): controllers the control_plane runs")
    config.addinivalue_line("markers", "seed(n): seed of the control_plane's random source")
    config.addinivalue_line("markers", "addons(selection): cluster add-ons the new control_plane gets")


@pytest.fixture
def control_plane(request: pytest.FixtureRequest) -> Iterator[ControlPlane]:
    """A fresh virtual-time control plane; torn down after the test."""
    selection: Any = "*"
    marker = request.node.get_closest_marker("controllers")
    if marker is not None:
        selection = marker.args[0] if marker.args else ""
    if hasattr(request, "param"):
        selection = request.param
    seed_marker = request.node.get_closest_marker("seed")
    seed = seed_marker.args[0] if seed_marker is not None else 0
    addons_marker = request.node.get_closest_marker("addons")
    addons = (addons_marker.args[0] if addons_marker.args else "") if addons_marker is not None else None
    cp = ControlPlane(seed=seed, controllers=selection, addons=addons)
    try:
        yield cp
    finally:
        cp.close()
