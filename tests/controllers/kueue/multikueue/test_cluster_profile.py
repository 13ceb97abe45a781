"""MultiKueueClusters connected through a ClusterProfile (``MultiKueueClusterProfile``, alpha, off).

Translates kubernetes-sigs/kueue v0.19.2 ``multikueuecluster_test.go`` ``TestUpdateConfig`` rows "use
cluster profile", "cluster profile not found", "cluster profile feature gate disabled", "invalid rest
config from cluster profile" (kbatch's rest config can only fail the host check: the profile gives no
token file), the access-provider choice of kubernetes-sigs/cluster-inventory-api ``pkg/access``
(``config_test.go``), and the e2e ``Connection via ClusterProfile`` steps (a missing profile, then one
without providers: "no access provider configured"). Workers are in-process; the credential plugin
is a real subprocess (:mod:`.profile_plugin`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from kbatch.api import edit
from kbatch.api.kueue_config_clusterprofile import access_providers
from kbatch.api.multicluster_v1alpha1 import ClusterProfile
from kbatch.controllers.kueue.multikueue.context import MULTIKUEUE, MultiKueueContext
from kbatch.controllers.kueue.multikueue.profile_access import (
    BadClusterProfile,
    BadRestConfig,
    client_config_from_profile,
)

from .world import KUEUE, NAMESPACE, MKWorld

GATE = "MultiKueueClusterProfile=true"
PLUGIN = str(Path(__file__).with_name("profile_plugin.py"))
MULTICLUSTER = "multicluster.x-k8s.io/v1alpha1"


def provider(name: str = "test-plugin", **exec_config: Any) -> dict[str, Any]:
    return {
        "name": name,
        "execConfig": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": sys.executable,
            "args": [PLUGIN],
            "provideClusterInfo": True,
            "interactiveMode": "Never",
            **exec_config,
        },
    }


def config(*providers: dict[str, Any], field: str = "accessProviders") -> dict[str, Any]:
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "multiKueue": {"clusterProfile": {field: list(providers)}},
    }


Entry = tuple[str, str, dict[str, Any]]


def profile(name: str, *providers: Entry, field: str = "accessProviders") -> dict[str, Any]:
    """A ClusterProfile whose status lists (provider, server, exec extension) entries."""
    status = {
        field: [
            {
                "name": p,
                "cluster": {
                    "server": server,
                    "extensions": [{"name": "client.authentication.k8s.io/exec", "extension": ext}],
                },
            }
            for p, server, ext in providers
        ]
    }
    return {
        "apiVersion": MULTICLUSTER,
        "kind": "ClusterProfile",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"clusterManager": {"name": "test"}},
        "status": status,
    }


def mk_profile_cluster(name: str, profile_name: str | None = None) -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "MultiKueueCluster",
        "metadata": {"name": name},
        "spec": {"clusterSource": {"clusterProfileRef": {"name": profile_name or name}}},
    }


def _world(kueue_config: dict[str, Any] | None = None, gates: str | None = GATE) -> MKWorld:
    return MKWorld({"w1": "4"}, connect=False, kueue_config=kueue_config, feature_gates=gates)


def _put_profile(world: MKWorld, obj: dict[str, Any]) -> None:
    """Create the profile and write its status (a cluster manager's job upstream)."""
    m = world.manager
    m.apply({**obj, "status": None})
    cp = edit(m.client.get(ClusterProfile, obj["metadata"]["name"], NAMESPACE))
    cp.status = ClusterProfile.model_validate(obj).status
    m.client.update_status(cp)
    m.run_until_idle()


def _active(world: MKWorld, name: str = "w1") -> tuple[str, str, str]:
    c = next(c for c in world.cluster(name).status.conditions if c.type == "Active")
    return (c.status, c.reason or "", c.message or "")


def _mk(world: MKWorld) -> MultiKueueContext:
    mk = world.manager.published.get(MULTIKUEUE)
    assert isinstance(mk, MultiKueueContext)
    return mk


def test_use_cluster_profile() -> None:
    world = _world(config(provider()))
    _put_profile(world, profile("w1", ("test-plugin", "kbatch+inprocess://w1", {"token": "t1"})))
    world.manager.apply(mk_profile_cluster("w1"))
    world.manager.run_until_idle()
    assert _active(world) == ("True", "Active", "Connected")
    state = _mk(world).clusters.states["w1"]
    assert state.config is not None and state.config.exec_plugin is not None
    assert state.config.token is None  # the token is the connection's, never kept in the config


def test_cluster_profile_feature_gate_disabled() -> None:
    world = _world(gates=None)
    world.manager.apply(mk_profile_cluster("w1"))
    world.manager.run_until_idle()
    assert _active(world) == (
        "False",
        "MultiKueueClusterProfileFeatureDisabled",
        "load client config failed: MultiKueueClusterProfile feature gate is disabled",
    )


def test_cluster_profile_not_found_then_created() -> None:
    """Upstream waits for the profile's events (no requeue) and connects once it is there."""
    world = _world(config(provider()))
    m = world.manager
    m.apply(mk_profile_cluster("w1"))
    m.run_until_idle()
    assert _active(world) == (
        "False",
        "BadClusterProfile",
        'load client config failed: ClusterProfile.multicluster.x-k8s.io "w1" not found',
    )
    _put_profile(world, profile("w1", ("test-plugin", "kbatch+inprocess://w1", {"token": "t1"})))
    assert _active(world) == ("True", "Active", "Connected")


def test_profile_without_providers_and_no_access_provider_configured() -> None:
    world = _world()
    m = world.manager
    m.apply(mk_profile_cluster("w1"))
    _put_profile(world, profile("w1"))
    want = ("False", "BadClusterProfile", "load client config failed: no access provider configured")
    assert _active(world) == want


def test_no_matching_accessor() -> None:
    world = _world(config(provider("other")))
    world.manager.apply(mk_profile_cluster("w1"))
    _put_profile(world, profile("w1", ("test-plugin", "kbatch+inprocess://w1", {"token": "t1"})))
    assert _active(world) == (
        "False",
        "BadClusterProfile",
        'load client config failed: no matching cluster accessor found for cluster profile "w1"',
    )


def test_invalid_rest_config_from_cluster_profile() -> None:
    world = _world(config(provider()))
    world.manager.apply(mk_profile_cluster("w1"))
    _put_profile(world, profile("w1", ("test-plugin", "https://bad_host.example", {"token": "t1"})))
    want = ("False", "BadRestConfig", "load client config failed: untrusted server endpoint")
    assert _active(world) == want


def test_failing_plugin_is_a_connection_failure_with_back_off() -> None:
    world = _world(config(provider()))
    m = world.manager
    m.apply(mk_profile_cluster("w1"))
    _put_profile(world, profile("w1", ("test-plugin", "kbatch+inprocess://w1", {"fail": True})))
    assert _active(world) == (
        "False",
        "ClientConnectionFailed",
        f"getting credentials: exec: executable {sys.executable} failed with exit code 3",
    )
    assert _mk(world).clusters.states["w1"].failed_attempts == 1


def test_profile_change_reconnects(tmp_path: Path) -> None:
    """A profile event requeues the clusters naming it; a changed config reconnects (the plugin runs
    again), an unchanged one does not."""
    log = tmp_path / "plugin.log"
    world = _world(config(provider(env=[{"name": "PLUGIN_LOG", "value": str(log)}])))
    m = world.manager
    m.apply(mk_profile_cluster("w1"))
    _put_profile(world, profile("w1", ("test-plugin", "kbatch+inprocess://w1", {"fail": True})))
    assert _active(world)[1] == "ClientConnectionFailed"
    _put_profile(world, profile("w1", ("test-plugin", "kbatch+inprocess://w1", {"token": "t2"})))
    assert _active(world) == ("True", "Active", "Connected")
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(runs) == 2
    assert runs[-1] == {
        "apiVersion": "client.authentication.k8s.io/v1",
        "kind": "ExecCredential",
        "spec": {
            "cluster": {"config": {"token": "t2"}, "server": "kbatch+inprocess://w1"},
            "interactive": False,
        },
    }
    cp = edit(m.client.get(ClusterProfile, "w1", NAMESPACE))
    cp.metadata.labels = {"touched": "yes"}  # an event, the same access
    m.client.update(cp)
    m.run_until_idle()
    assert len(log.read_text().splitlines()) == 2


def test_profile_in_another_namespace_is_not_read() -> None:
    world = _world(config(provider()))
    m = world.manager
    m.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "elsewhere"}})
    m.apply(mk_profile_cluster("w1"))
    other = profile("w1", ("test-plugin", "kbatch+inprocess://w1", {"token": "t"}))
    other["metadata"]["namespace"] = "elsewhere"
    m.apply({**other, "status": None})
    m.run_until_idle()
    assert _active(world)[1] == "BadClusterProfile"


