"""The objects ``kbatch create <kind> …`` builds, as kubectl's ``create`` generators build them.

Pure functions from flag values to wire dicts (k8s.io/kubectl ``pkg/cmd/create/create_*.go``): the
same fields, in the shape Go's encoding/json writes the typed object kubectl builds (a by-value struct
such as ``status`` or a container's ``resources`` is ``{}``; ``creationTimestamp`` is left out, as
``omitzero`` leaves it out since 1.35). Defaults are left to the server, as kubectl leaves them. A
value kubectl refuses raises :class:`GeneratorError` with kubectl's words. The commands that read
the flags and send the objects are in :mod:`kbatch.cli.commands.create_generators`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GeneratorError", "Obj", "object_meta"]

Obj = dict[str, Any]


class GeneratorError(ValueError):
    """A flag value kubectl refuses before sending anything; printed as ``error: <message>``."""


def object_meta(name: str, namespace: str | None) -> Obj:
    """``ObjectMeta{Name, Namespace}``: kubectl sets the namespace only when it is given (``-n`` or
    the kubeconfig's context: ``EnforceNamespace``); the request path has it either way."""
    return {"name": name, "namespace": namespace} if namespace else {"name": name}
