"""What ``kbatch drain`` (and ``cordon``/``uncordon``) decide, as kubectl 1.37's (k8s.io/kubectl
``pkg/drain/filters.go``, ``pkg/drain/drain.go``, ``pkg/cmd/drain/drain.go``): pure functions over
pod dicts, no I/O.

A node's pods go through the filters in upstream's order (``makeFilters``): skip-deleted, DaemonSet,
mirror, local storage, unreplicated. The first filter that does not let a pod be deleted decides its
verdict; otherwise the last one's does (so only the last warning of a deleted pod survives, as
upstream's comment admits). A pod is evicted iff every filter lets it go; the verdicts that are
errors refuse the whole node, one ``cannot delete …`` line per message.

Upstream groups warnings and errors in Go maps, whose order is random; here they keep the order
their first pod has (the field-selected list, by namespace and name).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["DAEMONSET_FATAL", "DAEMONSET_WARNING", "LOCAL_STORAGE_FATAL", "LOCAL_STORAGE_WARNING",
           "MIRROR_ANNOTATION", "UNMANAGED_FATAL", "UNMANAGED_WARNING", "DaemonSetLookup", "DrainFlags",
           "NodeError", "Verdict", "aggregate", "cordon_operation", "daemonset", "errors", "evictable",
           "filter_pods", "final_error", "local_storage", "mirror", "skip_deleted", "unreplicated", "verdict",
           "warnings"]

Obj = dict[str, Any]

# pkg/drain/filters.go's messages
DAEMONSET_FATAL = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_FATAL = "Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_FATAL = "Pods that declare no controller (use --force to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"  # corev1.MirrorPodAnnotationKey

OKAY, SKIP, WARNING, ERROR = "Okay", "Skip", "Warning", "Error"  # PodDeleteStatusType*

# (namespace, name) of a DaemonSet → None when it exists, else (the GET's error text, is NotFound)
DaemonSetLookup = Callable[[str, str], "tuple[str, bool] | None"]


@dataclass(frozen=True, slots=True)
class DrainFlags:
    """The flags the filters read (``drain.Helper``'s fields)."""

    force: bool = False
    ignore_daemonsets: bool = False
    delete_emptydir_data: bool = False
    skip_wait_for_delete_timeout: int = 0  # seconds; 0 never skips


@dataclass(frozen=True, slots=True)
class Verdict:
    """``PodDeleteStatus``: whether the pod goes, and why not (or with what warning)."""

    delete: bool
    reason: str = OKAY
    message: str = ""


_OKAY = Verdict(True)
_SKIP = Verdict(False, SKIP)


def _error(message: str) -> Verdict:
    return Verdict(False, ERROR, message)


def _warning(delete: bool, message: str) -> Verdict:
    return Verdict(delete, WARNING, message)


def _finished(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _controller(pod: Obj) -> Obj | None:
    """``metav1.GetControllerOf``: the owner reference with ``controller: true``."""
    return next((ref for ref in (pod.get("metadata") or {}).get("ownerReferences") or ()
                 if ref.get("controller")), None)


def skip_deleted(pod: Obj, flags: DrainFlags, now: datetime) -> Verdict:
    """``skipDeletedFilter`` / ``shouldSkipPod``: a pod deleted more than
    ``--skip-wait-for-delete-timeout`` seconds ago (whole seconds, truncated) is skipped."""
    stamp = (pod.get("metadata") or {}).get("deletionTimestamp")
    if flags.skip_wait_for_delete_timeout <= 0 or not stamp:
        return _OKAY
    since = now - datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    return _SKIP if int(since.total_seconds()) > flags.skip_wait_for_delete_timeout else _OKAY


def daemonset(pod: Obj, flags: DrainFlags, lookup: DaemonSetLookup) -> Verdict:
    """``daemonSetFilter``: a running pod of an existing DaemonSet is never deleted (an error, or a
    warning with ``--ignore-daemonsets``); one whose DaemonSet is gone goes with ``--force``, warned
    with the GET's error; any other error of that GET refuses it."""
    ref = _controller(pod)
    if ref is None or ref.get("kind") != "DaemonSet" or ref.get("apiVersion") != "apps/v1" or _finished(pod):
        return _OKAY
    failure = lookup((pod.get("metadata") or {}).get("namespace") or "", str(ref.get("name") or ""))
    if failure is not None:
        message, not_found = failure
        return _warning(True, message) if not_found and flags.force else _error(message)
    return _warning(False, DAEMONSET_WARNING) if flags.ignore_daemonsets else _error(DAEMONSET_FATAL)


def mirror(pod: Obj) -> Verdict:
    """``mirrorPodFilter``: a static pod's mirror cannot be deleted through the API: skipped."""
    return _SKIP if MIRROR_ANNOTATION in ((pod.get("metadata") or {}).get("annotations") or {}) else _OKAY


def local_storage(pod: Obj, flags: DrainFlags) -> Verdict:
    """``localStorageFilter``: a running pod with an emptyDir volume needs ``--delete-emptydir-data``."""
    volumes = (pod.get("spec") or {}).get("volumes") or ()
    if not any(v.get("emptyDir") is not None for v in volumes) or _finished(pod):
        return _OKAY
    if flags.delete_emptydir_data:
        return _warning(True, LOCAL_STORAGE_WARNING)
    return _error(LOCAL_STORAGE_FATAL)


def unreplicated(pod: Obj, flags: DrainFlags) -> Verdict:
    """``unreplicatedFilter``: a running pod with no controller needs ``--force``."""
    if _finished(pod) or _controller(pod) is not None:
        return _OKAY
    return _warning(True, UNMANAGED_WARNING) if flags.force else _error(UNMANAGED_FATAL)


def verdict(pod: Obj, flags: DrainFlags, lookup: DaemonSetLookup, now: datetime) -> Verdict:
    """``filterPods`` for one pod: the filters in ``makeFilters``' order, stopping at the first that
    keeps the pod; the last verdict stands."""
    filters: Sequence[Callable[[], Verdict]] = (
        lambda: skip_deleted(pod, flags, now), lambda: daemonset(pod, flags, lookup), lambda: mirror(pod),
        lambda: local_storage(pod, flags), lambda: unreplicated(pod, flags))
    status = _OKAY
    for check in filters:
        status = check()
        if not status.delete:
            break
    return status


def filter_pods(pods: Iterable[Obj], flags: DrainFlags, lookup: DaemonSetLookup,
                now: datetime) -> list[tuple[Obj, Verdict]]:
    """Every pod with its verdict, in the list's order."""
    return [(pod, verdict(pod, flags, lookup, now)) for pod in pods]


def evictable(items: Iterable[tuple[Obj, Verdict]]) -> list[Obj]:
    """``PodDeleteList.Pods``: the pods to evict (or delete)."""
    return [pod for pod, status in items if status.delete]


def _key(pod: Obj) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def _grouped(items: Iterable[tuple[Obj, Verdict]], reason: str) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for pod, status in items:
        if status.reason == reason:
            groups.setdefault(status.message or ("unexpected error" if reason == ERROR else ""),
                              []).append(_key(pod))
    return groups


def warnings(items: Iterable[tuple[Obj, Verdict]]) -> str:
    """``PodDeleteList.Warnings``: ``MESSAGE: ns/a, ns/b`` per message, joined by ``; `` ("" for none)."""
    return "; ".join(f"{message}: {', '.join(pods)}" for message, pods in _grouped(items, WARNING).items())


def errors(items: Iterable[tuple[Obj, Verdict]]) -> list[str]:
    """``PodDeleteList.errors``: ``cannot delete MESSAGE: ns/a, ns/b`` per message."""
    return [f"cannot delete {message}: {', '.join(pods)}" for message, pods in _grouped(items, ERROR).items()]


def aggregate(messages: Sequence[str]) -> str:
    """apimachinery ``utilerrors.NewAggregate(errs).Error()``: one message alone; several, without
    repeats, joined by ``, `` inside brackets."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else f"[{', '.join(unique)}]"


def cordon_operation(desired: bool, unschedulable: bool) -> tuple[bool, str]:
    """``CordonHelper.UpdateIfRequired`` and ``already``/``changed``: whether a patch is needed and
    the word the name printer puts after ``node/NAME``."""
    word = "cordoned" if desired else "uncordoned"
    return (unschedulable != desired, word if unschedulable != desired else f"already {word}")


@dataclass(frozen=True, slots=True)
class NodeError:
    """Why a node was not drained: the messages of an aggregate (``utilerrors.NewAggregate``: the
    filters' refusals, the evictions' failures), or one plain error (``--disable-eviction``'s)."""

    messages: list[str]
    aggregate: bool = True
    final: str | None = None  # how CheckErr prints a plain error, when not ``error: MESSAGE``


def final_error(failed: Sequence[NodeError]) -> str:
    """What ``cmdutil.CheckErr`` prints for ``RunDrain``'s aggregate of the failed nodes' errors: one
    node's aggregate unwrapped to a line per error (``MultipleErrors``, no ``error:`` prefix), a plain
    error as ``error: …``; several nodes a line each, as the nodes' errors print."""
    if len(failed) == 1 and failed[0].aggregate:
        return "".join(f"{m}\n" for m in failed[0].messages)
    if len(failed) == 1:
        text = failed[0].final or failed[0].messages[0]
        return f"{text}\n" if failed[0].final or text.startswith("error: ") else f"error: {text}\n"
    return "".join(f"{e.final or aggregate(e.messages)}\n" for e in failed)
