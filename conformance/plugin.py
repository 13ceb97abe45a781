"""The pytest side of the conformance suite: the ``target`` fixtures, requirements, namespaces and the
report (loaded by ``conformance/conftest.py``, so ``pytest conformance`` and ``kbatch conformance``
behave the same).

For every check: the target factory builds a target (:mod:`conformance.factory`); a check whose
requirement markers the target does not meet is skipped with the reasons
(:mod:`conformance.requirements`); otherwise the suite creates the check's own namespace, hands the
check a :class:`~conformance.isolation.NamespacedTarget`, and afterwards deletes what the family
creates and the namespace (:mod:`conformance.isolation`).

Options: ``--conformance-json FILE`` / ``--conformance-junit-xml FILE`` (the reports,
:mod:`conformance.report`), ``--conformance-family NAME`` (repeatable: only those families),
``--conformance-list`` (collect, list every semantic with its source, run nothing). The seed of
the namespace names (and of the in-process control plane) is ``KBATCH_CONFORMANCE_SEED`` (default 0).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from conformance import families, requirements
from conformance.factory import pod_target_factory, target_factory, target_spec
from conformance.isolation import (
    NamespacedTarget,
    claim_namespace,
    namespace_names,
    release_namespace,
    run_seed,
)
from conformance.records import Aggregate, Record, Seen, from_wire, semantic_from_wire, to_wire
from conformance.report import Outcome, Run, Semantic, junit, report_json, table
from conformance.target import Target, capabilities, gates_of

__all__ = ["describe", "listing", "register_markers", "semantic_of"]

_STATE = pytest.StashKey["_State"]()
_SEEN = pytest.StashKey[list[Seen]]()  # on an item: the targets its current phase built
_RECORD = "kbatch_conformance"  # the report attribute carrying a phase's record (conformance.records)
_LISTED = "kbatch_conformance_listed"  # an xdist worker's --conformance-list, in its workeroutput


class _State:
    """What one pytest session gathers (in ``config.stash``: ``kbatch conformance`` runs the suite
    with ``pytest.main`` inside processes that may themselves be pytest sessions), and the hooks that
    gather it (registered as a plugin of that session: a module-level hook has no session to hold it)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.positions: dict[str, int] = {}  # nodeid -> place in this process's collection
        self.aggregate = Aggregate()  # every phase's record, from this process or xdist's workers
        self.listed: list[Semantic] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.positions = {item.nodeid: i for i, item in enumerate(session.items)}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Fold each phase into the report where reports end up: the only process of a serial run,
        the controller (and, unused, the worker) of an xdist run."""
        wire = getattr(report, _RECORD, None)
        if wire is not None:
            self.aggregate.fold(from_wire(wire))
        elif report.failed:
            self.aggregate.fold_more(report.nodeid, _phase(report))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """pytest-xdist's hook on the controller when a worker finished (``xdist/newhooks.py``): its
        ``--conformance-list`` comes in its ``workeroutput``; every worker collected the same."""
        listed = getattr(node, "workeroutput", {}).get(_LISTED)
        if listed and not self.listed:
            self.listed = [semantic_from_wire(s) for s in listed]


def _is_xdist_worker(config: pytest.Config) -> bool:
    """pytest-xdist's own test (``xdist.is_xdist_worker``), without importing xdist, which kbatch does
    not depend on: a worker's config has the ``workerinput`` the controller sent."""
    return hasattr(config, "workerinput")


def describe(tgt: Target) -> str:
    """A target's ``description`` when it has one, else its class name and capabilities."""
    caps = ", ".join(sorted(capabilities(tgt))) or "no capabilities"
    return str(getattr(tgt, "description", None) or f"{type(tgt).__name__} ({caps})")


def _close(tgt: Target) -> None:
    close = getattr(tgt, "close", None) or getattr(getattr(tgt, "cp", None), "close", None)
    if close is not None:
        close()


# -- options and markers --------------------------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kbatch-conformance", "kbatch conformance suite")
    group.addoption("--conformance-json", metavar="FILE", help="write the JSON report (docs/conformance.md)")
    group.addoption("--conformance-junit-xml", metavar="FILE", help="write the JUnit XML report")
    group.addoption("--conformance-family", metavar="NAME", action="append", default=[],
                    help="run only this family (repeatable)")
    group.addoption("--conformance-list", action="store_true",
                    help="list every semantic with its upstream source; run nothing")


