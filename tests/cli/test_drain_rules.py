"""The decisions of ``kbatch drain`` (kbatch/cli/drain.py) on pod dicts built here: k8s.io/kubectl
``pkg/drain/filters.go``'s filters, their order and messages, and ``cmdutil.CheckErr``'s lines."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.cli import drain as d

NOW = datetime(2025, 1, 1, 0, 10, tzinfo=UTC)
JOB = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u1", "controller": True}
DAEMONSET = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds", "uid": "u2", "controller": True}


def _pod(name: str, *, owner: dict[str, Any] | None = None, phase: str = "Running", empty_dir: bool = False,
         mirror: bool = False, deleted: str | None = None, namespace: str = "default") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if owner is not None:
        meta["ownerReferences"] = [owner]
    if mirror:
        meta["annotations"] = {d.MIRROR_ANNOTATION: "hash"}
    if deleted:
        meta["deletionTimestamp"] = deleted
    spec: dict[str, Any] = {"nodeName": "n", "containers": [{"name": "c"}]}
    if empty_dir:
        spec["volumes"] = [{"name": "v", "emptyDir": {}}]
    return {"metadata": meta, "spec": spec, "status": {"phase": phase}}


def _exists(namespace: str, name: str) -> tuple[str, bool] | None:
    return None


def _missing(namespace: str, name: str) -> tuple[str, bool] | None:
    return (f"the server could not find the requested resource (get daemonsets.apps {name})", True)


def _verdict(pod: dict[str, Any], lookup: Any = _exists, **flags: Any) -> d.Verdict:
    return d.verdict(pod, d.DrainFlags(**flags), lookup, NOW)


def test_a_job_pod_is_evicted_and_a_bare_pod_needs_force() -> None:
    assert _verdict(_pod("a", owner=JOB)) == d.Verdict(True)
    assert _verdict(_pod("b")) == d.Verdict(False, "Error", d.UNMANAGED_FATAL)
    assert _verdict(_pod("b"), force=True) == d.Verdict(True, "Warning", d.UNMANAGED_WARNING)


def test_mirror_pods_are_skipped_whatever_the_flags() -> None:
    for flags in ({}, {"force": True}, {"force": True, "delete_emptydir_data": True}):
        assert _verdict(_pod("m", mirror=True), **flags) == d.Verdict(False, "Skip")


def test_daemonset_pods_refuse_or_are_ignored_with_a_warning() -> None:
    pod = _pod("x", owner=DAEMONSET)
    assert _verdict(pod) == d.Verdict(False, "Error", d.DAEMONSET_FATAL)
    assert _verdict(pod, ignore_daemonsets=True) == d.Verdict(False, "Warning", d.DAEMONSET_WARNING)
    # the DaemonSet is gone: its GET's error, or with --force a warning (and the pod goes)
    message = "the server could not find the requested resource (get daemonsets.apps ds)"
    assert _verdict(pod, _missing) == d.Verdict(False, "Error", message)
    assert _verdict(pod, _missing, force=True) == d.Verdict(True)  # the next filters' Okay wins
    assert d.daemonset(pod, d.DrainFlags(force=True), _missing) == d.Verdict(True, "Warning", message)


def test_empty_dir_needs_the_flag_and_finished_pods_skip_the_checks() -> None:
    pod = _pod("s", owner=JOB, empty_dir=True)
    assert _verdict(pod) == d.Verdict(False, "Error", d.LOCAL_STORAGE_FATAL)
    # its warning is dropped by the unreplicated filter's Okay after it (upstream's TODO says so)
    assert _verdict(pod, delete_emptydir_data=True) == d.Verdict(True)
    assert d.local_storage(pod, d.DrainFlags(delete_emptydir_data=True)) == \
        d.Verdict(True, "Warning", d.LOCAL_STORAGE_WARNING)
    for phase in ("Succeeded", "Failed"):
        assert _verdict(_pod("f", phase=phase, empty_dir=True)) == d.Verdict(True)
        assert _verdict(_pod("g", owner=DAEMONSET, phase=phase)) == d.Verdict(True)


def test_the_last_warning_wins_as_upstream_keeps_it() -> None:
    """A bare pod with emptyDir and both flags: local storage warns, then unreplicated overwrites."""
    pod = _pod("s", empty_dir=True)
    assert _verdict(pod, force=True, delete_emptydir_data=True) == d.Verdict(True, "Warning",
                                                                             d.UNMANAGED_WARNING)


def test_pods_deleted_long_ago_are_skipped_with_skip_wait() -> None:
    old = _pod("o", owner=JOB, deleted="2025-01-01T00:00:00Z")  # 600 s before NOW
    assert _verdict(old) == d.Verdict(True)
    assert _verdict(old, skip_wait_for_delete_timeout=599) == d.Verdict(False, "Skip")
    assert _verdict(old, skip_wait_for_delete_timeout=600) == d.Verdict(True)


def test_warnings_and_errors_group_pods_by_message() -> None:
    items = d.filter_pods([_pod("a"), _pod("b", namespace="x"), _pod("c", owner=JOB, empty_dir=True),
                           _pod("m", mirror=True)], d.DrainFlags(), _exists, NOW)
    assert d.errors(items) == [f"cannot delete {d.UNMANAGED_FATAL}: default/a, x/b",
                               f"cannot delete {d.LOCAL_STORAGE_FATAL}: default/c"]
    forced = d.filter_pods([_pod("a"), _pod("b")], d.DrainFlags(force=True), _exists, NOW)
    assert d.warnings(forced) == f"{d.UNMANAGED_WARNING}: default/a, default/b"
    assert d.evictable(forced) == [_pod("a"), _pod("b")]


def test_aggregate_and_final_error_lines() -> None:
    assert d.aggregate(["a"]) == "a"
    assert d.aggregate(["a", "b", "a"]) == "[a, b]"
    assert d.final_error([d.NodeError(["a", "b"])]) == "a\nb\n"
    assert d.final_error([d.NodeError(["context deadline exceeded"], aggregate=False)]) == \
        "error: context deadline exceeded\n"
    forbidden = d.NodeError(["no"], aggregate=False, final="Error from server (Forbidden): no")
    assert d.final_error([forbidden]) == "Error from server (Forbidden): no\n"
    assert d.final_error([d.NodeError(["a", "b"]), d.NodeError(["c"])]) == "[a, b]\nc\n"


def test_cordon_operation_words() -> None:
    assert d.cordon_operation(True, False) == (True, "cordoned")
    assert d.cordon_operation(True, True) == (False, "already cordoned")
    assert d.cordon_operation(False, True) == (True, "uncordoned")
    assert d.cordon_operation(False, False) == (False, "already uncordoned")


PODS = st.builds(
    lambda name, owner, phase, empty_dir, mirror: _pod(name, owner=owner, phase=phase, empty_dir=empty_dir,
                                                       mirror=mirror),
    st.text("abc", min_size=1, max_size=3), st.sampled_from([None, JOB, DAEMONSET]),
    st.sampled_from(["Pending", "Running", "Succeeded", "Failed"]), st.booleans(), st.booleans())
FLAGS = st.builds(d.DrainFlags, force=st.booleans(), ignore_daemonsets=st.booleans(),
                  delete_emptydir_data=st.booleans())


def _refused(pod: dict[str, Any], flags: d.DrainFlags) -> bool:
    """The rule stated from the drain docs: a running pod is refused if it is a live DaemonSet's
    (without --ignore-daemonsets), has an emptyDir (without --delete-emptydir-data) or no controller
    (without --force)."""
    meta, spec = pod["metadata"], pod["spec"]
    if pod["status"]["phase"] in ("Succeeded", "Failed"):
        return False
    owner = (meta.get("ownerReferences") or [None])[0]
    if owner is DAEMONSET or owner == DAEMONSET:
        return not flags.ignore_daemonsets
    if d.MIRROR_ANNOTATION in (meta.get("annotations") or {}):
        return False
    local = bool(spec.get("volumes")) and not flags.delete_emptydir_data
    return local or (owner is None and not flags.force)


@given(PODS, FLAGS)
def test_a_pod_is_evicted_iff_no_refusing_filter_applies(pod: dict[str, Any], flags: d.DrainFlags) -> None:
    status = d.verdict(pod, flags, _exists, NOW)
    mirror = d.MIRROR_ANNOTATION in (pod["metadata"].get("annotations") or {})
    running_ds = pod["metadata"].get("ownerReferences") == [DAEMONSET] and \
        pod["status"]["phase"] not in ("Succeeded", "Failed")
    assert status.delete == (not _refused(pod, flags) and not mirror and not running_ds)
    assert (status.reason == "Error") == _refused(pod, flags)
    if mirror:
        assert not status.delete


@given(st.lists(PODS, max_size=6), FLAGS)
def test_every_refused_pod_is_named_once_in_the_errors(pods: list[dict[str, Any]],
                                                       flags: d.DrainFlags) -> None:
    items = d.filter_pods(pods, flags, _exists, NOW)
    named = [p for line in d.errors(items) for p in line.split(": ", 1)[1].split(", ")]
    refused = [f"default/{p['metadata']['name']}" for p, v in items if v.reason == "Error"]
    assert sorted(named) == sorted(refused)
    assert len(d.evictable(items)) + sum(1 for _, v in items if not v.delete) == len(pods)
