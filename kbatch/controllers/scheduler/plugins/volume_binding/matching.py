"""Pure decisions of the VolumeBinding plugin that only the scheduler takes; the ones it shares
with the persistentvolume-binder (``FindMatchingVolume``, ``CheckNodeAffinity``, the classes of
claims and volumes, ``IsDelayBindingMode``, ``GetBindVolumeToClaim``) are in
:mod:`kbatch.api.pv_helpers`, as upstream keeps them in component-helpers.

Upstream (semantics only), Kubernetes 1.37:

* ``pkg/scheduler/framework/plugins/volumebinding/binder.go`` ``isPVCFullyBound`` (``volumeName``
  set and the binder's ``pv.kubernetes.io/bind-completed`` annotation present);
* ``k8s.io/component-helpers/scheduling/corev1`` ``MatchTopologySelectorTerms`` for a class's
  ``allowedTopologies`` (no terms: every node).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.pv_helpers import ANN_BIND_COMPLETED
from kbatch.api.storage_v1 import TopologySelectorTerm

__all__ = ["fully_bound", "topology_fits"]


def fully_bound(claim: PersistentVolumeClaim) -> bool:
    return bool(claim.spec.volume_name) and ANN_BIND_COMPLETED in (claim.metadata.annotations or {})


def topology_fits(terms: Iterable[TopologySelectorTerm] | None, labels: Mapping[str, str]) -> bool:
    """``MatchTopologySelectorTerms``: no terms match every node; else some term whose every
    requirement has the node's value for its key among its values."""
    listed = list(terms or ())
    if not listed:
        return True
    return any(all(r.key in labels and labels[r.key] in (r.values or ())
                   for r in t.match_label_expressions or ())
               for t in listed)
