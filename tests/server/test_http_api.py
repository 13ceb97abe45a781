"""The REST front end in process: discovery, OpenAPI, verbs, Tables, errors, extensions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbatch.api.go_quote import go_quote
from kbatch.server.warning_header import warning_text

AppClient = Any

POD = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "p1", "labels": {"app": "demo"}},
       "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sleep", "10"]}]}}
PODS = "/api/v1/namespaces/default/pods"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


def test_discovery_documents(api: AppClient) -> None:
    assert api.get("/api").json()["versions"] == ["v1"]
    groups = {g["name"]: g for g in api.get("/apis").json()["groups"]}
    assert groups["batch"]["preferredVersion"]["groupVersion"] == "batch/v1"
    assert "kbatch.dev" in groups
    core = {r["name"]: r for r in api.get("/api/v1").json()["resources"]}
    assert core["pods"]["shortNames"] == ["po"] and core["pods"]["namespaced"] is True
    assert "watch" in core["pods"]["verbs"] and "pods/status" in core and "pods/log" in core
    assert core["nodes"]["namespaced"] is False
    batch = {r["name"]: r for r in api.get("/apis/batch/v1").json()["resources"]}
    assert batch["jobs"]["kind"] == "Job"
    assert api.get("/apis/batch").json()["kind"] == "APIGroup"
    version = api.get("/version").json()
    assert (version["major"], version["minor"], version["gitVersion"]) == ("1", "37", "v1.37.0-kbatch")


def test_openapi_v3_declares_field_validation_on_patch(api: AppClient) -> None:
    root = api.get("/openapi/v3").json()["paths"]
    assert "apis/batch/v1" in root and "api/v1" in root
    doc = api.get(root["apis/batch/v1"]["serverRelativeURL"]).json()
    item = doc["paths"]["/apis/batch/v1/namespaces/{namespace}/jobs/{name}"]["patch"]
    assert item["x-kubernetes-group-version-kind"] == {"group": "batch", "version": "v1", "kind": "Job"}
    assert "fieldValidation" in [p["name"] for p in item["parameters"]]
    schemas = doc["components"]["schemas"]
    job = next(s for s in schemas.values() if s.get("x-kubernetes-group-version-kind") ==
               [{"group": "batch", "version": "v1", "kind": "Job"}])
    assert "spec" in job["properties"]
    assert api.get("/openapi/v2").json()["swagger"] == "2.0"


def test_pod_crud_table_and_patches(api: AppClient) -> None:
    created = api.post(PODS, json=POD)
    assert created.status_code == 201, created.text
    assert created.json()["metadata"]["uid"]
    assert api.get(f"{PODS}/p1").json()["metadata"]["name"] == "p1"
    listed = api.get(PODS, params={"labelSelector": "app=demo"}).json()
    assert listed["kind"] == "PodList" and [i["metadata"]["name"] for i in listed["items"]] == ["p1"]
    assert api.get(PODS, params={"labelSelector": "app=other"}).json()["items"] == []
    table = api.get(PODS, headers={"Accept": TABLE}).json()
    assert table["kind"] == "Table"
    assert [c["name"] for c in table["columnDefinitions"]][:5] == ["Name", "Ready", "Status", "Restarts",
                                                                   "Age"]
    assert table["rows"][0]["cells"][:3] == ["p1", "0/1", "Pending"]
    merged = api.patch(f"{PODS}/p1", content=json.dumps({"metadata": {"labels": {"x": "y"}}}),
                       headers={"Content-Type": "application/merge-patch+json"})
    assert merged.status_code == 200 and merged.json()["metadata"]["labels"]["x"] == "y"
    jsonp = api.patch(f"{PODS}/p1", content=json.dumps([{"op": "add", "path": "/metadata/annotations",
                                                         "value": {"a": "b"}}]),
                      headers={"Content-Type": "application/json-patch+json"})
    assert jsonp.status_code == 200 and jsonp.json()["metadata"]["annotations"] == {"a": "b"}
    status = api.patch(f"{PODS}/p1/status", content=json.dumps(
        {"status": {"conditions": [{"type": "ConfigIssue", "status": "True"}]}}),
        headers={"Content-Type": "application/merge-patch+json"})
    assert status.status_code == 200, status.text
    assert any(c["type"] == "ConfigIssue" for c in status.json()["status"]["conditions"])
    gone = api.delete(f"{PODS}/p1")
    assert gone.status_code == 200
    assert api.get(f"{PODS}/p1").status_code == 404


def test_create_and_update_take_a_yaml_body(api: AppClient) -> None:
    """kube-apiserver decodes ``application/yaml`` bodies (its YAML serializer), as ``curl -H
    'Content-Type: application/yaml' --data-binary @pod.yaml`` users rely on; other media types
    are a 415 naming the accepted ones."""
    text = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: y1\n  labels: {app: yaml}\n"
            "spec:\n  containers: [{name: c, image: busybox, command: [sleep, '10']}]\n")
    created = api.post(PODS, content=text.encode(), headers={"Content-Type": "application/yaml"})
    assert created.status_code == 201, created.text
    assert created.json()["metadata"]["labels"] == {"app": "yaml"}
    current = created.json()
    current["metadata"]["labels"] = {"app": "yaml2"}
    updated = api.request("PUT", f"{PODS}/y1", content=json.dumps(current).encode(),
                          headers={"Content-Type": "application/yaml"})  # JSON is YAML too
    assert updated.status_code == 200, updated.text
    assert updated.json()["metadata"]["labels"] == {"app": "yaml2"}
    refused = api.post(PODS, content=json.dumps(POD).encode(), headers={"Content-Type": "text/plain"})
    assert refused.status_code == 415
    assert refused.json()["message"] == ("the body of the request was in an unknown format - accepted media "
                                         "types include: application/json, application/yaml, "
                                         "application/vnd.kubernetes.protobuf")
    bad = api.post(PODS, content=b"a: [b", headers={"Content-Type": "application/yaml"})
    assert bad.json()["message"].startswith("the object provided is unrecognized (must be of type Pod): "
                                            "error converting YAML to JSON: yaml: line ")


def test_a_yaml_body_with_a_repeated_key(api: AppClient) -> None:
    """The YAML serializer keeps the last value; under Strict its ``YAMLToJSONStrict`` pass refuses
    the body (apimachinery ``runtime/serializer/json/json.go``); under Warn the warning's text holds
    a newline, which ``NewWarningHeader`` refuses, so the client sees none."""
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\n  name: dup2\n"
            "data:\n  k: one\n  k: two\n")
    yaml_body = {"content": text.encode(), "headers": {"Content-Type": "application/yaml"}}
    cms = "/api/v1/namespaces/default/configmaps"
    strict = api.post(cms, params={"fieldValidation": "Strict"}, **yaml_body)  # type: ignore[arg-type]
    assert strict.status_code == 400, strict.text
    assert strict.json()["message"] == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: error '
        'converting YAML to JSON: yaml: unmarshal errors:\n  line 5: key "name" already set in map\n'
        '  line 8: key "k" already set in map')
    assert api.get(f"{cms}/dup2").status_code == 404
    warned = api.post(cms, **yaml_body)  # type: ignore[arg-type]
    assert warned.status_code == 201, warned.text
    assert warned.json()["data"] == {"k": "two"} and warned.json()["metadata"]["name"] == "dup2"
    assert "warning" not in warned.headers


def test_dry_run_does_not_persist(api: AppClient) -> None:
    out = api.post(PODS, json=POD, params={"dryRun": "All"})
    assert out.status_code == 201
    assert api.get(f"{PODS}/p1").status_code == 404
    assert api.post(PODS, json=POD, params={"dryRun": "Some"}).status_code == 422  # ValidateCreateOptions


def test_field_validation(api: AppClient) -> None:
    bad = json.loads(json.dumps(POD))
    bad["spec"]["bogus"] = 1
    strict = api.post(PODS, json=bad, params={"fieldValidation": "Strict"})
    assert strict.status_code == 400 and "bogus" in strict.json()["message"]
    ignored = api.post(PODS, json=bad, params={"fieldValidation": "Ignore"})
    assert ignored.status_code == 201, ignored.text
    assert "warning" not in ignored.headers
    bad["metadata"]["name"] = "p2"
    warned = api.post(PODS, json=bad, params={"fieldValidation": "Warn"})
    assert warned.status_code == 201 and "bogus" in warned.headers.get("warning", "")
    bad["metadata"]["name"] = "p3"  # no directive is Warn, as kube-apiserver's (a client that sends none)
    unsaid = api.post(PODS, json=bad)
    assert unsaid.status_code == 201
    assert warning_text(unsaid.headers.get("warning", "")) == 'unknown field "spec.bogus"'
    assert "bogus" not in unsaid.json()["spec"]
    assert api.post(PODS, json=bad, params={"fieldValidation": "Loud"}).status_code == 422  # ditto


@pytest.mark.parametrize(("method", "path", "kwargs", "code", "reason"), [
    ("GET", "/api/v1/namespaces/default/widgets", {}, 404, "NotFound"),
    ("POST", PODS, {"content": b"{not json"}, 400, "BadRequest"),
    ("POST", PODS, {"content": b"[1, 2]"}, 400, "BadRequest"),
    ("POST", PODS, {"content": b""}, 400, "BadRequest"),
    ("POST", "/api/v1/namespaces/other/pods",
     {"json": POD | {"metadata": {"name": "x", "namespace": "default"}}}, 400, "BadRequest"),
    ("PATCH", f"{PODS}/p1", {"content": b"{}", "headers": {"Content-Type": "application/apply-patch+yaml"}},
     422, "Invalid"),  # server-side apply without the required fieldManager
    ("PATCH", f"{PODS}/p1", {"content": b"{}", "headers": {"Content-Type": "text/plain"}}, 415,
     "UnsupportedMediaType"),
    ("PUT", PODS, {"json": POD}, 405, "MethodNotAllowed"),
    ("POST", PODS, {"content": json.dumps(POD).encode(), "headers": {"Content-Type": "text/plain"}}, 415,
     "UnsupportedMediaType"),  # kube-apiserver's NegotiateInputSerializer: no such decoder
    ("POST", PODS, {"content": b"a: [b", "headers": {"Content-Type": "application/yaml"}}, 400,
     "BadRequest"),
    ("GET", PODS, {"params": {"watch": "1", "sendInitialEvents": "true",
                              "resourceVersionMatch": "NotOlderThan"}}, 422, "Invalid"),
    ("GET", PODS, {"params": {"limit": "ten"}}, 400, "BadRequest"),
    ("GET", "/api/v1/nodes/n1/status/extra", {}, 404, "NotFound"),
    ("POST", "/apis/kbatch.dev/v1alpha1/clock", {"json": {"advance": "soon"}}, 400, "BadRequest"),
    ("POST", "/apis/kbatch.dev/v1alpha1/actions/explode", {"json": {}}, 404, "NotFound"),
])
def test_malformed_requests_get_status_errors(api: AppClient, method: str, path: str, kwargs: dict,
                                              code: int, reason: str) -> None:
    resp = api.request(method, path, **kwargs)
    assert resp.status_code == code, resp.text
    body = resp.json()
    assert body["kind"] == "Status" and body["status"] == "Failure" and body["reason"] == reason


@pytest.mark.parametrize(("name", "value", "reason"), [
    ("limit", " 5", "invalid syntax"), ("limit", "5\n", "invalid syntax"), ("limit", "1_0", "invalid syntax"),
    ("limit", "٣", "invalid syntax"), ("limit", "99999999999999999999", "value out of range"),
])
def test_integer_query_parameters_are_read_with_go_parse_int(api: AppClient, name: str, value: str,
                                                             reason: str) -> None:
    """The parameter codec's ``strconv.ParseInt(v, 10, 64)``; its error is the BadRequest's message."""
    resp = api.get(PODS, params={name: value})
    assert resp.status_code == 400, resp.text
    assert resp.json()["message"] == f"strconv.ParseInt: parsing {go_quote(value)}: {reason}"


@pytest.mark.parametrize("watch", [False, True])
def test_timeout_seconds_is_decoded_on_a_list_too_and_before_limit(api: AppClient, watch: bool) -> None:
    """The parameter codec decodes all of ListOptions, in its field order, before either path."""
    params = {"timeoutSeconds": "soon", "limit": "many", **({"watch": "true"} if watch else {})}
    resp = api.get(PODS, params=params)
    assert resp.status_code == 400, resp.text
    assert resp.json()["message"] == 'strconv.ParseInt: parsing "soon": invalid syntax'


def test_an_integer_query_parameter_may_carry_a_sign(api: AppClient) -> None:
    assert api.get(PODS, params={"limit": "+5"}).status_code == 200


def test_not_found_names_the_resource(api: AppClient) -> None:
    body = api.get("/apis/batch/v1/namespaces/default/jobs/pi").json()
    assert body["code"] == 404 and body["message"] == 'jobs.batch "pi" not found'


def test_clock_extension(api: AppClient) -> None:
    before = api.get("/apis/kbatch.dev/v1alpha1/clock").json()
    assert before["virtual"] is True
    after = api.post("/apis/kbatch.dev/v1alpha1/clock", json={"advance": "1m30s"}).json()
    assert after["advancedSeconds"] == 90.0 and after["now"] > before["now"]


def test_bearer_token_required_when_configured(backend: object, make_api: Any) -> None:
    guarded = make_api(backend, token="s3cret")
    assert guarded.get("/api").status_code == 401
    assert guarded.get("/api", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert guarded.get("/api", headers={"Authorization": "Bearer s3cret"}).status_code == 200


def test_nodes_add_action_creates_ready_nodes(api: AppClient) -> None:
    out = api.post("/apis/kbatch.dev/v1alpha1/actions/nodes-add", json={"count": 2, "gpu": 8})
    assert out.status_code == 200, out.text
    nodes = api.get("/api/v1/nodes", headers={"Accept": TABLE}).json()
    assert [r["cells"][:2] for r in nodes["rows"]] == [["node-0", "Ready"], ["node-1", "Ready"]]


PATHS = [
    "/", "/api", "/api/v1", "/api/v2", "/apis/batch/v1", "/apis/batch/v9", "/api/v1/pods",
    PODS, f"{PODS}/x", f"{PODS}/x/status", f"{PODS}/x/log", f"{PODS}/x/exec", "/api/v1/namespaces",
    "/api/v1/namespaces/default", "/api/v1/namespaces/default/status", "/api/v1/nodes/n/status",
    "/api/v1/namespaces/default/nodes/n", "/apis/batch/v1/namespaces/default/jobs/j/status",
    "/apis/kbatch.dev/v1alpha1/clock", "/apis/kbatch.dev/v1alpha1/actions/fail-pod", "/openapi/v3/apis/x/y",
    "/api/v1/namespaces/%2F/pods", "/api/v1/namespaces/default/pods/" + "a" * 300,
]
BODIES = [b"", b"{", b"[]", b"null", b"5", b'{"kind":"Pod"}', b'{"metadata": 5}',
          b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":5}',
          b'[{"op":"explode","path":"/x"}]', b'{"advance": -5}', b"\xff\xfe"]
TYPES = ["application/json", "application/merge-patch+json", "application/json-patch+json",
         "application/strategic-merge-patch+json", "text/yaml"]


def test_malformed_requests_never_get_a_500(api: AppClient) -> None:
    """Every combination of verb, path, body and content type is answered with a Status or a
    document; nothing is a 500 and the app keeps serving."""
    failures = []
    for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
        for path in PATHS:
            for i, body in enumerate(BODIES):
                ctype = TYPES[i % len(TYPES)]
                resp = api.request(method, path, content=body, headers={"Content-Type": ctype},
                                   params={"watch": "0", "timeoutSeconds": "1"})
                if resp.status_code >= 500:
                    failures.append((method, path, body, resp.status_code, resp.text[:200]))
    assert failures == []
    assert api.get("/healthz").text == "ok"


def test_malformed_json_bodies_fail_in_kube_apiservers_words(api: AppClient) -> None:
    """transformDecodeError over the serializer's type-meta sniffing for creates and updates; the
    patchers' own words for patches (k8s.io/apiserver pkg/endpoints/handlers/{create,patch}.go)."""
    body = b'{"apiVersion":"v1","kind":"Pod",bad}'
    created = api.post(PODS, content=body, headers={"Content-Type": "application/json"})
    assert created.status_code == 400
    assert created.json()["message"] == (
        "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse "
        "error: invalid character 'b' looking for beginning of object key string "
        '({"apiVersion":"v1","kind":"Pod ...)')
    prefix = "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; "
    empty = api.post(PODS, content=b"", headers={"Content-Type": "application/json"})
    assert empty.json()["message"] == prefix + "json parse error: unexpected end of JSON input (<empty>)"
    assert api.post(PODS, json=POD).status_code == 201
    replaced = api.request("PUT", f"{PODS}/p1", content=b"[1 2]",
                           headers={"Content-Type": "application/json"})
    assert replaced.json()["message"] == (prefix + "json parse error: invalid character '2' after array "
                                          "element (5b3120325d)")
    answers = {}
    for ctype in ("merge-patch+json", "json-patch+json", "strategic-merge-patch+json"):
        for validation in ("Strict", "Ignore"):
            out = api.patch(f"{PODS}/p1", content=b'{"metadata":', params={"fieldValidation": validation},
                            headers={"Content-Type": f"application/{ctype}"})
            assert out.status_code == 400
            answers[ctype, validation] = out.json()["message"]
    assert answers == {
        ("merge-patch+json", "Strict"): "error decoding patch: unexpected end of JSON input",
        ("merge-patch+json", "Ignore"): "Invalid JSON Patch",
        ("json-patch+json", "Strict"): "error decoding patch: unexpected end of JSON input",
        ("json-patch+json", "Ignore"): "unexpected end of JSON input",
        ("strategic-merge-patch+json", "Strict"): "unexpected end of JSON input",
        ("strategic-merge-patch+json", "Ignore"): "unexpected end of JSON input",
    }
    assert api.get(f"{PODS}/p1").json()["metadata"].get("labels") == POD["metadata"]["labels"]
