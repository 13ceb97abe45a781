"""Use the kbatch pytest plugin here the way a user would (fixtures and markers)."""

from kbatch.testing.plugin import control_plane, pytest_configure

__all__ = ["control_plane", "pytest_configure"]
