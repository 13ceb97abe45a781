"""The ``serviceaccount`` controller (upstream pkg/controller/serviceaccount/serviceaccounts_controller.go)
and ``root-ca-cert-publisher`` (pkg/controller/certificates/rootcacertpublisher/publisher.go), run as
the control plane runs them."""

from __future__ import annotations

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import ConfigMap, Namespace, ServiceAccount
from kbatch.controllers.rootcacertpublisher import DESCRIPTION, DESCRIPTION_ANNOTATION


def _names(cp: ControlPlane, model: type, namespace: str) -> list[str]:
    return sorted(o.name for o in cp.client.list(model, namespace).items)


def _namespace(cp: ControlPlane, name: str = "team") -> None:
    cp.client.create(Namespace.model_validate({"metadata": {"name": name}}))
    cp.run_until_idle()


def test_every_namespace_gets_a_default_account_and_the_root_ca_config_map() -> None:
    cp = ControlPlane()
    _namespace(cp)
    for ns in ("default", "kube-system", "kube-public", "kube-node-lease", "team"):
        assert "default" in _names(cp, ServiceAccount, ns)
        assert "kube-root-ca.crt" in _names(cp, ConfigMap, ns)
    cm = cp.client.get(ConfigMap, "kube-root-ca.crt", "team")
    assert cm.data == {"ca.crt": ""}  # kbatch has no CA (docs/serviceaccounts.md)
    assert (cm.metadata.annotations or {})[DESCRIPTION_ANNOTATION] == DESCRIPTION


def test_a_deleted_default_account_comes_back_and_others_do_not() -> None:
    cp = ControlPlane()
    _namespace(cp)
    cp.client.create(ServiceAccount.model_validate({"metadata": {"name": "bot", "namespace": "team"}}))
    cp.client.delete(ServiceAccount, "default", "team")
    cp.client.delete(ServiceAccount, "bot", "team")
    cp.run_until_idle()
    assert _names(cp, ServiceAccount, "team") == ["default"]


def test_the_root_ca_config_map_is_recreated_and_restored() -> None:
    cp = ControlPlane()
    _namespace(cp)
    cm = edit(cp.client.get(ConfigMap, "kube-root-ca.crt", "team"))
    cm.data = {"ca.crt": "tampered"}
    cp.client.update(cm)
    cp.run_until_idle()
    assert cp.client.get(ConfigMap, "kube-root-ca.crt", "team").data == {"ca.crt": ""}
    cp.client.delete(ConfigMap, "kube-root-ca.crt", "team")
    cp.run_until_idle()
    assert cp.client.get(ConfigMap, "kube-root-ca.crt", "team").data == {"ca.crt": ""}


def test_a_terminating_namespace_gets_no_new_account() -> None:
    cp = ControlPlane(controllers="*,-namespace")  # keep the namespace terminating
    _namespace(cp)
    cp.client.delete(Namespace, "team")
    cp.client.delete(ServiceAccount, "default", "team")
    cp.run_until_idle()
    assert _names(cp, ServiceAccount, "team") == []


def test_with_the_controller_off_a_new_namespace_has_no_account() -> None:
    cp = ControlPlane(controllers="*,-serviceaccount,-root-ca-cert-publisher")
    _namespace(cp)
    assert _names(cp, ServiceAccount, "team") == [] and _names(cp, ConfigMap, "team") == []
    # bootstrap wrote the system namespaces' (docs/serviceaccounts.md)
    assert "default" in _names(cp, ServiceAccount, "default")
    assert "kube-root-ca.crt" in _names(cp, ConfigMap, "default")