def test_gate_only_in_the_kueue_configuration_without_the_kind() -> None:
    """Kueue's gate on through its Configuration, the kind not served (upstream: the CRD not
    installed): the client's "no matches for kind" error."""
    world = _world({**config(provider()), "featureGates": {"MultiKueueClusterProfile": True}}, gates=None)
    world.manager.apply(mk_profile_cluster("w1"))
    world.manager.run_until_idle()
    assert _active(world) == (
        "False",
        "BadClusterProfile",
        'load client config failed: no matches for kind "ClusterProfile" in version '
        '"multicluster.x-k8s.io/v1alpha1"',
    )


# --- the access-provider choice (cluster-inventory-api pkg/access) -----------------------------------


def _cp(*entries: tuple[str, str, str]) -> ClusterProfile:
    """A profile whose status lists (field, provider, server)."""
    status: dict[str, list[dict[str, Any]]] = {}
    for field, name, server in entries:
        status.setdefault(field, []).append({"name": name, "cluster": {"server": server}})
    return ClusterProfile.model_validate(
        {"apiVersion": MULTICLUSTER, "kind": "ClusterProfile", "metadata": {"name": "cp"}, "status": status}
    )


ACCESS_ROWS = [
    ("first configured provider wins", ["b", "a"], [("accessProviders", "a", "https://a"),
                                                     ("accessProviders", "b", "https://b")], "https://b"),
    ("deprecated credentialProviders read", ["a"], [("credentialProviders", "a", "https://old")], "https://old"),
    ("accessProviders win a shared name", ["a"], [("credentialProviders", "a", "https://old"),
                                                  ("accessProviders", "a", "https://new")], "https://new"),
]


