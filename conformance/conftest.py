"""pytest wiring for the conformance suite: everything lives in :mod:`conformance.plugin` (the
``target`` fixtures, requirement skips, per-check namespaces, the report); this file only hands its
hooks and fixtures to pytest for the ``conformance/`` tree."""

from conformance.plugin import (  # noqa: F401
    fresh_targets,
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_makereport,
    pytest_sessionfinish,
    pytest_terminal_summary,
    target,
)
