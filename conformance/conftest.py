"""pytest wiring for the conformance suite: the ``target`` fixture and the semantics report.

Each check carries ``@pytest.mark.semantic("what it checks", source="upstream reference")``; at the
end of ``pytest conformance`` a table lists every semantic with pass/fail/skip and its source.
Checks marked ``needs_virtual_clock`` are skipped on targets without one; checks marked
``plays_kubelet`` (pod outcomes by status patches) are skipped on targets whose pods a kubelet runs;
checks marked ``runs_pods`` (pod outcomes from the container command) get a target that runs pods
(:func:`conformance.factory.pod_target_factory`) and are skipped where none does.

The target defaults to in-process kbatch; ``KBATCH_CONFORMANCE_TARGET=module:factory`` selects
another factory returning a :class:`conformance.target.Target`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.factory import pod_target_factory, target_factory, target_spec
from conformance.target import Target, runs_pods

# Per pytest session (``config.stash``), not module globals: ``kbatch conformance`` runs the suite
# with ``pytest.main`` inside a process that may itself be a pytest session using this conftest.
_RESULTS = pytest.StashKey[list]()  # (semantic, outcome, source, test id)
_TARGETS = pytest.StashKey[list]()  # descriptions of the targets the checks ran against, first seen first


def describe(tgt: Target) -> str:
    """A target's ``description`` (URL, clock) when it has one, else its class name."""
    clock = "virtual clock" if tgt.has_virtual_clock else "no virtual clock"
    return str(getattr(tgt, "description", None) or f"{type(tgt).__name__} ({clock})")


def close_target(tgt: Target) -> None:
    """``tgt.close()`` when the target has one (HTTP clients, namespaces), else its control plane's."""
    close = getattr(tgt, "close", None) or getattr(getattr(tgt, "cp", None), "close", None)
    if close is not None:
        close()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_RESULTS] = []
    config.stash[_TARGETS] = []
    config.addinivalue_line("markers", "semantic(text, source): the documented behaviour a check proves")
    config.addinivalue_line("markers", "needs_virtual_clock: skip on targets without a virtual clock")
    config.addinivalue_line("markers", "plays_kubelet: patches pod status; skip where a kubelet runs pods")
    config.addinivalue_line("markers", "runs_pods: a kubelet runs the pods; skip where none does")
    config.addinivalue_line("markers", "api_validation: creates invalid objects only; runs on every target")


def skip_reason(node: pytest.Item, tgt: Target) -> str | None:
    """Why a check cannot run on ``tgt`` (by its markers), or None."""
    if node.get_closest_marker("needs_virtual_clock") and not tgt.has_virtual_clock:
        return "needs a target with a virtual clock"
    if node.get_closest_marker("plays_kubelet") and runs_pods(tgt):
        return "plays the kubelet, but a kubelet runs this target's pods"
    if node.get_closest_marker("runs_pods") and not runs_pods(tgt):
        return "needs a target whose pods a scheduler and kubelet run (nodes)"
    return None


@pytest.fixture
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    factory = pod_target_factory() if request.node.get_closest_marker("runs_pods") else target_factory()
    tgt = factory()
    targets = request.config.stash[_TARGETS]
    if describe(tgt) not in targets:
        targets.append(describe(tgt))
    reason = skip_reason(request.node, tgt)
    if reason:
        close_target(tgt)
        pytest.skip(reason)
    yield tgt
    close_target(tgt)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    marker = item.get_closest_marker("semantic")
    if marker is None:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        text = marker.args[0] if marker.args else item.name
        source = marker.kwargs.get("source", "")
        item.config.stash[_RESULTS].append((text, report.outcome, source, item.nodeid))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    results = config.stash.get(_RESULTS, [])
    if not results:
        return
    tr = terminalreporter
    tr.section("kbatch conformance report")
    tr.write_line(f"target: {target_spec()}")
    for text in config.stash[_TARGETS]:
        tr.write_line(f"        {text}")
    width = min(70, max(len(r[0]) for r in results))
    seen: set[str] = set()
    for text, outcome, source, nodeid in results:
        key = f"{nodeid}:{text}"
        if key in seen:
            continue
        seen.add(key)
        mark = {"passed": "PASS", "failed": "FAIL", "skipped": "SKIP"}.get(outcome, outcome.upper())
        tr.write_line(f"{mark:4}  {text[:width]:<{width}}  {source}")
    counts = {o: sum(1 for r in results if r[1] == o) for o in ("passed", "failed", "skipped")}
    tr.write_line(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped "
                  f"of {len(results)} semantics")