@pytest.mark.parametrize(
    ("case", "configured", "entries", "server"), ACCESS_ROWS, ids=[r[0] for r in ACCESS_ROWS]
)
def test_access_provider_choice(case: str, configured: list[str], entries: list[tuple[str, str, str]],
                                server: str) -> None:
    providers = access_providers(config(*(provider(n) for n in configured))["multiKueue"])
    assert client_config_from_profile(_cp(*entries), providers).server == server


def test_deprecated_credentials_providers_configuration_is_used() -> None:
    providers = access_providers(config(provider("a"), field="credentialsProviders")["multiKueue"])
    assert providers is not None and [p.name for p in providers] == ["a"]


def test_ca_data_and_extension_reach_the_plugin_config() -> None:
    providers = access_providers(config(provider("a"))["multiKueue"])
    cp = ClusterProfile.model_validate({
        "apiVersion": MULTICLUSTER, "kind": "ClusterProfile", "metadata": {"name": "cp"},
        "status": {"accessProviders": [{"name": "a", "cluster": {
            "server": "https://w.example:6443", "certificate-authority-data": "Y2E=",
            "extensions": [{"name": "client.authentication.k8s.io/exec", "extension": {"b": 1, "a": 2}}]}}]},
    })
    cfg = client_config_from_profile(cp, providers)
    assert (cfg.server, cfg.ca_data, cfg.token) == ("https://w.example:6443", b"ca", None)
    assert cfg.exec_plugin is not None and cfg.exec_plugin.config == '{"a":2,"b":1}'
    assert cfg.exec_plugin.interactive_mode == "Never"


@pytest.mark.parametrize(("providers", "error"), [(None, BadClusterProfile), ((), BadClusterProfile)])
def test_no_providers(providers: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        client_config_from_profile(_cp(("accessProviders", "a", "https://a")), providers)


def test_untrusted_server() -> None:
    providers = access_providers(config(provider("a"))["multiKueue"])
    with pytest.raises(BadRestConfig, match="untrusted server endpoint"):
        client_config_from_profile(_cp(("accessProviders", "a", "https://under_score")), providers)
