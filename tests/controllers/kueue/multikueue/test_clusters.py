"""MultiKueueCluster: the back-off, the kubeconfig checks and the Active condition.

Translates kubernetes-sigs/kueue v0.19.2 ``multikueuecluster_test.go`` where it maps (``TestRetryAfter``,
``TestValidateKubeconfig``-style rows, and ``TestUpdateConfig``'s statuses: a new valid client,
``ClientConnectionFailed`` with the 5 s, 10 s, 20 s back-off, failed attempts reset on success,
``BadKubeConfig`` for a missing Secret, ``InsecureKubeConfig`` for a ``tokenFile``, a deleted
cluster's client dropped). The cluster-profile rows are in ``test_cluster_profile.py``.
"""

from __future__ import annotations

import pytest

from kbatch.api.kueue_v1beta2 import MultiKueueCluster
from kbatch.controllers.kueue.multikueue.clusters import retry_after
from kbatch.controllers.kueue.multikueue.context import MULTIKUEUE, MultiKueueContext
from kbatch.controllers.kueue.multikueue.kubeconfig import InvalidKubeConfig, parse_kubeconfig
from kbatch.runtime import ControlPlane

from .world import NAMESPACE, MKWorld, kubeconfig, secret


@pytest.mark.parametrize(
    ("attempts", "want"),
    [(0, 0), (1, 5), (2, 10), (3, 20), (4, 40), (5, 80), (6, 160), (7, 320), (8, 320), (100, 320)],
)
def test_retry_after(attempts: int, want: float) -> None:
    assert retry_after(attempts) == want


BAD_KUBECONFIGS = [
    (
        "tokenFile",
        kubeconfig("https://10.0.0.1").replace("user: {}", "user:\n    tokenFile: /t"),
        "tokenFile is not allowed",
    ),
    (
        "insecure",
        kubeconfig("https://10.0.0.1").replace("server:", "insecure-skip-tls-verify: true\n    server:"),
        "insecure TLS verification is not allowed for cluster c",
    ),
    (
        "ca file",
        kubeconfig("https://10.0.0.1").replace("server:", "certificate-authority: /ca\n    server:"),
        "certificate-authority file paths are not allowed, use certificate-authority-data for cluster c",
    ),
    ("no server", kubeconfig("").replace("server: ", "server: ''"), "server URL is required for cluster c"),
    ("untrusted", kubeconfig("https://bad_host.example"), "untrusted server endpoint"),
    (
        "basic auth",
        kubeconfig("https://10.0.0.1").replace("user: {}", "user:\n    username: a\n    password: b"),
        "basic auth is not allowed",
    ),
    (
        "exec",
        kubeconfig("https://10.0.0.1").replace("user: {}", "user:\n    exec: {command: x}"),
        "exec plugins are not allowed",
    ),
    (
        "auth provider",
        kubeconfig("https://10.0.0.1").replace("user: {}", "user:\n    auth-provider: {name: x}"),
        "auth providers are not allowed",
    ),
]


@pytest.mark.parametrize(("case", "text", "message"), BAD_KUBECONFIGS, ids=[c[0] for c in BAD_KUBECONFIGS])
def test_refused_kubeconfigs(case: str, text: str, message: str) -> None:
    with pytest.raises(InvalidKubeConfig) as err:
        parse_kubeconfig(text)
    assert str(err.value) == message


def test_accepted_kubeconfig() -> None:
    cfg = parse_kubeconfig(kubeconfig("https://worker.example:6443", token="abc"))
    assert (cfg.server, cfg.token, cfg.in_process) == ("https://worker.example:6443", "abc", None)
    assert parse_kubeconfig(kubeconfig("kbatch+inprocess://w1")).in_process == "w1"


def _active(world: MKWorld, name: str) -> tuple[str, str, str]:
    c = next(c for c in world.cluster(name).status.conditions if c.type == "Active")
    return (c.status, c.reason or "", c.message or "")


def test_new_valid_client_is_added() -> None:
    world = MKWorld({"w1": "4"})
    assert _active(world, "w1") == ("True", "Active", "Connected")


def test_connection_failures_back_off_then_reset() -> None:
    world = MKWorld({"w1": "4"}, connect=False)
    world.cut("w1")
    world.connect("w1")
    m = world.manager
    m.run_until_idle()
    status, reason, message = _active(world, "w1")
    assert (status, reason) == ("False", "ClientConnectionFailed")
    assert "kbatch+inprocess://w1" in message
    clusters = _published(m).clusters
    assert clusters.states["w1"].failed_attempts == 1
    m.advance(5)  # 2nd attempt at 5 s, 3rd 10 s later
    assert clusters.states["w1"].failed_attempts == 2
    m.advance(9.9)
    assert clusters.states["w1"].failed_attempts == 2
    m.advance(0.1)
    assert clusters.states["w1"].failed_attempts == 3
    world.cut("w1", reachable=True)
    m.advance(20)
    assert _active(world, "w1") == ("True", "Active", "Connected")
    assert clusters.states["w1"].failed_attempts == 0


