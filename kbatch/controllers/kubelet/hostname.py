"""A pod's hostname as the kubelet gives it to the sandbox, and the ``HOSTNAME`` every container sees.

Upstream: the kubelet's ``GeneratePodHostNameAndDomain`` (``pkg/kubelet/kubelet_pods.go``): the
pod's ``spec.hostname`` when set, else its name, cut to 63 characters with trailing ``-`` and ``.``
trimmed (``truncatePodHostnameIfNeeded``); with ``setHostnameAsFQDN`` and a ``subdomain`` the
sandbox's hostname is the FQDN ``<hostname>.<subdomain>.<namespace>.svc.<cluster domain>``
(``kuberuntime_sandbox.go``). The container runtime then puts ``HOSTNAME=<that hostname>`` first in
every container's environment (containerd's CRI ``WithEnv`` before the image's and the container's
own variables), so an ``env`` entry named ``HOSTNAME`` wins, and a ``$(HOSTNAME)`` reference in an
``env`` value is not expanded by it (the kubelet expands against the container's own variables
before the runtime adds it). The cluster domain is kubeadm's and kind's ``cluster.local`` (the
kubelet's flag has no default).

This is what ``${HOSTNAME##*-}`` in a pod's script reads: an Indexed Job's pod is ``<job>-<index>``
(the Job controller sets ``spec.hostname``), a bare pod its name.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CLUSTER_DOMAIN", "pod_hostname"]

CLUSTER_DOMAIN = "cluster.local"
_MAX_HOSTNAME = 63


def pod_hostname(pod: Any) -> str:
    """The hostname the pod's sandbox gets (its containers' ``HOSTNAME``)."""
    meta, spec = pod.metadata, pod.spec
    hostname = spec.hostname or meta.name or ""
    if len(hostname) > _MAX_HOSTNAME:
        hostname = hostname[:_MAX_HOSTNAME].rstrip("-.")
    if spec.set_hostname_as_fqdn and spec.subdomain:
        hostname = f"{hostname}.{spec.subdomain}.{meta.namespace or 'default'}.svc.{CLUSTER_DOMAIN}"
    return hostname
