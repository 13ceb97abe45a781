"""The Kubernetes release kbatch models: one constant, read by ``/version``, the OpenAPI documents,
``kbatch version`` and the conformance report.

The reference is Kubernetes 1.37: the batch APIs, their validation, defaulting and controller
behaviour follow that release (docs/architecture.md). Where a semantic changed between releases the
code cites the release it follows; changing the reference means changing :data:`KUBERNETES_MINOR`
and the semantics together.

``/version`` answers what kube-apiserver does (``k8s.io/apimachinery/pkg/version.Info``), with
``gitVersion`` carrying a ``-kbatch`` pre-release suffix, as distributions mark theirs (``-gke.N``,
``+k3s1``), so a client sees both the modelled release and that this is not kube-apiserver.
"""

from __future__ import annotations

from typing import Any

__all__ = ["KUBERNETES_MAJOR", "KUBERNETES_MINOR", "KUBERNETES_PATCH", "KUBERNETES_VERSION", "version_info"]

KUBERNETES_MAJOR = 1
KUBERNETES_MINOR = 37
KUBERNETES_PATCH = 0
KUBERNETES_VERSION = f"v{KUBERNETES_MAJOR}.{KUBERNETES_MINOR}.{KUBERNETES_PATCH}"
"""The modelled release, as Kubernetes spells it (``v1.37.0``)."""


def version_info() -> dict[str, Any]:
    """The body of ``GET /version`` (upstream ``version.Info``)."""
    return {"major": str(KUBERNETES_MAJOR), "minor": str(KUBERNETES_MINOR),
            "gitVersion": f"{KUBERNETES_VERSION}-kbatch", "gitCommit": "", "gitTreeState": "clean",
            "buildDate": "2025-01-01T00:00:00Z", "goVersion": "python", "compiler": "cpython",
            "platform": "python"}
