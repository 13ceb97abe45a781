"""Service variables (``enableServiceLinks``) and the image's ``ENV`` in a container's environment.

Upstream: kubernetes ``pkg/kubelet/envvars/envvars_test.go`` ``TestFromServices`` and the service
rows of ``pkg/kubelet/kubelet_pods_test.go`` ``TestMakeEnvironmentVariables`` (their services,
namespaces and expectations, translated; case names are upstream's), run through
:func:`kbatch.controllers.kubelet.service_env.pod_service_env`; then the same through a simulated
node, as a user reads it in the pod's log.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Event
from kbatch.controllers.kubelet import behaviour
from kbatch.controllers.kubelet.behaviour import container_command, container_env
from kbatch.controllers.kubelet.logs import pod_logs
from kbatch.controllers.kubelet.service_env import from_services, pod_service_env
from kbatch.sim.images import DEFAULT_PATH

from .cluster import sim_cluster


def _svc(name: str, namespace: str, ip: str, *ports: tuple[str, int, str]) -> SimpleNamespace:
    return SimpleNamespace(metadata=SimpleNamespace(name=name, namespace=namespace),
                           spec=SimpleNamespace(cluster_ip=ip, ports=[
                               SimpleNamespace(name=n, port=p, protocol=proto) for n, p, proto in ports]))


def _vars(prefix: str, ip: str, port: int, proto: str = "TCP") -> dict[str, str]:
    url = f"{proto.lower()}://{ip}:{port}"
    at = f"{prefix}_PORT_{port}_{proto}"
    return {f"{prefix}_SERVICE_HOST": ip, f"{prefix}_SERVICE_PORT": str(port), f"{prefix}_PORT": url,
            at: url, f"{at}_PROTO": proto.lower(), f"{at}_PORT": str(port), f"{at}_ADDR": ip}


def test_from_services() -> None:
    """envvars_test.go TestFromServices: named ports, UDP, headless and empty cluster IPs skipped."""
    services = [
        _svc("foo-bar", "x", "1.2.3.4", ("", 8080, "TCP")),
        _svc("abc-123", "x", "5.6.7.8", ("u-d-p", 8081, "UDP"), ("t-c-p", 8081, "TCP")),
        _svc("q-u-u-x", "x", "9.8.7.6", ("", 8082, "TCP"), ("8083", 8083, "TCP")),
        _svc("svrc-clusterip-none", "x", "None", ("", 8082, "TCP")),
        _svc("svrc-clusterip-empty", "x", "", ("", 8082, "TCP")),
    ]
    abc = {**_vars("ABC_123", "5.6.7.8", 8081, "UDP"), **_vars("ABC_123", "5.6.7.8", 8081, "TCP"),
           "ABC_123_PORT": "udp://5.6.7.8:8081", "ABC_123_SERVICE_PORT_U_D_P": "8081",
           "ABC_123_SERVICE_PORT_T_C_P": "8081"}
    quux = {**_vars("Q_U_U_X", "9.8.7.6", 8083), **_vars("Q_U_U_X", "9.8.7.6", 8082),
            "Q_U_U_X_SERVICE_PORT_8083": "8083"}
    assert from_services(services) == {**_vars("FOO_BAR", "1.2.3.4", 8080), **abc, **quux}


def test_an_ipv6_cluster_ip_is_bracketed_in_the_urls() -> None:
    got = from_services([_svc("v6", "x", "2001:db8::1", ("", 80, "TCP"))])
    assert got["V6_PORT"] == "tcp://[2001:db8::1]:80" and got["V6_PORT_80_TCP_ADDR"] == "2001:db8::1"


SERVICES = [  # kubelet_pods_test.go TestMakeEnvironmentVariables
    _svc("kubernetes", "default", "1.2.3.1", ("", 8081, "TCP")),
    _svc("test", "test1", "1.2.3.3", ("", 8083, "TCP")),
    _svc("kubernetes", "test2", "1.2.3.4", ("", 8084, "TCP")),
    _svc("test", "test2", "1.2.3.5", ("", 8085, "TCP")),
    _svc("test", "test2", "None", ("", 8085, "TCP")),
    _svc("test", "test2", "", ("", 8085, "TCP")),
    _svc("not-special", "default", "1.2.3.8", ("", 8088, "TCP")),
    _svc("not-special", "default", "None", ("", 8088, "TCP")),
    _svc("not-special", "default", "", ("", 8088, "TCP")),
]


def _lister(namespace: str) -> list[Any]:
    return [s for s in SERVICES if s.metadata.namespace == namespace]


MASTER = _vars("KUBERNETES", "1.2.3.1", 8081)


@pytest.mark.parametrize(("case", "namespace", "links", "want"), [
    ("api server = Y, kubelet = Y", "test1", True, {**_vars("TEST", "1.2.3.3", 8083), **MASTER}),
    ("master service in pod ns", "test2", True,
     {**_vars("TEST", "1.2.3.5", 8085), **_vars("KUBERNETES", "1.2.3.4", 8084)}),
    ("master service in pod ns, service env vars disabled", "test2", False, MASTER),
    ("pod in master service ns", "default", True, {**_vars("NOT_SPECIAL", "1.2.3.8", 8088), **MASTER}),
    ("pod in master service ns, service env vars disabled", "default", False, MASTER),
    ("nil_enableServiceLinks", "test1", None, {**_vars("TEST", "1.2.3.3", 8083), **MASTER}),
])
def test_make_environment_variables_service_rows(case: str, namespace: str, links: bool | None,
                                                 want: dict[str, str]) -> None:
    assert dict(pod_service_env(namespace, links, _lister)) == want, case


def _pod(namespace: str = "test1", links: bool | None = True, image: str = "busybox", **own: str) -> Any:
    env = [SimpleNamespace(name=k, value=v, value_from=None) for k, v in own.items()]
    container = SimpleNamespace(name="c", image=image, command=["sh", "-c", "env"], args=None,
                                env_from=None, env=env)
    pod = SimpleNamespace(metadata=SimpleNamespace(name="p", namespace=namespace, uid="u", labels=None,
                                                   annotations=None),
                          spec=SimpleNamespace(hostname=None, subdomain=None, set_hostname_as_fqdn=None,
                                               enable_service_links=links, node_name="n",
                                               service_account_name="default"))
    return pod, container


def test_api_server_n_kubelet_y_the_containers_own_variable_wins_and_expands_against_services() -> None:
    """"api server = N; kubelet = Y" with a variable of the container named as a service one, and
    a ``$(VAR)`` naming a service variable (MappingFuncFor(tmpEnv, serviceEnv))."""
    pod, container = _pod(FOO="BAZ", TEST_SERVICE_HOST="mine", REF="$(TEST_SERVICE_PORT)")
    env = container_env(pod, container, services=pod_service_env("test1", True, _lister))
    assert env["FOO"] == "BAZ" and env["TEST_SERVICE_HOST"] == "mine" and env["REF"] == "8083"
    assert env["KUBERNETES_SERVICE_HOST"] == "1.2.3.1" and env["PATH"] == DEFAULT_PATH


_NAMES = st.sampled_from(["A", "B", "PATH", "HOSTNAME", "X_SERVICE_HOST", "PYTHON_VERSION"])


@given(st.dictionaries(_NAMES, st.text("xyz", max_size=3)),
       st.dictionaries(_NAMES, st.text("uvw", max_size=3)),
       st.sampled_from(["busybox", "python:3.14", "myorg/app"]))
def test_precedence_container_then_services_then_image_then_hostname(
        own: dict[str, str], services: dict[str, str], image: str) -> None:
    """Each variable comes from the highest layer that defines it: the container's own ``env``, the
    service variables, the image's ``ENV``, the runtime's ``HOSTNAME``."""
    pod, container = _pod(image=image, **own)
    env = container_env(pod, container, services=services)
    image_env = behaviour.image_env(image)
    for name in {*own, *services, *image_env, "HOSTNAME"}:
        want = own.get(name, services.get(name, image_env.get(name, "p" if name == "HOSTNAME" else None)))
        assert env[name] == want
    _, command_env = container_command(pod, container, services=services)
    assert dict(command_env) == env, "a command that lists its environment keeps every layer"


def test_a_command_keeps_only_the_layered_variables_it_names() -> None:
    pod, container = _pod(OWN="1")
    container.command = ["sh", "-c", "echo $X_SERVICE_HOST"]
    _, env = container_command(pod, container, services={"X_SERVICE_HOST": "10.0.0.9", "Y_SERVICE_HOST": "b"})
    assert dict(env) == {"OWN": "1", "X_SERVICE_HOST": "10.0.0.9"}, "the same key for every pod"


def test_hostname_is_not_computed_for_a_command_not_reading_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(pod: Any) -> str:
        raise AssertionError("pod_hostname called")

    monkeypatch.setattr(behaviour, "pod_hostname", boom)
    pod, container = _pod()
    container.command = ["sleep", "5"]
    assert container_command(pod, container) == (("sleep", "5"), ())


SERVICE_POD = """
apiVersion: v1
kind: Service
metadata: {name: my-db, namespace: default}
spec:
  ports: [{name: sql, port: 5432}, {name: stats, port: 9187, protocol: UDP}]