def register_markers(config: pytest.Config) -> None:
    """Declare the suite's markers (``semantic`` and every requirement marker, the families' own
    included), so a session that imports checks without this plugin (the repository's tests/) knows
    them too: the repository's root conftest.py calls this."""
    for family in families.FAMILIES:
        importlib.import_module(family.package)  # a family's __init__ registers its own markers
    config.addinivalue_line("markers", "semantic(text, source): the documented behaviour a check proves")
    for marker, req in requirements.REQUIREMENTS.items():
        config.addinivalue_line("markers", f"{marker}: {req.doc}")


def pytest_configure(config: pytest.Config) -> None:
    if _STATE not in config.stash:
        config.stash[_STATE] = state = _State(run_seed())
        config.pluginmanager.register(state, "kbatch-conformance-report")
    register_markers(config)
    for name in config.getoption("--conformance-family", []) or ():
        families.by_name(name)  # an unknown family is a usage error, before anything runs


# -- semantics ------------------------------------------------------------------------------------------
def _strip(name: str) -> str:
    return name[5:] if name.startswith("test_") else name


def semantic_of(item: pytest.Item) -> Semantic | None:
    """The semantic an item checks (its ``semantic`` marker), or None for an unmarked test."""
    marker = item.get_closest_marker("semantic")
    if marker is None:
        return None
    module = getattr(getattr(item, "module", None), "__name__", "") or ""
    family = families.family_of(module)
    family_name = family.name if family else (module.split(".")[1] if "." in module else "unregistered")
    rest = module[len(family.package) + 1:] if family else module.rpartition(".")[2]
    check_id = ".".join([family_name, *(_strip(p) for p in rest.split(".") if p), _strip(item.name)])
    markers = [m.name for m in item.iter_markers()]
    return Semantic(id=check_id, family=family_name, title=str(marker.args[0] if marker.args else item.name),
                    source=str(marker.kwargs.get("source", "")), nodeid=item.nodeid,
                    requires=tuple(requirements.needed(markers)),
                    excludes=tuple(requirements.excluded(markers)))


def _family_name(item: pytest.Item) -> str | None:
    sem = semantic_of(item)
    return sem.family if sem else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    chosen = set(config.getoption("--conformance-family", []) or ())
    if chosen:
        keep = [i for i in items if _family_name(i) in chosen]
        dropped = [i for i in items if _family_name(i) not in chosen]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep
    if config.getoption("--conformance-list", False):
        config.stash[_STATE].listed = [s for s in map(semantic_of, items) if s is not None]
        items[:] = []  # list only: nothing runs


# -- the target fixtures --------------------------------------------------------------------------------
def _markers(node: pytest.Item) -> list[str]:
    return [m.name for m in node.iter_markers()]


def _factory(node: pytest.Item) -> Callable[[], Target]:
    gates = gates_of(set(requirements.needed(_markers(node))))
    return pod_target_factory(gates) if node.get_closest_marker("runs_pods") else target_factory(gates)


def _kinds(node: pytest.Item) -> tuple[str, ...]:
    sem = semantic_of(node)
    family = next((f for f in families.FAMILIES if sem and f.name == sem.family), None)
    return family.kinds if family else ()


def _seen(tgt: Target) -> Seen:
    return Seen(describe(tgt), tuple(sorted(capabilities(tgt))), getattr(tgt, "kubernetes_version", None))


def _checked(request: pytest.FixtureRequest) -> Target:
    """A new target for this check; skips (closing it) when the check's requirements are unmet."""
    tgt = _factory(request.node)()
    request.node.stash.setdefault(_SEEN, []).append(_seen(tgt))
    reasons = requirements.unmet(_markers(request.node), capabilities(tgt))
    if reasons:
        _close(tgt)
        pytest.skip("; ".join(reasons))
    return tgt


@contextlib.contextmanager
def _in_namespace(tgt: Target, names: Iterator[str], kinds: tuple[str, ...]) -> Iterator[NamespacedTarget]:
    namespace = claim_namespace(tgt, names)
    try:
        yield NamespacedTarget(tgt, namespace)
    finally:
        release_namespace(tgt, namespace, kinds)


def _names(request: pytest.FixtureRequest) -> Iterator[str]:
    sem = semantic_of(request.node)
    return namespace_names(request.config.stash[_STATE].seed, sem.id if sem else request.node.nodeid)


@pytest.fixture
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    """The implementation under test, bound to a fresh namespace of this check's own."""
    tgt = _checked(request)
    try:
        with _in_namespace(tgt, _names(request), _kinds(request.node)) as scoped:
            yield scoped
    finally:
        _close(tgt)


