"""``pods/exec``, ``pods/attach`` and ``pods/portforward``: kbatch runs no containers, so it refuses them.

kube-apiserver checks the request first (k8s.io/kubernetes ``pkg/registry/core/pod/strategy.go``,
``streamLocation`` and ``PortForwardLocation``): the pod must exist (404), a named container must be
one of the pod's (400 ``container C is not valid for pod P``), and the pod must be bound to a node
(400 ``pod P does not have a host assigned``); then it upgrades the connection and proxies it to the
node's kubelet. kbatch makes the same checks, then answers a 400 that says why no stream follows,
instead of a 404 that reads as if the pod were missing (``kubectl exec``, ``cp``, ``attach`` and
``port-forward`` print it as ``Error from server (BadRequest): …``). docs/cli.md lists the difference.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import BadRequest, MethodNotAllowed, StatusError

__all__ = ["STREAMING_SUBRESOURCES", "refuse_stream"]

STREAMING_SUBRESOURCES = ("exec", "attach", "portforward")


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
