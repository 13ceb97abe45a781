"""The kueue family's virtual resources: the on-demand visibility API, ``visibility.kueue.x-k8s.io``
``v1beta2`` (preferred) and ``v1beta1``, as kueue's visibility server installs them
(``pkg/visibility/storage/storage.go``, ``pkg/visibility/server.go``, v0.19.2):

* ``clusterqueues`` (cluster-scoped, singular ``clusterqueue``) and ``localqueues`` (namespaced,
  ``localqueue``): storages implementing no verb, listed in discovery with none;
* their ``pendingworkloads`` subresource, ``get`` only (``rest.GetterWithOptions``), a
  ``PendingWorkloadsSummary`` (:mod:`kbatch.server.kueue_visibility`).

Both versions are served through APIServices (``config/components/visibility/apiservice_*.yaml``), so
the group comes after kube-apiserver's own in discovery.
"""

from __future__ import annotations

from kbatch.api.virtual import Subresource, VirtualResource

__all__ = ["VISIBILITY"]

_GROUP = "visibility.kueue.x-k8s.io"
_SUMMARY = "PendingWorkloadsSummary"
_HANDLERS = "kbatch.server.kueue_visibility:"


def _version(version: str) -> tuple[VirtualResource, ...]:
    service = f"{version}.{_GROUP}"
    return (
        VirtualResource(_GROUP, version, "clusterqueues", _SUMMARY, "", verbs=(), singular="clusterqueue",
                        aggregated=service, subresources=(
                            Subresource("pendingworkloads", ("get",), _SUMMARY,
                                        handler=_HANDLERS + "serve_cluster_queue_pending"),)),
        VirtualResource(_GROUP, version, "localqueues", _SUMMARY, "", namespaced=True, verbs=(),
                        singular="localqueue", aggregated=service, subresources=(
                            Subresource("pendingworkloads", ("get",), _SUMMARY,
                                        handler=_HANDLERS + "serve_local_queue_pending"),)),
    )


VISIBILITY = (*_version("v1beta2"), *_version("v1beta1"))
