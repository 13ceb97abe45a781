"""``multiKueue.clusterProfile`` of Kueue's Configuration: the access providers MultiKueue may use.

Upstream: kubernetes-sigs/kueue v0.19.2 ``apis/config/v1beta2/configuration_types.go`` (``ClusterProfile``,
``ClusterProfileAccessProvider``: a ``name`` and a client-go ``execConfig``), ``deprecated_types.go``
(``credentialsProviders``, the same type under its old name), ``pkg/config/validation.go``
(``validateClusterProfileAccessProviders``, after client-go ``tools/clientcmd/validation.go``) and
``pkg/controller/admissionchecks/multikueue/controllers.go`` (``accessProviders``, or when empty the
deprecated ``credentialsProviders``, become the cluster-inventory-api ``access.Config``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kbatch.api.errors import FieldError

__all__ = [
    "INTERACTIVE_MODES",
    "AccessProviderConfig",
    "ExecConfig",
    "access_providers",
    "cluster_profile_errors",
]

INTERACTIVE_MODES = ("Never", "IfAvailable", "Always")  # clientcmdapi.ExecInteractiveMode
_PATH = "multiKueue.clusterProfile"


@dataclass(frozen=True)
class ExecConfig:
    """client-go ``clientcmdapi.ExecConfig``: the credential plugin to run (``config`` is filled from
    the ClusterProfile's ``client.authentication.k8s.io/exec`` extension, not from Kueue's file)."""

    command: str
    api_version: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    install_hint: str = ""
    provide_cluster_info: bool = False
    interactive_mode: str = "Never"
    config: str | None = None  # the extension's JSON, canonical (sorted keys) so configs compare


@dataclass(frozen=True)
class AccessProviderConfig:
    name: str
    exec_config: ExecConfig


def _exec_config(raw: Mapping[str, Any]) -> ExecConfig:
    env = tuple(
        (str(e.get("name") or ""), str(e.get("value") or ""))
        for e in raw.get("env") or ()
        if isinstance(e, Mapping)
    )
    return ExecConfig(
        command=str(raw.get("command") or ""),
        api_version=str(raw.get("apiVersion") or ""),
        args=tuple(str(a) for a in raw.get("args") or ()),
        env=env,
        install_hint=str(raw.get("installHint") or ""),
        provide_cluster_info=bool(raw.get("provideClusterInfo")),
        interactive_mode=str(raw.get("interactiveMode") or ""),
    )


def _section(mk: Mapping[str, Any] | None) -> Mapping[str, Any]:
    cp = (mk or {}).get("clusterProfile")
    return cp if isinstance(cp, Mapping) else {}


def _entries(cp: Mapping[str, Any]) -> tuple[str, list[Mapping[str, Any]]]:
    """The providers in force and their field: ``accessProviders``, else ``credentialsProviders``."""
    access = [p for p in cp.get("accessProviders") or () if isinstance(p, Mapping)]
    if access:
        return "accessProviders", access
    return "credentialsProviders", [p for p in cp.get("credentialsProviders") or () if isinstance(p, Mapping)]


def access_providers(mk: Mapping[str, Any] | None) -> tuple[AccessProviderConfig, ...] | None:
    """The configured providers, in order (the order decides which of a profile's providers is used);
    ``None`` without a ``clusterProfile`` section (upstream's no-op provider)."""
    if not isinstance((mk or {}).get("clusterProfile"), Mapping):
        return None
    _, entries = _entries(_section(mk))
    return tuple(
        AccessProviderConfig(str(p.get("name") or ""), _exec_config(p.get("execConfig") or {}))
        for p in entries
    )


def cluster_profile_errors(mk: Mapping[str, Any] | None) -> list[FieldError]:
    """``validateMultiKueue``'s cluster-profile rules."""
    cp = _section(mk)
    if not cp:
        return []
    errs: list[FieldError] = []
    if cp.get("accessProviders") and cp.get("credentialsProviders"):
        errs.append(
            FieldError.forbidden(
                f"{_PATH}.credentialsProviders", "must not be specified when accessProviders is specified"
            )
        )
    field, entries = _entries(cp)
    path = f"{_PATH}.{field}"
    for provider in entries:
        errs += _provider_errors(provider, path)
    return errs


def _provider_errors(provider: Mapping[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not provider.get("name"):
        errs.append(FieldError.required(f"{path}.name", "must be specified"))
    ec = _exec_config(provider.get("execConfig") or {})
    exec_path = f"{path}.execConfig"
    if not ec.command:
        errs.append(FieldError.required(f"{exec_path}.command", "must be specified"))
    if not ec.api_version:
        errs.append(FieldError.required(f"{exec_path}.apiVersion", "must be specified"))
    errs += [
        FieldError.required(f"{exec_path}.env.name", "must be specified") for name, _ in ec.env if not name
    ]
    if not ec.interactive_mode:
        errs.append(FieldError.required(f"{exec_path}.interactiveMode", "must be specified"))
    elif ec.interactive_mode not in INTERACTIVE_MODES:
        errs.append(
            FieldError.not_supported(
                f"{exec_path}.interactiveMode", ec.interactive_mode, list(INTERACTIVE_MODES)
            )
        )
    return errs
