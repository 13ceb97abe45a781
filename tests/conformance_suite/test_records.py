"""The records a check's phases send to the report: they survive the trip as builtins (execnet, JSON),
and the report folds them into the same results, descriptions and version whatever order they
arrive in, as long as each check's own phases stay in order (what pytest-xdist's workers guarantee)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.records import Aggregate, Record, Seen, from_wire, to_wire
from conformance.report import Outcome, Semantic

texts = st.text(max_size=12)
seens = st.builds(Seen, description=st.sampled_from(["a", "b", "c"]),
                  capabilities=st.lists(st.sampled_from(["kubelet", "faults"]), unique=True).map(tuple),
                  kubernetes_version=st.none() | st.sampled_from(["v1.37.0", "v1.36.0"]))
phases = st.builds(Outcome, status=st.sampled_from(["passed", "failed", "skipped", "error"]),
                   duration=st.floats(0, 10), message=texts, details=texts)


@st.composite
def checks(draw: st.DrawFn, position: int) -> list[Record]:
    """One check's phases (setup, call, teardown; fewer when setup did not pass), in order."""
    sem = Semantic(id=f"fam.check{position}", family="fam", title=draw(texts), source=draw(texts),
                   requires=("kubelet",), nodeid=f"test_x.py::test_{position}")
    marked = sem if draw(st.booleans()) else None  # None: a test without a semantic marker
    steps = draw(st.lists(phases, min_size=1, max_size=3))
    return [Record(position, phase, marked, tuple(draw(st.lists(seens, max_size=2))) if i == 0 else ())
            for i, phase in enumerate(steps)]


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[Record], list[Record]]:
    """A run's records in collection order, and the same records as workers might deliver them: any
    interleaving that keeps each check's own phases in order."""
    per_check = [draw(checks(position)) for position in range(draw(st.integers(0, 6)))]
    serial = [r for records in per_check for r in records]
    owners = draw(st.permutations([i for i, records in enumerate(per_check) for _ in records]))
    pending = [list(records) for records in per_check]
    return serial, [pending[i].pop(0) for i in owners]


def _folded(records: list[Record]) -> Aggregate:
    aggregate = Aggregate()
    for record in records:
        aggregate.fold(record)
    return aggregate


@given(runs())
def test_a_record_survives_the_trip_as_json(run: tuple[list[Record], list[Record]]):
    for record in run[0]:
        assert from_wire(json.loads(json.dumps(to_wire(record)))) == record


@given(runs())
def test_the_arrival_order_does_not_change_the_report(run: tuple[list[Record], list[Record]]):
    serial, delivered = _folded(run[0]), _folded(run[1])
    assert delivered.results() == serial.results()
    assert [r.semantic.nodeid for r in serial.results()] == list(
        dict.fromkeys(r.semantic.nodeid for r in run[0] if r.semantic))  # collection order
    assert delivered.descriptions() == serial.descriptions()
    assert delivered.capabilities() == serial.capabilities()
    assert delivered.kubernetes_version() == serial.kubernetes_version()


def test_a_crashed_worker_makes_a_known_check_an_error_and_leaves_unknown_ones_out():
    sem = Semantic(id="fam.a", family="fam", title="t", source="s", nodeid="test_x.py::test_a")
    aggregate = Aggregate()
    aggregate.fold(Record(0, Outcome("passed", 1.0), sem))
    aggregate.fold_more(sem.nodeid, Outcome("error", 0.5, "worker 'gw0' crashed"))
    aggregate.fold_more("test_x.py::test_unknown", Outcome("error", 0.5, "worker 'gw1' crashed"))
    [result] = aggregate.results()
    assert result.outcome == Outcome("error", 1.5, "worker 'gw0' crashed")
