"""The ``Warning:`` lines a request to a deprecated served version gets (kubectl prints them).

kube-apiextensions-apiserver answers every request to a CRD version marked ``deprecated`` with a
``Warning: 299 - "<deprecationWarning>"`` header, whatever the verb (``customresource_handler.go``:
``warning.AddWarning`` for a deprecated version), and kubectl prints each distinct text once per
command on stderr (k8s.io/client-go ``rest.NewWarningWriter`` with deduplication). Kueue's v1beta1
is such a version (``This version is deprecated. Use v1beta2 instead.``). kube-apiserver does the same
for a built-in kind whose Go type declares ``APILifecycleDeprecated`` (``pkg/endpoints/deprecation``):
core/v1 Endpoints since 1.33 (``v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1
EndpointSlice``, KEP-4974).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import typer

__all__ = ["deprecation_texts", "warn_deprecated"]


def deprecation_texts(registry: Any, gvks: Iterable[tuple[str, str]]) -> list[str]:
    """The distinct warnings of these (apiVersion, kind) pairs, in order (pure)."""
    seen: list[str] = []
    for api_version, kind in gvks:
        try:
            spec = registry.for_gvk(api_version, kind)
        except Exception:  # NotFound: the request's own error is reported when it is made
            continue
        served = spec.served.warning if spec.served is not None else None
        for warning in (served, spec.info.deprecation_warning):
            if warning and warning not in seen:
                seen.append(warning)
    return seen


def warn_deprecated(registry: Any, gvks: Iterable[tuple[str, str]]) -> None:
    """Print ``Warning: <text>`` on stderr for each distinct deprecation warning of ``gvks``."""
    for text in deprecation_texts(registry, gvks):
        typer.echo(f"Warning: {text}", err=True)
