"""Leader election on a Lease (client-go ``tools/leaderelection`` semantics), in virtual time.

Candidates share one in-memory API server; each try is a direct call of ``try_acquire_or_renew``
and time moves on a ``VirtualClock``, so the timing rules are checked exactly: a holder's lease is
respected for ``leaseDuration`` after it was last *observed* to change, a leader gives up after
``renewDeadline`` without a renewal, and of two simultaneous candidates one gets the Conflict.
The property test drives 2-3 candidates through random crashes, pauses and tries and checks the
safety rule: at no instant do two candidates act as leader.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.coordination_v1 import Lease
from kbatch.api.frozen import edit
from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.runtime.clock import VirtualClock
from kbatch.runtime.leaderelection import (
    LeaderElectionConfig,
    LeaderElector,
    LeaseRecord,
    next_record,
)
from kbatch.store import MemoryStore

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def make_candidates(n: int, **timing: float) -> tuple[VirtualClock, list[LeaderElector], APIServer]:
    clock = VirtualClock(T0)
    server = APIServer(MemoryStore(), builtin_registry(), now=clock.now_datetime, rng=random.Random(0))
    electors = [LeaderElector(server.client(), clock, LeaderElectionConfig(identity=f"c{i}", **timing))
                for i in range(n)]
    return clock, electors, server


def holder(server: APIServer) -> str | None:
    return server.client().get(Lease, "kube-controller-manager", "kube-system").spec.holder_identity


def test_defaults_are_kube_controller_managers() -> None:
    cfg = LeaderElectionConfig(identity="me")
    assert (cfg.lease_duration, cfg.renew_deadline, cfg.retry_period) == (15.0, 10.0, 2.0)
    assert (cfg.namespace, cfg.name) == ("kube-system", "kube-controller-manager")


@pytest.mark.parametrize(("timing", "message"), [
    ({"lease_duration": 10, "renew_deadline": 10}, "leaseDuration must be greater"),
    ({"renew_deadline": 2.4, "retry_period": 2}, "renewDeadline must be greater"),
    ({"identity": ""}, "non-empty identity"),
])
def test_config_checks_are_client_gos(timing: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LeaderElectionConfig(**{"identity": "me", **timing})


def test_first_candidate_creates_the_lease_and_renews_keeping_acquire_time() -> None:
    clock, (a, b), server = make_candidates(2)
    assert a.try_acquire_or_renew() and a.is_leader
    lease = server.client().get(Lease, "kube-controller-manager", "kube-system")
    assert (lease.spec.holder_identity, lease.spec.lease_duration_seconds, lease.spec.lease_transitions) == (
        "c0", 15, 0)
    acquired = lease.spec.acquire_time
    clock.advance(2)
    assert a.try_acquire_or_renew()
    renewed = server.client().get(Lease, "kube-controller-manager", "kube-system").spec
    assert renewed.acquire_time == acquired and renewed.renew_time > acquired
    assert not b.try_acquire_or_renew() and not b.is_leader


def test_a_follower_waits_the_lease_duration_from_when_it_observed_the_last_change() -> None:
    clock, (a, b), server = make_candidates(2)
    assert a.try_acquire_or_renew()
    clock.advance(5)
    assert not b.try_acquire_or_renew()  # b observes the record now (t=5)
    clock.advance(14.9)  # a crashed at t=0: 19.9 s since a's renewal, 14.9 s since b saw it
    assert not b.try_acquire_or_renew()
    clock.advance(0.1)
    assert b.try_acquire_or_renew() and holder(server) == "c1"
    lease = server.client().get(Lease, "kube-controller-manager", "kube-system")
    assert lease.spec.lease_transitions == 1


def test_a_leader_that_cannot_renew_steps_down_before_anyone_may_take_over() -> None:
    cfg = LeaderElectionConfig(identity="x")
    assert cfg.renew_deadline + cfg.retry_period < cfg.lease_duration


def test_release_lets_the_next_candidate_in_at_once() -> None:
    clock, (a, b), server = make_candidates(2)
    assert a.try_acquire_or_renew()
    assert not b.try_acquire_or_renew()
    assert a.release() and holder(server) is None
    clock.advance(1)  # the released record asks for a 1 s lease
    assert b.try_acquire_or_renew() and holder(server) == "c1"


def test_two_candidates_at_the_same_instant_one_wins_by_conflict() -> None:
    clock, (a, b), server = make_candidates(2)
    assert a.try_acquire_or_renew()
    a.release()
    clock.advance(1)
    lease = server.client().get(Lease, "kube-controller-manager", "kube-system")
    b.observed, b.observed_at = LeaseRecord.of(lease), clock.now()
    b._version = lease.metadata.resource_version
    a.observed = None
    assert a.try_acquire_or_renew()
    # b read the same version before a wrote: its guarded update gets 409 Conflict
    stale = edit(server.client().get(Lease, "kube-controller-manager", "kube-system"))
    stale.metadata.resource_version = lease.metadata.resource_version
    assert not b._write(stale, next_record(LeaseRecord.of(lease), 0, clock.now(), clock.now_datetime(),
                                           b.config), clock.now())
    assert holder(server) == "c0"


def test_next_record_is_the_client_go_decision() -> None:
    cfg = LeaderElectionConfig(identity="me")
    other = LeaseRecord("other", 15, T0, T0, 3)
    assert next_record(other, observed_at=10, now=24.9, wall=T0, config=cfg) is None
    taken = next_record(other, observed_at=10, now=25, wall=T0, config=cfg)
    assert taken == LeaseRecord("me", 15, T0, T0, 4)
    released = LeaseRecord("", 1, T0, T0, 4)
    assert next_record(released, observed_at=10, now=10, wall=T0, config=cfg) == LeaseRecord(
        "me", 15, T0, T0, 5)
    ours = LeaseRecord("me", 15, T0, T0, 2)
    later = datetime(2025, 1, 1, 0, 1, tzinfo=UTC)
    assert next_record(ours, observed_at=0, now=100, wall=later, config=cfg) == LeaseRecord(
        "me", 15, T0, later, 2)
    assert next_record(None, 0, 0, T0, cfg) == LeaseRecord("me", 15, T0, T0, 0)


# -- the safety property ---------------------------------------------------------------------------

@dataclass
class Candidate:
    """One candidate's ``run()`` loop, stepped by hand: acquire every retry period (jittered), then
    renew every retry period until a renewal fails past the renew deadline."""

    elector: LeaderElector
    next_at: float = 0.0
    leading: bool = False
    last_renew: float = 0.0
    alive: bool = True
    led: list[tuple[float, float]] = field(default_factory=list)

    def step(self, now: float) -> None:
        cfg = self.elector.config
        if not self.leading:
            if self.elector.try_acquire_or_renew():
                self.leading, self.last_renew = True, now
                self.next_at = now + cfg.retry_period
            else:
                self.next_at = now + cfg.retry_period * (1 + self.elector.rng.random() * 1.2)
            return
        if self.elector.try_acquire_or_renew():
            self.last_renew = now
        elif not self.elector.is_leader or now - self.last_renew >= cfg.renew_deadline:
            self.leading = False
        self.next_at = now + cfg.retry_period

    def acting(self, now: float) -> bool:
        """Leads, and may still run its controllers at ``now``: a leader that keeps running steps
        down within ``renewDeadline + retryPeriod`` of its last renewal (a process paused past that
        does nothing meanwhile, and steps down at its next step: the fencing caveat)."""
        cfg = self.elector.config
        return self.alive and self.leading and now - self.last_renew < cfg.renew_deadline + cfg.retry_period


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 3), st.lists(st.tuples(st.sampled_from(["crash", "pause", "run"]), st.integers(0, 2),
                                             st.floats(0.5, 40)), max_size=12))
def test_no_two_candidates_ever_act_as_leader_at_once(n: int, script: list[tuple[str, int, float]]) -> None:
    clock, electors, _ = make_candidates(n)
    cands = [Candidate(e) for e in electors]
    for action, who, amount in script:
        c = cands[who % n]
        if action == "crash":
            c.alive = False
        elif action == "pause":  # the process stops for a while (GC, SIGSTOP): its next step is later
            c.next_at = max(c.next_at, clock.now()) + amount
        end = clock.now() + amount
        while True:
            due = [x for x in cands if x.alive and x.next_at <= end]
            if not due:
                break
            x = min(due, key=lambda x: (x.next_at, cands.index(x)))
            clock.jump_to(max(clock.now(), x.next_at))
            x.step(clock.now())
            acting = [y for y in cands if y.acting(clock.now())]
            names = [y.elector.config.identity for y in acting]
            assert len(acting) <= 1, f"two leaders at t={clock.now()}: {names}"
        clock.jump_to(end)