def test_missing_secret_then_created() -> None:
    world = MKWorld({"w1": "4"}, connect=False)
    m = world.manager
    m.apply(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "MultiKueueCluster",
            "metadata": {"name": "w1"},
            "spec": {"clusterSource": {"kubeConfig": {"location": "w1-kubeconfig"}}},
        }
    )
    m.run_until_idle()
    assert _active(world, "w1") == (
        "False",
        "BadKubeConfig",
        'load client config failed: secrets "w1-kubeconfig" not found',
    )
    m.apply(secret("w1-kubeconfig", kubeconfig("kbatch+inprocess://w1")), namespace=NAMESPACE)
    m.run_until_idle()  # the Secret's event brings the cluster back (secretHandler)
    assert _active(world, "w1") == ("True", "Active", "Connected")


def test_insecure_kubeconfig() -> None:
    world = MKWorld({"w1": "4"}, connect=False)
    m = world.manager
    text = kubeconfig("kbatch+inprocess://w1").replace("user: {}", "user:\n    tokenFile: /t")
    m.apply(secret("w1-kubeconfig", text), namespace=NAMESPACE)
    m.apply(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "MultiKueueCluster",
            "metadata": {"name": "w1"},
            "spec": {"clusterSource": {"kubeConfig": {"location": "w1-kubeconfig"}}},
        }
    )
    m.run_until_idle()
    assert _active(world, "w1") == (
        "False",
        "InsecureKubeConfig",
        "load client config failed: tokenFile is not allowed",
    )


def test_deleted_cluster_drops_its_client() -> None:
    world = MKWorld({"w1": "4"})
    m = world.manager
    clusters = _published(m).clusters
    assert "w1" in clusters.states
    m.client.delete(MultiKueueCluster, "w1")
    m.run_until_idle()
    assert "w1" not in clusters.states


def test_lost_watch_marks_disconnected_and_reconnects() -> None:
    world = MKWorld({"w1": "4"})
    m = world.manager
    world.cut("w1")
    m.run_until_idle()
    assert _active(world, "w1")[:2] == ("False", "ClientConnectionFailed")
    world.cut("w1", reachable=True)
    m.advance(5)
    assert _active(world, "w1") == ("True", "Active", "Connected")


def test_path_kubeconfig_is_read_with_the_deprecation_warning(tmp_path: object) -> None:
    """``locationType: Path`` with ``MultiKueueKubeConfigPathValidation`` off (its default)."""
    from pathlib import Path

    from kbatch.api.core_v1 import Event

    path = Path(str(tmp_path)) / "w1.kubeconfig"
    path.write_text(kubeconfig("kbatch+inprocess://w1"))
    world = MKWorld({"w1": "4"}, connect=False)
    m = world.manager
    m.apply(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "MultiKueueCluster",
            "metadata": {"name": "w1"},
            "spec": {"clusterSource": {"kubeConfig": {"location": str(path), "locationType": "Path"}}},
        }
    )
    m.run_until_idle()
    assert _active(world, "w1") == ("True", "Active", "Connected")
    reasons = {
        (e.type, e.reason)
        for e in m.client.list(Event).items
        if e.involved_object.kind == "MultiKueueCluster"
    }
    assert reasons == {("Warning", "DeprecatedPathUsage")}


def _published(cp: ControlPlane) -> MultiKueueContext:
    mk = cp.published.get(MULTIKUEUE)
    assert mk is not None, "the MultiKueue controllers did not start"
    return mk


def test_the_active_condition_is_rewritten_only_when_its_state_changes() -> None:
    """``updateStatus`` (``multikueuecluster.go``) skips the write when ``cmpConditionState`` holds:
    status, reason and message. The generation is not compared: a spec change that leaves the
    cluster connected keeps the condition, and its observedGeneration, as they were."""
    world = MKWorld({"w1": "4"})
    m = world.manager
    before = world.cluster("w1")
    cond = next(c for c in before.status.conditions if c.type == "Active")
    generation = before.metadata.generation
    assert cond.observed_generation == generation
    m.apply(secret("w1-copy", kubeconfig("kbatch+inprocess://w1")), namespace=NAMESPACE)
    source = {"clusterSource": {"kubeConfig": {"location": "w1-copy"}}}
    m.client.patch(MultiKueueCluster, "w1", {"spec": source})
    m.run_until_idle()
    after = world.cluster("w1")
    assert after.metadata.generation == generation + 1
    assert after.status.conditions == before.status.conditions  # same observedGeneration and times
    world.cut("w1")
    m.run_until_idle()
    failed = next(c for c in world.cluster("w1").status.conditions if c.type == "Active")
    assert (failed.status, failed.reason, failed.observed_generation) == (
        "False", "ClientConnectionFailed", generation + 1)
