"""Pod and host addresses as the kubelet reports them (``status.hostIP(s)``, ``status.podIP(s)``).

Upstream, the kubelet sets ``hostIP``/``hostIPs`` in every status it generates, from its node's
addresses (``generateAPIPodStatus`` with ``getHostIPsAnyWay``: ``nodeutil.GetNodeHostIPs``, the
first ``InternalIP``, else the first ``ExternalIP``), and ``podIP``/``podIPs`` from the pod sandbox
once it is ready (``convertStatusToAPIStatus``: the CRI's ``PodSandboxStatus.network``), which the
CNI plugin gave an address of the node's ``spec.podCIDR``. A ``hostNetwork`` pod has no address of
its own: its ``podIPs`` are the node's (``IsHostNetworkPod``). A terminal pod keeps its addresses in
its status (kubernetes#125370, fixed by #125404) although the CNI plugin released them when the
sandbox was torn down, so a later pod of the node may show the same ``podIP``. All in
``pkg/kubelet/kubelet_pods.go`` (Kubernetes 1.37).

kbatch runs no CNI plugin: :class:`AddressPool` is the node range's IPAM, as kind's kindnet uses the
``host-local`` plugin over ``spec.podCIDR`` (the network address and the gateway, ``.1``, are never
handed out, nor the broadcast address), except that it hands out the *lowest* free address (host-local
goes round the range from the last one it reserved) so the address a pod gets depends only on the
pods of its node. A node without ``spec.podCIDR`` gives its pods no address, and kbatch's kubelet
then reports no ``hostIP`` either: the ``node-ipam-controller`` is off by default (as
kube-controller-manager without ``--allocate-node-cidrs``), and a default run writes the statuses it
wrote before addresses existed, because a per-pod address costs ~6 % peak memory in the Job
benchmark. Upstream's kubelet always reports ``hostIP``: a deliberate difference
(docs/simulation.md, "Pod and node addresses").

Memory: a pod's address is one small ``int`` slot of its :class:`~.engine.PodRun` (the offset in its
node's range) and a reference to the node's pool; the text is made when a status or an environment
needs it. A node's host addresses are one tuple every pod of the node shares.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Any

__all__ = ["AddressPool", "Addresses", "NodeNet", "host_ips", "ip_patch", "node_cidr", "node_net"]


class AddressPool:
    """The free addresses of one node's pod range; :meth:`take` hands out the lowest free one."""

    __slots__ = ("cidr", "first", "size", "used")

    def __init__(self, cidr: str) -> None:
        net = ipaddress.ip_network(cidr, strict=False)
        self.cidr = str(net)
        self.first = int(net.network_address) + 2  # host-local: the gateway (.1) is not a pod's
        self.size = max(0, net.num_addresses - 3)  # nor the network and broadcast addresses
        self.used = 0  # bit i set: address first + i is taken

    def take(self) -> int | None:
        """The offset of the lowest free address, now taken (None: the range is full)."""
        lowest = (self.used + 1) & ~self.used  # the lowest clear bit
        index = lowest.bit_length() - 1
        if index >= self.size:
            return None
        self.used |= lowest
        return index

    def release(self, index: int) -> None:
        self.used &= ~(1 << index)

    def address(self, index: int) -> str:
        return socket.inet_ntoa((self.first + index).to_bytes(4, "big"))

    def __getstate__(self) -> tuple[str, int, int, int]:
        return self.cidr, self.first, self.size, self.used

    def __setstate__(self, state: tuple[str, int, int, int]) -> None:
        self.cidr, self.first, self.size, self.used = state


@dataclass(slots=True)
class NodeNet:
    """What the kubelet of one node knows of its network: its host addresses (one tuple every pod of
    the node shares) and its pod range, once the node has one."""

    host: tuple[str, ...]
    cidr: str | None  # the node's range as read (None: none yet)
    pool: AddressPool | None


@dataclass(frozen=True, slots=True)
class Addresses:
    """A pod's addresses as the downward API reads them (``podFieldSelectorRuntimeValue``)."""

    host: tuple[str, ...] = ()
    pod: tuple[str, ...] = ()


def host_ips(node: Any) -> tuple[str, ...]:
    """``nodeutil.GetNodeHostIPs`` for a single-stack node: its first ``InternalIP``, else its first
    ``ExternalIP`` (none: the kubelet reports no host address)."""
    addresses = (node.status.addresses if node.status else None) or ()
    for kind in ("InternalIP", "ExternalIP"):
        for address in addresses:
            if address.type == kind and address.address:
                return (address.address,)
    return ()


def node_cidr(node: Any) -> str | None:
    """The node's pod range (the first of ``spec.podCIDRs``, else ``spec.podCIDR``)."""
    spec = node.spec
    return spec.pod_cidrs[0] if spec.pod_cidrs else spec.pod_cidr or None


def node_net(node: Any) -> NodeNet:
    """A node without a pod range (node IPAM off, the default) has no addresses for its pods, not
    even the host's: kbatch's deliberate difference, for memory (docs/simulation.md)."""
    cidr = node_cidr(node)
    if not cidr:
        return NodeNet((), None, None)
    return NodeNet(host_ips(node), cidr, AddressPool(cidr))


def ip_patch(status: Any, host: tuple[str, ...], pod: tuple[str, ...]) -> dict[str, Any]:
    """The address fields of the kubelet's status patch from the API's ``status`` (a model or None):
    ``hostIP(s)`` when they differ from the node's, ``podIP(s)`` once the pod has addresses and the
    API does not show them (they never change while the pod lives, and stay once it ended)."""
    patch: dict[str, Any] = {}
    if host and (status is None or status.host_ip != host[0]):
        patch["hostIP"] = host[0]
        patch["hostIPs"] = [{"ip": ip} for ip in host]
    if pod and (status is None or not status.pod_ip):
        patch["podIP"] = pod[0]
        patch["podIPs"] = [{"ip": ip} for ip in pod]
    return patch