---
apiVersion: v1
kind: Service
metadata: {name: headless, namespace: default}
spec: {clusterIP: None, selector: {a: b}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  restartPolicy: Never
  containers:
  - name: links
    image: python:3.14
    command:
    - sh
    - -c
    - >-
      echo $MY_DB_SERVICE_HOST $MY_DB_SERVICE_PORT_STATS $MY_DB_PORT $KUBERNETES_PORT $HEADLESS_SERVICE_HOST;
      echo $URL; echo $PYTHON_VERSION $PATH
    env: [{name: URL, value: "postgres://$(MY_DB_SERVICE_HOST):$(MY_DB_SERVICE_PORT)/db"}]
---
apiVersion: v1
kind: Pod
metadata: {name: nolinks, namespace: default}
spec:
  restartPolicy: Never
  enableServiceLinks: false
  containers:
  - name: c
    image: busybox
    command: [sh, -c, 'echo "[$MY_DB_SERVICE_HOST]" $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT_HTTPS']
"""


def test_a_pod_sees_its_namespaces_services_the_master_one_and_its_images_env() -> None:
    cp = sim_cluster(1)
    cp.apply(SERVICE_POD)
    cp.advance(5)
    assert pod_logs(cp, "default", "p", "links").splitlines() == [
        "10.0.0.17 9187 tcp://10.0.0.17:5432 tcp://10.0.0.1:443",
        "postgres://10.0.0.17:5432/db",
        f"3.14.2 /usr/local/bin:{DEFAULT_PATH}"]
    assert pod_logs(cp, "default", "nolinks", "c") == "[] 10.0.0.1:443\n"


def test_services_are_read_when_the_container_starts() -> None:
    cp = sim_cluster(1)
    cp.apply("""
apiVersion: v1
kind: Pod
metadata: {name: early, namespace: default}
spec:
  restartPolicy: Never
  containers: [{name: c, image: busybox, command: [sh, -c, 'echo "[$LATE_SERVICE_HOST]"']}]
""")
    cp.advance(5)
    cp.apply("""
apiVersion: v1
kind: Service
metadata: {name: late, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Pod
metadata: {name: later, namespace: default}
spec:
  restartPolicy: Never
  containers: [{name: c, image: busybox, command: [sh, -c, 'echo "[$LATE_SERVICE_HOST]"']}]
""")
    cp.advance(5)
    assert pod_logs(cp, "default", "early", "c") == "[]\n"
    assert pod_logs(cp, "default", "later", "c") == "[10.0.0.17]\n"


def test_an_exec_hook_sees_the_service_and_image_variables() -> None:
    """A hook's ``ExecSync`` runs in the container, with the container's environment."""
    cp = sim_cluster(1)
    cp.apply("""
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  restartPolicy: Never
  containers:
  - name: c
    image: busybox
    command: [sleep, "30"]
    lifecycle:
      postStart:
        exec: {command: [sh, -c, 'test "$KUBERNETES_SERVICE_HOST:$PATH" = "10.0.0.1:PATH_VALUE"']}
""".replace("PATH_VALUE", DEFAULT_PATH))
    cp.advance(5)
    reasons = {e.reason for e in cp.client.list(Event, "default").items}
    assert "FailedPostStartHook" not in reasons


def test_env_in_a_container_lists_every_layer() -> None:
    cp = sim_cluster(1)
    cp.apply("""
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  restartPolicy: Never
  containers:
  - {name: c, image: "python:3.14", command: [sh, -c, env], env: [{name: OWN, value: "1"}]}
""")
    cp.advance(5)
    lines = pod_logs(cp, "default", "p", "c").splitlines()
    assert lines == sorted(lines)
    assert {"HOSTNAME=p", "OWN=1", "PYTHON_VERSION=3.14.2", "KUBERNETES_SERVICE_HOST=10.0.0.1",
            "KUBERNETES_PORT_443_TCP=tcp://10.0.0.1:443", f"PATH=/usr/local/bin:{DEFAULT_PATH}"} <= set(lines)
