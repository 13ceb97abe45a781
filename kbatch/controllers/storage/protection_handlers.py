"""Which events reach ``pvc-protection`` and ``pv-protection``, as upstream's handlers decide.

Upstream (semantics only), kubernetes ``pkg/controller/volume/pvcprotection/pvc_protection_controller.go``
and ``pkg/controller/volume/pvprotection/pv_protection_controller.go`` (v1.37):

* a claim's or volume's add and update queue it only when it lacks the finalizer and is not being
  deleted (``needToAddFinalizer``) or is being deleted with it (``isDeletionCandidate``); there is no
  ``DeleteFunc``;
* a pod event queues the claims of its volumes (``enqueuePVCs``) only when it can free one: the pod
  was deleted, is terminated (``IsPodTerminated``: phase ``Succeeded``/``Failed``, or being deleted
  with no container running) or is not scheduled; an update that replaces the pod under the same
  name (another UID) queues the old pod's claims too (kbatch maps the old and the new pod anyway).

Module-level classes: the CLI's state image pickles predicates.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PodFreesClaims", "ProtectionWork", "pod_terminated"]


class ProtectionWork:
    """``pvcAddedUpdated`` / ``pvAddedUpdated`` for ``finalizer``."""

    def __init__(self, finalizer: str) -> None:
        self.finalizer = finalizer

    def _work(self, obj: Any) -> bool:
        held = self.finalizer in (obj.metadata.finalizers or ())
        return held if obj.metadata.deletion_timestamp is not None else not held

    def create(self, obj: Any) -> bool:
        return self._work(obj)

    def update(self, old: Any, new: Any) -> bool:
        return self._work(new)

    def delete(self, obj: Any) -> bool:
        return False


def _not_running(statuses: Any) -> bool:
    return all(s.state is None or s.state.terminated is not None or s.state.waiting is not None
               for s in statuses or ())


def pod_terminated(pod: Any) -> bool:
    """``IsPodTerminated``: a terminal phase, or being deleted with no container running."""
    status = pod.status
    if status is not None and status.phase in ("Succeeded", "Failed"):
        return True
    if pod.metadata.deletion_timestamp is None:
        return False
    if status is None:
        return True
    return all(_not_running(group) for group in (
        status.init_container_statuses, status.container_statuses, status.ephemeral_container_statuses))


def _frees(pod: Any) -> bool:
    return not pod.spec.node_name or pod_terminated(pod)


class PodFreesClaims:
    """``podAddedDeletedUpdated``: deletes, and pods that are terminated or unscheduled."""

    def create(self, obj: Any) -> bool:
        return _frees(obj)

    def update(self, old: Any, new: Any) -> bool:
        return _frees(new) or old.metadata.uid != new.metadata.uid

    def delete(self, obj: Any) -> bool:
        return True
