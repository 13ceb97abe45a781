"""The Configuration's manager-process sections are decoded strictly, as the rest of it.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/config/config.go`` ``fromFile`` decodes with
``serializer.NewCodecFactory(scheme, serializer.EnableStrict)``: a field that ``ControllerWebhook``,
``LeaderElectionConfiguration`` (k8s.io/component-base ``config/v1alpha1``), ``ControllerHealth``,
``ControllerConfigurationSpec``, ``TLSOptions``, ``InternalCertManagement``, ``ClientConnection``,
``MultiKueue`` (and its nested structs, client-go's ``ExecConfig`` among them) or
``VisibilityServerConfiguration`` (``apis/config/v1beta2/configuration_types.go``) does not declare is
``strict decoding error: unknown field "<path>"``; v1beta1 (``apis/config/v1beta1``) has
``queueVisibility`` and ``integrations.podOptions`` and lacks ``visibilityServer``,
``multiKueue.clusterProfile`` and ``multiKueue.incrementalDispatcherConfig``. The files of
``pkg/config/config_test.go`` ``TestLoad`` / ``TestTLSOptionsFeatureGate`` that set these sections
load, and what kbatch reads of them (``multiKueue``) reaches its readers.
"""

from __future__ import annotations

import copy
import typing
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from kbatch.api.errors import Invalid
from kbatch.api.kueue_config import Configuration, load
from kbatch.api.kueue_config_clusterprofile import access_providers
from kbatch.controllers.kueue.config import check_config_text
from kbatch.controllers.kueue.multikueue.options import INCREMENTAL, options_from

V1BETA1 = "config.kueue.x-k8s.io/v1beta1"
V1BETA2 = "config.kueue.x-k8s.io/v1beta2"
STRICT = "invalid Kueue configuration: strict decoding error: "

EXEC = {"command": "/usr/bin/test-command", "apiVersion": "client.authentication.k8s.io/v1",
        "interactiveMode": "Never", "args": ["arg1", "arg2"], "env": [{"name": "TEST_ENV", "value": "v"}],
        "installHint": "install it", "provideClusterInfo": True}
# every struct node of the sections this module is about, every field set (upstream's
# "fullControllerConfig", "multiKueue config", "cert overwrite" and TLS files, merged)
FULL: dict[str, Any] = {
    "apiVersion": V1BETA2, "kind": "Configuration", "namespace": "kueue-system",
    "health": {"healthProbeBindAddress": ":8081", "readinessEndpointName": "ready",
               "livenessEndpointName": "live"},
    "metrics": {"bindAddress": ":8443"},
    "pprofBindAddress": ":8083",
    "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io",
                       "resourceNamespace": "namespace", "resourceLock": "lock", "leaseDuration": "100s",
                       "renewDeadline": "15s", "retryPeriod": "30s"},
    "webhook": {"port": 9443, "host": "host", "certDir": "certDir"},
    "controller": {"groupKindConcurrency": {"workload": 5}, "cacheSyncTimeout": 3},
    "clientConnection": {"qps": 50, "burst": 100},
    "tls": {"minVersion": "VersionTLS12", "cipherSuites": ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"],
            "curvePreferences": [23]},
    "internalCertManagement": {"enable": True, "webhookServiceName": "kueue-tenant-a-webhook-service",
                               "webhookSecretName": "kueue-tenant-a-webhook-server-cert"},
    "visibilityServer": {"bindAddress": "0.0.0.0", "bindPort": 8082},
    "multiKueue": {
        "gcInterval": "1m30s", "origin": "multikueue-manager1", "workerLostTimeout": "10m",
        "dispatcherName": INCREMENTAL, "externalFrameworks": [{"name": "Foo.v1.example.com"}],
        "incrementalDispatcherConfig": {"stepSize": 2},
        "clusterProfile": {"accessProviders": [{"name": "test-provider", "execConfig": EXEC}]},
    },
}
# the deprecated spelling (only without ``accessProviders``: validateClusterProfileAccessProviders)
FULL_DEPRECATED = {**FULL, "multiKueue": {
    **FULL["multiKueue"], "clusterProfile": {"credentialsProviders": [{"name": "old", "execConfig": EXEC}]}}}


