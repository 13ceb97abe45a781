"""A worker's client config from its ClusterProfile and Kueue's configured access providers.

Upstream: kubernetes-sigs/cluster-inventory-api ``pkg/access/config.go`` (``Config.BuildConfigFromCP``,
``getClusterAccessorFromClusterProfile``), which Kueue v0.19.2 calls from
``pkg/controller/admissionchecks/multikueue/multikueuecluster.go`` (``loadClientConfig``,
``getRestConfigFromClusterProfile``, ``validateRestConfig`` with exec plugins allowed):

1. the profile's providers by name: ``status.credentialProviders`` (deprecated), then
   ``status.accessProviders``, the latter winning a shared name;
2. the first of Kueue's ``multiKueue.clusterProfile`` providers, in configuration order, that the
   profile lists is used; none → "no matching cluster accessor found for cluster profile "NAME""
   (without a ``clusterProfile`` section, upstream's ``NoOpClusterProfileAccessProvider``: "no access
   provider configured"); both are the cluster's reason ``BadClusterProfile``;
3. the rest config is the provider's ``cluster.server`` and ``certificate-authority-data`` with the
   configured exec plugin, run non-interactively; the cluster's ``client.authentication.k8s.io/exec``
   extension becomes the plugin's ``config``. KEP-5339's additional-args/-envs extensions are applied
   only under a provider's ``profileSourced*Policy``, which Kueue's Configuration cannot set, so they
   are ignored, as upstream;
4. ``validateRestConfig``: the server's host must be an IP address or a DNS subdomain, else
   "untrusted server endpoint" (reason ``BadRestConfig``).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import replace

from kbatch.api.errors import NotFound
from kbatch.api.go_quote import go_quote
from kbatch.api.kueue_config_clusterprofile import AccessProviderConfig
from kbatch.api.multicluster_v1alpha1 import AccessProvider, ClusterProfile
from kbatch.api.registry import Registry
from kbatch.controllers.kueue.multikueue.kubeconfig import ClientConfig, valid_hostname

__all__ = [
    "EXEC_EXTENSION",
    "BadClusterProfile",
    "BadRestConfig",
    "client_config_from_profile",
    "profiles_served",
]

EXEC_EXTENSION = "client.authentication.k8s.io/exec"


def profiles_served(registry: Registry) -> bool:
    """Whether the control plane serves ClusterProfiles (with ``--feature-gates
    MultiKueueClusterProfile=true``); Kueue's side may be on through its Configuration alone, as
    upstream's gate may be on without the cluster-inventory CRD installed."""
    try:
        registry.for_model(ClusterProfile)
    except NotFound:
        return False
    return True


class BadClusterProfile(ValueError):
    """The profile gives no usable access (the cluster's reason ``BadClusterProfile``)."""


class BadRestConfig(ValueError):
    """The built config is refused (the cluster's reason ``BadRestConfig``)."""


def _accessor(profile: ClusterProfile, providers: Sequence[AccessProviderConfig]) -> AccessProvider | None:
    status = profile.status
    by_name: dict[str, AccessProvider] = {}
    for entry in [
        *((status.credential_providers if status else None) or ()),
        *((status.access_providers if status else None) or ()),
    ]:
        by_name[entry.name or ""] = entry
    return next((by_name[p.name] for p in providers if p.name in by_name), None)


def _exec_extension(accessor: AccessProvider) -> str | None:
    for ext in (accessor.cluster.extensions if accessor.cluster else None) or ():
        if ext.name == EXEC_EXTENSION:
            return json.dumps(ext.extension or {}, sort_keys=True, separators=(",", ":"))
    return None


def client_config_from_profile(
    profile: ClusterProfile, providers: Sequence[AccessProviderConfig] | None
) -> ClientConfig:
    """The worker's :class:`ClientConfig` (steps 1-4 of the module docstring)."""
    if providers is None:
        raise BadClusterProfile("no access provider configured")
    accessor = _accessor(profile, providers)
    if accessor is None:
        raise BadClusterProfile(
            f"no matching cluster accessor found for cluster profile {go_quote(profile.metadata.name or '')}"
        )
    plugin = next(p.exec_config for p in providers if p.name == accessor.name)
    cluster = accessor.cluster
    server = (cluster.server if cluster else None) or ""
    try:
        ca = (
            base64.b64decode(cluster.certificate_authority_data, validate=True)
            if cluster and cluster.certificate_authority_data
            else None
        )
    except (binascii.Error, ValueError) as err:
        raise BadClusterProfile(f"illegal base64 data in certificate-authority-data: {err}") from None
    if not valid_hostname(server.lower()):
        raise BadRestConfig("untrusted server endpoint")
    return ClientConfig(
        server,
        None,
        ca,
        exec_plugin=replace(plugin, interactive_mode="Never", config=_exec_extension(accessor)),
    )
