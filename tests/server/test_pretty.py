"""Indented answers (``?pretty=true``, a curl/Wget/browser User-Agent, ``Accept: …;pretty=1``) as
kube-apiserver's negotiation chooses its pretty JSON serializer (k8s.io/apiserver
``pkg/endpoints/handlers/negotiation/negotiate.go`` ``isPrettyPrint``, ``acceptMediaTypeOptions``;
k8s.io/apimachinery ``pkg/runtime/serializer/json/json.go``: ``json.MarshalIndent``, no newline), with
the real kubectl, the official Python client and plain HTTP against ``kbatch serve``."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from kbatch.server.pretty import indented, wants_pretty
from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "pretty"}, "data": {"a": "b"}}


def _is_indented(body: bytes) -> bool:
    return body.startswith(b'{\n  "') and body.endswith(b"}") and body == indented(body)


def _is_compact(body: bytes) -> bool:
    return body.endswith(b"}\n") and b"\n" not in body[:-1]


def test_kubectl_get_raw_pretty(served: Any) -> None:
    kubectl(served, "create", "configmap", "pretty-k", "--from-literal=a=b")
    one = kubectl(served, "get", "--raw", "/api/v1/namespaces/default/configmaps/pretty-k?pretty=true").stdout
    assert _is_indented(one.encode()) and json.loads(one)["data"] == {"a": "b"}
    listed = kubectl(served, "get", "--raw", "/api/v1/namespaces/default/configmaps?pretty=1").stdout
    assert _is_indented(listed.encode()) and '\n  "items": [\n    {\n' in listed
    compact = kubectl(served, "get", "--raw", "/api/v1/namespaces/default/configmaps/pretty-k").stdout
    assert "\n" not in compact.strip()  # kubectl's User-Agent is not a "human" one


def test_python_client_pretty_parameter(served: Any) -> None:
    kubernetes = pytest.importorskip("kubernetes")
    api_client = kubernetes.config.new_client_from_config(config_file=str(served.kubeconfig))
    api = kubernetes.client.CoreV1Api(api_client)
    created = api.create_namespaced_config_map("default", CM, pretty="true", _preload_content=False)
    assert created.status == 201 and _is_indented(created.data)
    got = api.read_namespaced_config_map("pretty", "default", pretty="true", _preload_content=False)
    assert _is_indented(got.data) and json.loads(got.data)["metadata"]["name"] == "pretty"
    plain = api.read_namespaced_config_map("pretty", "default", _preload_content=False)
    assert _is_compact(plain.data)


def test_status_errors_discovery_and_tables_are_indented(served: Any) -> None:
    def get(path: str, **headers: str) -> httpx.Response:
        return httpx.get(served.url + path, headers={"user-agent": "x", **headers}, timeout=30)

    missing = get("/api/v1/namespaces/default/configmaps/absent?pretty=true")
    assert missing.status_code == 404 and _is_indented(missing.content)
    assert missing.json()["reason"] == "NotFound"
    assert _is_indented(get("/apis/batch/v1?pretty=true").content)
    table = get("/api/v1/namespaces/default/configmaps?pretty=true",
                accept="application/json;as=Table;v=v1;g=meta.k8s.io")
    assert table.json()["kind"] == "Table" and _is_indented(table.content)
    assert _is_indented(get("/api/v1/namespaces/default", accept="application/json;pretty=1").content)
    assert _is_compact(get("/api/v1/namespaces/default", accept="application/json;pretty=0").content)


def test_curl_user_agent_is_indented_unless_pretty_false(served: Any) -> None:
    def get(query: str, agent: str) -> bytes:
        return httpx.get(served.url + "/api/v1/namespaces/default" + query, timeout=30,
                         headers={"user-agent": agent}).content

    assert _is_indented(get("", "curl/8.5.0"))
    assert _is_indented(get("", "Mozilla/5.0 (X11; Linux x86_64)"))
    assert _is_compact(get("?pretty=false", "curl/8.5.0"))
    assert _is_compact(get("?pretty=nonsense", "Wget/1.21"))  # ParseBool's error is false
    assert _is_indented(get("?pretty=", "Wget/1.21"))  # an empty value is no value
    assert _is_compact(get("", "kubectl/v1.32.4 (linux/amd64)"))


@pytest.mark.parametrize(("query", "headers", "pretty"), [
    ({}, {}, False),
    ({"pretty": ["true"]}, {}, True),
    ({"pretty": ["T"]}, {}, True),
    ({"pretty": ["yes"]}, {"user-agent": "curl/8"}, False),
    ({"pretty": ["0"]}, {"user-agent": "curl/8"}, False),
    ({"pretty": [""]}, {"user-agent": "curl/8"}, True),
    ({"pretty": ["false", "true"]}, {}, False),  # url.Values.Get: the first value
    ({}, {"user-agent": "Wget/1.21"}, True),
    ({}, {"user-agent": "Mozilla/4.0"}, False),
    ({}, {"accept": "application/json;pretty=1"}, True),
    ({}, {"accept": "application/json;pretty=true"}, False),  # only "1"
    ({}, {"accept": "*/*;pretty=1"}, True),
    ({}, {"accept": "application/yaml;pretty=1, application/json;q=0.5"}, False),
    ({}, {"accept": "application/json;q=0.4;pretty=1, application/json;q=0.9"}, False),
])
def test_wants_pretty_table(query: dict[str, list[str]], headers: dict[str, str], pretty: bool) -> None:
    assert wants_pretty(query, headers) is pretty


def test_indented_is_go_marshal_indent() -> None:
    body = b'{"a":{},"b":[],"c":[1,{"d":null}],"e":"x"}\n'
    assert indented(body) == (b'{\n  "a": {},\n  "b": [],\n  "c": [\n    1,\n    {\n      "d": null\n    }\n'
                              b'  ],\n  "e": "x"\n}')