def _message(data: dict[str, Any]) -> str:
    try:
        load(data)
    except Invalid as err:
        return str(err)
    return ""


def _with(version: str = V1BETA2, **sections: Any) -> dict[str, Any]:
    return {"apiVersion": version, "kind": "Configuration", **sections}


def test_the_full_configuration_loads_and_multikueue_reaches_its_readers() -> None:
    cfg = load(copy.deepcopy(FULL))
    assert cfg.multi_kueue == FULL["multiKueue"]  # as given, json names
    opts = options_from(cfg.multi_kueue)
    settled = (opts.gc_interval, opts.origin, opts.worker_lost_timeout, opts.dispatcher_name, opts.step_size)
    assert settled == (90.0, "multikueue-manager1", 600.0, INCREMENTAL, 2)
    providers = access_providers(cfg.multi_kueue)
    assert providers is not None and [p.name for p in providers] == ["test-provider"]
    ec = providers[0].exec_config
    assert (ec.command, ec.args, ec.env, ec.interactive_mode, ec.provide_cluster_info) == (
        "/usr/bin/test-command", ("arg1", "arg2"), (("TEST_ENV", "v"),), "Never", True)


@pytest.mark.parametrize(("sections", "path"), [
    ({"webhook": {"portt": 9443}}, "webhook.portt"),
    ({"webhook": {"cert_dir": "d"}}, "webhook.cert_dir"),
    ({"leaderElection": {"leaderElection": True}}, "leaderElection.leaderElection"),
    ({"leaderElection": {"leaseDurationSeconds": 15}}, "leaderElection.leaseDurationSeconds"),
    ({"health": {"bindAddress": ":8081"}}, "health.bindAddress"),
    ({"controller": {"groupKindConcurency": {"a": 1}}}, "controller.groupKindConcurency"),
    ({"tls": {"maxVersion": "VersionTLS13"}}, "tls.maxVersion"),
    ({"internalCertManagement": {"enabled": False}}, "internalCertManagement.enabled"),
    ({"clientConnection": {"kubeconfig": "/k"}}, "clientConnection.kubeconfig"),  # component-base's field
    ({"multiKueue": {"gcIntervall": "1m"}}, "multiKueue.gcIntervall"),
    ({"multiKueue": {"externalFrameworks": [{"name": "A.v1.x"}, {"kind": "B"}]}},
     "multiKueue.externalFrameworks[1].kind"),
    ({"multiKueue": {"incrementalDispatcherConfig": {"step": 1}}},
     "multiKueue.incrementalDispatcherConfig.step"),
    ({"multiKueue": {"clusterProfile": {"providers": []}}}, "multiKueue.clusterProfile.providers"),
    ({"multiKueue": {"clusterProfile": {"accessProviders": [{"name": "p", "exec": {}}]}}},
     "multiKueue.clusterProfile.accessProviders[0].exec"),
    ({"multiKueue": {"clusterProfile": {"credentialsProviders": [
        {"name": "p", "execConfig": {"command": "c", "Config": {}}}]}}},  # json:"-": no field of the file
     "multiKueue.clusterProfile.credentialsProviders[0].execConfig.Config"),
    ({"multiKueue": {"clusterProfile": {"accessProviders": [
        {"name": "p", "execConfig": {"command": "c", "env": [{"name": "A", "val": "b"}]}}]}}},
     "multiKueue.clusterProfile.accessProviders[0].execConfig.env[0].val"),
    ({"visibilityServer": {"port": 8082}}, "visibilityServer.port"),
    ({"pprof": ":8083"}, "pprof"),
])
def test_a_misspelt_key_in_a_process_section_is_a_strict_decoding_error(sections: dict[str, Any],
                                                                        path: str) -> None:
    assert _message(_with(**sections)) == f'{STRICT}unknown field "{path}"'


