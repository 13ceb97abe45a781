"""``pods/exec``, ``pods/attach`` and ``pods/portforward``: kbatch runs no containers, so it refuses them.

kube-apiserver checks the request first (k8s.io/kubernetes ``pkg/registry/core/pod/strategy.go``,
``streamLocation`` and ``PortForwardLocation``): the pod must exist (404), a named container must be
one of the pod's (400 ``container C is not valid for pod P``), and the pod must be bound to a node
(400 ``pod P does not have a host assigned``); then it upgrades the connection and proxies it to the
node's kubelet. kbatch makes the same checks, then answers a 400 that says why no stream follows,
instead of a 404 that reads as if the pod were missing (``kubectl exec``, ``cp``, ``attach`` and
``port-forward`` print it as ``Error from server (BadRequest): …``). docs/cli.md lists the difference.

``pods/proxy`` (``pods/NAME[:PORT]/proxy[/PATH]``, ``ProxyREST`` in
``pkg/registry/core/pod/rest/subresources.go``) is checked as ``ResourceLocation`` (strategy.go) checks
it: the name splits as ``[scheme:]name[:port]`` (``SplitSchemeNamePort``, 400 ``invalid pod request``),
the pod must exist and have a proxyable IP (400 ``address not allowed``, which is what every kbatch pod
gets: its kubelet assigns none); a pod given one by a status patch is then refused the same way.

Discovery lists all four as kube-apiserver does (``api/discovery/api__v1.json``), with the verbs its
installer derives from each ``ConnectMethods`` (:data:`CONNECT_RESOURCES`).
"""

from __future__ import annotations

import ipaddress
from typing import Any

from kbatch.api.errors import BadRequest, MethodNotAllowed, StatusError

__all__ = ["CONNECT_RESOURCES", "STREAMING_SUBRESOURCES", "proxy_target", "refuse_proxy", "refuse_stream"]

STREAMING_SUBRESOURCES = ("exec", "attach", "portforward", "proxy")
# discovery: subresource -> (kind of its connect options, verbs); GET/POST connect as get/create, and
# the proxy's PUT/PATCH/DELETE as update/patch/delete (HEAD and OPTIONS have no verb)
CONNECT_RESOURCES = {
    "attach": ("PodAttachOptions", ["create", "get"]),
    "exec": ("PodExecOptions", ["create", "get"]),
    "portforward": ("PodPortForwardOptions", ["create", "get"]),
    "proxy": ("PodProxyOptions", ["create", "delete", "get", "patch", "update"]),
}
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


def refuse_stream(pod: dict[str, Any], subresource: str, method: str, container: str | None) -> StatusError:
    """The error for a connect request to ``pod``'s ``subresource`` (raised by the caller)."""
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
    what = {"exec": "exec into", "attach": "attach to"}.get(subresource, "port forwarding to")
    return BadRequest(f"kbatch serve runs no containers: {what} pod {name} is not supported "
                      "(its kubelet is simulated; see docs/cli.md)")
