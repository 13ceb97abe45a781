"""Properties of a pod's stop (:func:`kbatch.controllers.kubelet.engine.request_deletion`): every
container has exited by the end of the grace period plus the one 2 s extension, and no sidecar is
signalled before the app containers have exited unless the grace period ended first
(``killContainer``, ``terminationOrdering``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.kubelet.engine import APP, SIDECAR, PodRun, Proc, advance, request_deletion
from kbatch.controllers.kubelet.termination import MINIMUM_GRACE, Hook
from kbatch.sim.command import ContainerRun

_FOREVER = 10.0 ** 9
_outcome = st.one_of(st.none(), st.tuples(st.integers(0, 40), st.integers(0, 3)))  # None: dropped
_hook = st.one_of(st.none(), st.tuples(st.integers(0, 50), st.booleans()))


@settings(max_examples=200, deadline=None)
@given(apps=st.lists(st.tuples(_outcome, _hook), min_size=1, max_size=3),
       sidecars=st.lists(st.tuples(_outcome, _hook), max_size=3), grace=st.integers(0, 30),
       runs=st.integers(1, 20))
def test_stop_ends_within_the_grace_period_and_in_order(apps: list, sidecars: list, grace: int,
                                                        runs: int) -> None:
    inits = [Proc(f"s{i}", SIDECAR) for i in range(len(sidecars))]
    procs = [Proc(f"a{i}", APP) for i in range(len(apps))]
    run = PodRun("ns", "p", "u", "Never", 0.0, 0.0, inits, procs)
    behaviour = {p.name: b for p, b in zip([*inits, *procs], [*sidecars, *apps], strict=True)}
    signalled: dict[str, float] = {}
    advance(run, 0.0, lambda proc, restart: ContainerRun(_FOREVER, 0))

    def stop(proc: Proc, at: float) -> ContainerRun | None:
        signalled[proc.name] = at
        outcome = behaviour[proc.name][0]
        return None if outcome is None else ContainerRun(at + outcome[0], outcome[1])

    def prestop(proc: Proc, at: float) -> Hook | None:
        hook = behaviour[proc.name][1]
        return None if hook is None else Hook(float(hook[0]), hook[1])

    now = float(runs)
    request_deletion(run, now + grace, now, stop, None, prestop)
    advance(run, now + grace + 10 * MINIMUM_GRACE, lambda proc, restart: ContainerRun(_FOREVER, 0),
            stop, prestop)
    assert run.terminal
    for proc in [*inits, *procs]:
        assert proc.finished_at is not None and proc.finished_at <= now + grace + MINIMUM_GRACE
    if signalled and inits:
        first_sidecar = min((at for name, at in signalled.items() if name.startswith("s")), default=None)
        if first_sidecar is not None:
            # every container started at 0: ``at`` (seconds since its start) is the instant; a
            # sidecar waits for its turn at most the grace period (``waitForTurn``)
            apps_done = max(p.finished_at or 0.0 for p in procs)
            assert first_sidecar >= min(apps_done, now + grace)
