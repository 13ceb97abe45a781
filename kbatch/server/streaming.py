"""``pods/exec``, ``pods/attach`` and ``pods/portforward``: kbatch runs no containers, so no stream opens.

kube-apiserver checks the request first (k8s.io/kubernetes ``pkg/registry/core/pod/strategy.go``,
``streamLocation`` and ``PortForwardLocation``): the pod must exist (404), a named container must be
one of the pod's (400 ``container C is not valid for pod P``), and the pod must be bound to a node
(400 ``pod P does not have a host assigned``). It then hands the request to apimachinery's
``UpgradeAwareHandler`` (``pkg/util/proxy/upgradeaware.go``) with ``UpgradeRequired``: a request
that does not ask for an upgrade (no ``Connection: Upgrade``, ``httpstream.IsUpgradeRequest``) is a
400 ``Upgrade request required``; one that does is proxied to the node's kubelet, and when the
kubelet cannot be dialed, ``dial`` fails with ``error dialing backend: …``, which the connect
handler's responder writes as a plain error: a 500 ``Status`` with no reason, printed by kubectl as
``Error from server: error dialing backend: …``. kbatch's kubelets are simulated and cannot be dialed
either, so kbatch answers what such a cluster answers, the message saying why
(:func:`refuse_stream`); scripts that treat a kubelet they cannot reach behave the same here.
docs/cli.md ("kubectl and kbatch") lists the difference.

``pods/proxy`` (``pods/NAME[:PORT]/proxy[/PATH]``, ``ProxyREST`` in
``pkg/registry/core/pod/rest/subresources.go``) is checked as ``ResourceLocation`` (strategy.go) checks
it: the name splits as ``[scheme:]name[:port]`` (``SplitSchemeNamePort``, 400 ``invalid pod request``),
the pod must exist and have a proxyable IP (400 ``address not allowed``, which is what every kbatch pod
gets: its kubelet assigns none); a pod given one by a status patch is then refused the same way.

Discovery lists all four as kube-apiserver does (``api/discovery/api__v1.json``), with the verbs its
installer derives from each ``ConnectMethods``, as the core family declares them
(``kbatch.families.core.virtual.POD_CONNECT``).
"""

from __future__ import annotations

import ipaddress
from typing import Any

from kbatch.api.errors import BadRequest, MethodNotAllowed, Status, StatusError

__all__ = ["STREAMING_SUBRESOURCES", "asks_upgrade", "proxy_target", "refuse_proxy",
           "refuse_stream"]

STREAMING_SUBRESOURCES = ("exec", "attach", "portforward", "proxy")
_PROXY_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


def proxy_target(name: str) -> str:
    """The pod's name in a proxy request's ``[scheme:]name[:port]`` (``SplitSchemeNamePort``)."""
    parts = name.split(":")
    pod = parts[1] if len(parts) == 3 else parts[0]
    if len(parts) > 3 or not pod or (len(parts) == 3 and parts[0] not in ("http", "https")):
        raise BadRequest(f'invalid pod request "{name}"')
    return pod


def _proxyable(ip: str) -> bool:
    """``proxyutil.IsProxyableIP``: an IP that is not loopback, link-local or unspecified."""
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return False
    return not (addr.is_loopback or addr.is_link_local or addr.is_unspecified or addr.is_multicast)


def refuse_proxy(pod: dict[str, Any], method: str) -> StatusError:
    """The error for a ``pods/proxy`` request to ``pod`` (raised by the caller)."""
    name = (pod.get("metadata") or {}).get("name", "")
    if method not in _PROXY_METHODS:
        return MethodNotAllowed(f"{method} is not supported on pods/proxy")
    ips: list[dict[str, Any]] = (pod.get("status") or {}).get("podIPs") or [{}]
    if not _proxyable(ips[0].get("ip") or ""):  # a pod the kubelet has not given an address yet
        return BadRequest("address not allowed")
    return BadRequest(f"kbatch serve runs no containers: proxying to pod {name} is not supported "
                      "(its kubelet is simulated; see docs/cli.md)")


class _BackendUnreachable(StatusError):
    """An error that is not a ``Status`` on kube-apiserver's side (``ErrorToAPIStatus``: 500,
    reason ``StatusReasonUnknown``, which is empty and omitted)."""

    code, reason = 500, ""

    @property
    def status(self) -> Status:
        return Status(status="Failure", message=self.message, code=self.code)


def refuse_stream(pod: dict[str, Any], subresource: str, method: str, container: str | None,
                  upgrade: bool = True) -> StatusError:
    """The error for a connect request to ``pod``'s ``subresource`` (raised by the caller);
    ``upgrade``: whether the request asks to upgrade the connection (:func:`asks_upgrade`)."""
    name = (pod.get("metadata") or {}).get("name", "")
    if method not in ("GET", "POST"):  # connect verbs (rest.Connecter's ConnectMethods)
        return MethodNotAllowed(f"{method} is not supported on pods/{subresource}")
    spec = pod.get("spec") or {}
    names = [c.get("name") for key in ("containers", "initContainers", "ephemeralContainers")
             for c in spec.get(key) or ()]
    if subresource != "portforward" and container and container not in names:
        return BadRequest(f"container {container} is not valid for pod {name}")
    if not spec.get("nodeName"):
        return BadRequest(f"pod {name} does not have a host assigned")
    if not upgrade:
        return BadRequest("Upgrade request required")
    what = {"exec": "exec into", "attach": "attach to"}.get(subresource, "port forwarding to")
    return _BackendUnreachable(
        f"error dialing backend: the kubelet of node {spec['nodeName']} is simulated by kbatch, which "
        f"runs no containers: {what} pod {name} is not supported (see docs/cli.md)")


def asks_upgrade(connection_headers: list[str]) -> bool:
    """apimachinery ``httpstream.IsUpgradeRequest``: a ``Connection`` header value containing
    ``upgrade``, in any case."""
    return any("upgrade" in value.lower() for value in connection_headers)