@pytest.mark.parametrize(("sections", "path"), [
    ({"queueVisibility": {"updateIntervalSecond": 5}}, "queueVisibility.updateIntervalSecond"),
    ({"queueVisibility": {"clusterQueues": {"max": 1}}}, "queueVisibility.clusterQueues.max"),
    ({"integrations": {"podOptions": {"nsSelector": {}}}}, "integrations.podOptions.nsSelector"),
    ({"integrations": {"podOptions": {"podSelector": {"matchLabel": {}}}}},
     "integrations.podOptions.podSelector.matchLabel"),
])
def test_a_misspelt_key_in_a_v1beta1_section_is_a_strict_decoding_error(sections: dict[str, Any],
                                                                        path: str) -> None:
    assert _message(_with(V1BETA1, **sections)) == f'{STRICT}unknown field "{path}"'


def test_every_unknown_field_is_named_sorted() -> None:
    message = _message(_with(webhook={"zz": 1, "port": 1}, tls={"aa": 1}, multiKueue={"origin": "o", "b": 2}))
    assert message == (f'{STRICT}unknown field "multiKueue.b", unknown field "tls.aa", '
                       'unknown field "webhook.zz"'), message


@pytest.mark.parametrize(("sections", "value", "field", "go_type"), [
    ({"webhook": {"port": "9443"}}, "string", "ControllerWebhook.webhook.port", "int"),
    ({"leaderElection": {"leaderElect": "true"}}, "string",
     "LeaderElectionConfiguration.leaderElection.leaderElect", "bool"),
    # (a metav1.Duration that is no string, or one ParseDuration refuses, is the decoder's own
    # error, ahead of these: test_kueue_config_go_decoding)
    ({"controller": {"cacheSyncTimeout": "3s"}}, "string",
     "ControllerConfigurationSpec.controller.cacheSyncTimeout", "time.Duration"),  # a number
    ({"controller": {"groupKindConcurrency": {"workload": 1.5}}}, "number 1.5",
     "ControllerConfigurationSpec.controller.groupKindConcurrency", "int"),
    ({"clientConnection": {"burst": 2**31}}, "number 2147483648", "ClientConnection.clientConnection.burst",
     "int32"),
    ({"clientConnection": {"qps": "50"}}, "string", "ClientConnection.clientConnection.qps", "float32"),
    ({"tls": {"cipherSuites": "TLS_AES_128_GCM_SHA256"}}, "string", "TLSOptions.tls.cipherSuites",
     "[]string"),
    ({"internalCertManagement": {"enable": 1}}, "number",
     "InternalCertManagement.internalCertManagement.enable", "bool"),
    ({"visibilityServer": {"bindPort": 8082.5}}, "number 8082.5",
     "VisibilityServerConfiguration.visibilityServer.bindPort", "int32"),
    ({"multiKueue": {"incrementalDispatcherConfig": {"stepSize": "2"}}}, "string",
     "IncrementalDispatcherConfig.multiKueue.incrementalDispatcherConfig.stepSize", "int32"),
    ({"health": []}, "array", "Configuration.health", "v1beta2.ControllerHealth"),
    ({"pprofBindAddress": 8083}, "number", "Configuration.pprofBindAddress", "string"),
])
def test_a_value_of_the_wrong_go_type_is_refused_before_validation(sections: dict[str, Any], value: str,
                                                                   field: str, go_type: str) -> None:
    """encoding/json's ``UnmarshalTypeError`` (``test_kueue_config_go_decoding``); it wins over the
    unknown field."""
    assert _message(_with(**sections, bogus=1)) == (
        f"invalid Kueue configuration: json: cannot unmarshal {value} into Go struct field {field} "
        f"of type {go_type}")


