"""Properties of gang scheduling under both APIs (hypothesis): a group is never bound below its quorum;
a group that fits an empty cluster is placed whole; placements are a function of the inputs."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from gang.builders import NATIVE, gpu_cluster, gpu_pod, native_group, node_of, x_group
from kbatch.runtime.controlplane import ControlPlane


@dataclass(frozen=True)
class Group:
    name: str
    size: int
    quorum: int
    gpus: int
    seconds: int


groups_st = st.lists(
    st.builds(lambda size, q, gpus, secs: (size, min(q, size), gpus, secs),
              st.integers(1, 4), st.integers(1, 4), st.sampled_from([2, 4, 8]), st.integers(5, 40)),
    min_size=1, max_size=4).map(lambda items: [Group(f"g{i}", *item) for i, item in enumerate(items)])
apis = st.sampled_from(["native", "coscheduling"])


def submit(cp: ControlPlane, api: str, group: Group) -> list[str]:
    names = [f"{group.name}-{i}" for i in range(group.size)]
    if api == "native":
        cp.apply(native_group(group.name, group.quorum))
        cp.apply([gpu_pod(n, group=group.name, gpus=group.gpus, command=f"sleep {group.seconds}")
                  for n in names])
    else:
        cp.apply(x_group(group.name, group.quorum, timeout=15))
        cp.apply([gpu_pod(n, xgroup=group.name, gpus=group.gpus, command=f"sleep {group.seconds}")
                  for n in names])
    return names


Members = dict[str, list[str]]


def run(api: str, nodes: int, groups: list[Group], seed: int = 0) -> tuple[ControlPlane, Members]:
    cp = gpu_cluster(nodes, gates=NATIVE if api == "native" else None, seed=seed)
    members = {}
    for group in groups:
        members[group.name] = submit(cp, api, group)
        cp.advance(3)
    return cp, members


@settings(max_examples=12)
@given(apis, st.integers(1, 3), groups_st)
def test_a_group_is_never_bound_below_its_quorum(api: str, nodes: int, groups: list[Group]) -> None:
    cp, members = run(api, nodes, groups)
    for _ in range(12):
        for group in groups:
            placed = sum(1 for name in members[group.name] if node_of(cp, name))
            assert placed == 0 or placed >= group.quorum, (group, placed)
        cp.advance(7)


@settings(max_examples=12)
@given(apis, st.integers(1, 3), st.integers(1, 4), st.sampled_from([1, 2, 4, 8]))
def test_a_group_that_fits_an_empty_cluster_is_placed_whole(api: str, nodes: int, size: int,
                                                             gpus: int) -> None:
    if size * gpus > nodes * 8:
        size = max(1, nodes * 8 // gpus)
    cp, members = run(api, nodes, [Group("g", size, size, gpus, 30)])
    cp.advance(1)
    assert all(node_of(cp, name) for name in members["g"])


@settings(max_examples=6)
@given(apis, st.integers(1, 3), groups_st, st.integers(0, 3))
def test_placements_are_a_function_of_the_inputs(api: str, nodes: int, groups: list[Group],
                                                 seed: int) -> None:
    def placements() -> list[tuple[str, str | None]]:
        cp, members = run(api, nodes, groups, seed)
        cp.advance(30)
        return [(n, node_of(cp, n)) for names in members.values() for n in names]

    assert placements() == placements()


@settings(max_examples=8, deadline=None)
@given(apis, st.integers(1, 2), groups_st, st.lists(st.integers(1, 9), min_size=1, max_size=3))
def test_a_saved_and_loaded_control_plane_continues_the_same_run(api: str, nodes: int, groups: list[Group],
                                                                 steps: list[int]) -> None:
    """Continuity (docs/cli.md "How state is kept"): pickling the control plane between advances (as
    every CLI command does) while pods wait at Permit, groups back off or wait in PreEnqueue and
    timers are pending changes nothing: the same trace as one uninterrupted run."""
    import pickle

    def digest(save_between: bool) -> str:
        cp, _ = run(api, nodes, groups)
        for step in steps:
            if save_between:
                cp = pickle.loads(pickle.dumps(cp))
            cp.advance(step)
        return cp.trace.digest()

    assert digest(True) == digest(False)