@pytest.fixture
def fresh_targets(request: pytest.FixtureRequest) -> Iterator[Callable[[], Any]]:
    """For property checks that need a new target per example: ``with fresh_targets() as target:``.
    The requirements are checked once, on the first target; each example gets its own namespace."""
    probe = _checked(request)
    _close(probe)
    names, kinds, factory = _names(request), _kinds(request.node), _factory(request.node)

    @contextlib.contextmanager
    def fresh() -> Iterator[NamespacedTarget]:
        tgt = factory()
        try:
            with _in_namespace(tgt, names, kinds) as scoped:
                yield scoped
        finally:
            _close(tgt)

    yield fresh


# -- results ----------------------------------------------------------------------------------------------
def _message(report: pytest.TestReport) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr or "")
    return text.strip()


def _outcome(report: pytest.TestReport) -> str:
    if report.when == "call" or report.skipped:
        return report.outcome
    return "error"  # setup or teardown failed: the target, not the semantic


def _phase(report: pytest.TestReport) -> Outcome:
    """One phase of a check (setup, call, teardown) as the report counts it: a failure outside the
    call is an ``error``."""
    if report.passed:
        return Outcome("passed", report.duration)
    details = "" if report.skipped else report.longreprtext
    return Outcome(_outcome(report), report.duration, _message(report), details)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    """Attach the phase's record to its report, in the process that ran it (an xdist worker sends it
    on to the controller with the report)."""
    outcome = yield
    seen: list[Seen] = item.stash.get(_SEEN, [])
    item.stash[_SEEN] = []
    sem = semantic_of(item)
    if sem is not None or seen:
        positions = item.config.stash[_STATE].positions
        report = outcome.get_result()
        record = Record(positions.get(item.nodeid, len(positions)), _phase(report), sem, tuple(seen))
        setattr(report, _RECORD, to_wire(record))


def _run(config: pytest.Config, exit_code: int | None) -> Run:
    state = config.stash[_STATE]
    chosen = config.getoption("--conformance-family", []) or [f.name for f in families.FAMILIES]
    seen = state.aggregate
    return Run(target=target_spec(), descriptions=seen.descriptions(),
               kubernetes_version=seen.kubernetes_version(), capabilities=seen.capabilities(),
               seed=state.seed, families=tuple(chosen), exit_code=exit_code)


def listing(semantics: list[Semantic]) -> list[str]:
    """``--conformance-list``: each family, then each semantic's id, requirements, title and source."""
    lines: list[str] = []
    for family in dict.fromkeys(s.family for s in semantics):
        mine = [s for s in semantics if s.family == family]
        lines.append(f"{family} ({len(mine)} semantics)")
        for s in mine:
            needs = ", ".join([*s.requires, *(f"not {c}" for c in s.excludes)])
            lines += [f"  {s.id}" + (f"  [{needs}]" if needs else ""), f"      {s.title}",
                      f"      source: {s.source}"]
    lines.append(f"{len(semantics)} semantics")
    return lines


def _listing_json(semantics: list[Semantic]) -> dict[str, Any]:
    return {"kind": "ConformanceSemanticList",
            "semantics": [{"id": s.id, "family": s.family, "title": s.title, "source": s.source,
                           "requires": list(s.requires), "excludes": list(s.excludes)} for s in semantics]}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    listing_mode = config.getoption("--conformance-list", False)
    if _is_xdist_worker(config):  # the controller writes the files, once
        if listing_mode:
            config.workeroutput[_LISTED] = [asdict(s) for s in state.listed]  # type: ignore[attr-defined]
        return
    if listing_mode and state.listed and int(exitstatus) == pytest.ExitCode.NO_TESTS_COLLECTED:
        session.exitstatus = pytest.ExitCode.OK
    run = _run(config, int(session.exitstatus))
    results = state.aggregate.results()
    json_path = config.getoption("--conformance-json", None)
    if json_path:
        doc = _listing_json(state.listed) if listing_mode else report_json(run, results)
        Path(json_path).write_text(json.dumps(doc, indent=2) + "\n")
    xml_path = config.getoption("--conformance-junit-xml", None)
    if xml_path and not listing_mode:
        tree = ET.ElementTree(junit(run, results))
        ET.indent(tree)
        tree.write(xml_path, encoding="utf-8", xml_declaration=True)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    if config.getoption("--conformance-list", False):
        terminalreporter.section("kbatch conformance semantics")
        for line in listing(state.listed):
            terminalreporter.write_line(line)
        return
    results = state.aggregate.results()
    if not results:
        return
    terminalreporter.section("kbatch conformance report")
    for line in table(_run(config, int(exitstatus)), results):
        terminalreporter.write_line(line)