@pytest.mark.parametrize(("sections", "field"), [
    ({"visibilityServer": {"bindPort": 8082}}, "visibilityServer"),
    ({"multiKueue": {"clusterProfile": {"accessProviders": []}}}, "multiKueue.clusterProfile"),
    ({"multiKueue": {"dispatcherName": INCREMENTAL, "incrementalDispatcherConfig": {"stepSize": 1}}},
     "multiKueue.incrementalDispatcherConfig"),
    ({"resources": {"deviceClassMappings": [
        {"name": "example.com/gpu", "deviceClassNames": ["gpu"]},
        {"name": "example.com/mem", "deviceClassNames": ["mem"], "sources": []}]}},
     "resources.deviceClassMappings[1].sources"),
])
def test_v1beta2_only_fields_are_unknown_to_v1beta1(sections: dict[str, Any], field: str) -> None:
    assert _message(_with(V1BETA1, **sections)) == f'{STRICT}unknown field "{field}"'
    assert _message(_with(V1BETA2, **sections)) == ""


@pytest.mark.parametrize(("sections", "field"), [
    ({"queueVisibility": {"clusterQueues": {"maxCount": 10}, "updateIntervalSeconds": 5}}, "queueVisibility"),
    ({"integrations": {"podOptions": {"namespaceSelector": {"matchLabels": {"a": "b"}}}}},
     "integrations.podOptions"),
])
def test_v1beta1_only_fields_are_unknown_to_v1beta2(sections: dict[str, Any], field: str) -> None:
    assert _message(_with(V1BETA2, **sections)) == f'{STRICT}unknown field "{field}"'
    assert _message(_with(V1BETA1, **sections)) == ""


def test_the_other_versions_field_is_not_looked_into() -> None:
    """The decoder skips an unknown field's value: neither its unknown fields nor its types count."""
    assert _message(_with(V1BETA1, visibilityServer={"bindPort": "x", "bogus": 1})) == (
        f'{STRICT}unknown field "visibilityServer"')
    assert _message(_with(V1BETA2, queueVisibility={"updateIntervalSeconds": "x", "bogus": 1})) == (
        f'{STRICT}unknown field "queueVisibility"')


HEAD = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: kueue-system\n"
MANAGER = ("health:\n  healthProbeBindAddress: :8081\nmetrics:\n  bindAddress: :8443\nleaderElection:\n"
           "  leaderElect: true\n  resourceName: c1f6bfd2.kueue.x-k8s.io\nwebhook:\n  port: 9443\n")


@pytest.mark.parametrize("text", [
    MANAGER.replace(":8081", ":38081").replace(":8443", ":38080")
    .replace("c1f6bfd2.kueue.x-k8s.io", "test-id").replace("9443", "9444"),
    MANAGER + "internalCertManagement:\n  enable: true\n"
              "  webhookServiceName: kueue-tenant-a-webhook-service\n"
              "  webhookSecretName: kueue-tenant-a-webhook-server-cert\n",
    MANAGER + "internalCertManagement:\n  enable: false\n",
    MANAGER.replace("  leaderElect: true\n  resourceName: c1f6bfd2.kueue.x-k8s.io\n",
                    "  leaderElect: false\n"),
    MANAGER + "clientConnection:\n  qps: 50\n  burst: 100\n",
    "health:\n  healthProbeBindAddress: :8081\n  readinessEndpointName: ready\n  livenessEndpointName: live\n"
    "metrics:\n  bindAddress: :8443\npprofBindAddress: :8083\nleaderElection:\n  leaderElect: true\n"
    "  resourceName: c1f6bfd2.kueue.x-k8s.io\n  resourceNamespace: namespace\n  resourceLock: lock\n"
    "  leaseDuration: 100s\n  renewDeadline: 15s\n  retryPeriod: 30s\nwebhook:\n  port: 9443\n  host: host\n"
    "  certDir: certDir\ncontroller:\n  groupKindConcurrency:\n    workload: 5\n  cacheSyncTimeout: 3\n"
    "clientConnection:\n  qps: 50\n  burst: 100\n",
    "tls:\n  minVersion: VersionTLS12\n  cipherSuites:\n    - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\n"
    "    - TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384\nwebhook:\n  port: 9443\n",
    "tls:\n  minVersion: VersionTLS13\nwebhook:\n  port: 9443\n",
], ids=["ControllerManager ConfigurationSpec overwrite", "cert overwrite", "disable cert overwrite",
        "leaderElection disabled config", "clientConnection config", "fullController config",
        "TLS config applied", "TLS 1.3 config"])
def test_upstream_manager_files_load(text: str) -> None:
    """``TestLoad`` / ``TestTLSOptionsFeatureGate`` files: decoded, not acted on."""
    assert check_config_text(HEAD + text).namespace == "kueue-system"


@pytest.mark.parametrize("field", ["accessProviders", "credentialsProviders"])
def test_upstream_multikueue_files_reach_the_readers(field: str) -> None:
    """ "multiKueue config" and "... with deprecated credentialsProviders": the settled options and
    the access providers MultiKueue runs with."""
    cfg = check_config_text(
        HEAD + "multiKueue:\n  gcInterval: 1m30s\n  origin: multikueue-manager1\n  workerLostTimeout: 10m\n"
        f"  dispatcherName: {INCREMENTAL}\n  clusterProfile:\n    {field}:\n      - name: test-provider\n"
        "        execConfig:\n          command: /usr/bin/test-command\n"
        "          apiVersion: client.authentication.k8s.io/v1\n          interactiveMode: Never\n")
    opts = options_from(cfg.multi_kueue)
    assert (opts.gc_interval, opts.origin, opts.worker_lost_timeout, opts.dispatcher_name) == (
        90.0, "multikueue-manager1", 600.0, INCREMENTAL)
    providers = access_providers(cfg.multi_kueue)
    assert providers is not None and len(providers) == 1
    p = providers[0]
    assert (p.name, p.exec_config.command, p.exec_config.api_version, p.exec_config.interactive_mode) == (
        "test-provider", "/usr/bin/test-command", "client.authentication.k8s.io/v1", "Never")


# --- property: an unknown key at any struct node ----------------------------------------------


def _models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models(arg)]


def _declared(model: type[BaseModel], seen: set[type[BaseModel]] | None = None) -> set[str]:
    """Every json name any struct under ``model`` declares."""
    seen = seen if seen is not None else set()
    if model in seen:
        return set()
    seen.add(model)
    names: set[str] = set()
    for info in model.model_fields.values():
        names.add(str(info.alias))
        for sub in _models(info.annotation):
            names |= _declared(sub, seen)
    return names


_MAPS = {"featureGates", "groupKindConcurrency", "matchLabels"}  # Go maps: any key is a value


def _struct_nodes(node: Any, path: str) -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        found.append((path, node))
        for key in sorted(node):
            if key not in _MAPS:
                found += _struct_nodes(node[key], f"{path}.{key}" if path else key)
    elif isinstance(node, list):
        for i, item in enumerate(node):
            found += _struct_nodes(item, f"{path}[{i}]")
    return found


_DECLARED = _declared(Configuration)
_KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_", min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_an_unknown_key_at_any_struct_node_is_named_by_its_path(data: st.DataObject) -> None:
    """Property: a key no field declares, put at any struct node of the full Configuration, is refused
    as exactly that path's unknown field; without it the file loads."""
    config = copy.deepcopy(data.draw(st.sampled_from([FULL, FULL_DEPRECATED])))
    assert _message(config) == ""
    path, node = data.draw(st.sampled_from(_struct_nodes(config, "")))
    key = data.draw(_KEYS.filter(lambda k: k not in _DECLARED))
    node[key] = "x"
    where = f"{path}.{key}" if path else key
    assert _message(config) == f'{STRICT}unknown field "{where}"'
