"""Unknown fields in patches and applies, per ``fieldValidation`` (KEP-2885), as kube-apiserver answers
them, with the real kubectl and plain HTTP against ``kbatch serve``:

* a strategic merge patch (k8s.io/apiserver ``pkg/endpoints/handlers/patch.go``
  ``applyPatchToObject``): ``Strict`` is a 422 with no kind or name and one ``patch`` cause quoting
  the patch map as Go's ``%+v`` prints it; ``Warn`` (also what no directive means, kubectl patch's
  case) a ``299`` warning per field; ``Ignore`` drops them;
* a JSON merge patch (``jsonPatcher``): ``Strict`` is the bare 400 ``strict decoding error``;
* server-side apply: ``structuredmerge.go`` converts the configuration to a typed value first, so a
  field the schema does not declare is a 500 (no reason) whatever the directive:
  ``failed to create typed patch object (NS/NAME; GROUP/VERSION, Kind=KIND): PATH: field not declared
  in schema``, paths as structured-merge-diff prints them (kubernetes/kubernetes#139253).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: %s}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""


@pytest.fixture(scope="module")
def job(served: Any) -> str:
    kubectl(served, "apply", "-f", "-", input_=JOB % "unknown")
    return served.url + "/apis/batch/v1/namespaces/default/jobs/unknown"


def _patch(url: str, kind: str, body: Any, validation: str | None) -> httpx.Response:
    params = {"fieldValidation": validation} if validation else {}
    return httpx.patch(url, params=params, timeout=30, content=json.dumps(body),
                       headers={"content-type": f"application/{kind}+json"})


def test_strategic_merge_patch_strict_is_upstreams_invalid(job: str) -> None:
    out = _patch(job, "strategic-merge-patch", {"spec": {"foo": 1, "bar": [1.5, "a", None, True]}}, "Strict")
    assert out.status_code == 422
    detail = ('Invalid value: "map[spec:map[bar:[1.5 a <nil> true] foo:1]]": strict decoding error: '
              'unknown field "spec.bar", unknown field "spec.foo"')
    assert out.json() == {"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
                          "message": f' "" is invalid: patch: {detail}', "reason": "Invalid",
                          "details": {"causes": [{"reason": "FieldValueInvalid", "message": detail,
                                                  "field": "patch"}]}, "code": 422}


def test_merge_patch_strict_is_a_bare_bad_request(job: str) -> None:
    out = _patch(job, "merge-patch", {"spec": {"foo": 1}}, "Strict")
    assert out.status_code == 400
    assert out.json()["message"] == 'strict decoding error: unknown field "spec.foo"'


@pytest.mark.parametrize("kind", ["strategic-merge-patch", "merge-patch"])
def test_warn_and_ignore(job: str, kind: str) -> None:
    for validation in ("Warn", None):
        out = _patch(job, kind, {"spec": {"foo": 1}}, validation)
        assert out.status_code == 200 and out.headers["warning"] == '299 - "unknown field \\"spec.foo\\""'
    ignored = _patch(job, kind, {"spec": {"foo": 1}}, "Ignore")
    assert ignored.status_code == 200 and "warning" not in ignored.headers
    assert "foo" not in ignored.json()["spec"]


def test_kubectl_patch_warns(served: Any, job: str) -> None:
    out = kubectl(served, "patch", "job", "unknown", "--type", "strategic", "-p", '{"spec":{"foo":1}}')
    assert 'Warning: unknown field "spec.foo"' in out.stderr


def test_server_side_apply_refuses_undeclared_fields_whatever_the_directive(served: Any) -> None:
    bad = (JOB % "ssa-unknown").replace("suspend: true", "suspend: true\n  foo: 1").replace(
        "image: busybox}", "image: busybox, bar: 2}")
    expected = ('Error from server: failed to create typed patch object (default/ssa-unknown; batch/v1, '
                'Kind=Job): errors:\n  .spec.foo: field not declared in schema\n'
                '  .spec.template.spec.containers[name="c"].bar: field not declared in schema\n')
    for validate in ("strict", "warn", "ignore"):
        out = kubectl(served, "apply", "--server-side", f"--validate={validate}", "-f", "-", input_=bad,
                      check=False)
        assert (out.returncode, out.stderr) == (1, expected)
    assert kubectl(served, "get", "job", "ssa-unknown", check=False).returncode == 1  # nothing written
    status = httpx.patch(served.url + "/apis/batch/v1/namespaces/default/jobs/ssa-unknown",
                         params={"fieldManager": "m", "fieldValidation": "Ignore"}, timeout=30,
                         headers={"content-type": "application/apply-patch+yaml"}, content=bad)
    assert status.status_code == 500 and "reason" not in status.json()



# A field's Go (snake_case) spelling is no field on the wire: kbatch's models accept Python names in
# Python code, but a body's ``active_deadline_seconds`` is as unknown to the server as ``foo``.
SNAKE = (JOB % "snake").replace("suspend: true", "suspend: true\n  active_deadline_seconds: 5")


def test_a_snake_case_name_is_an_unknown_field_to_kubectl_apply(served: Any) -> None:
    out = kubectl(served, "apply", "-f", "-", input_=SNAKE, check=False)
    assert out.returncode == 1
    assert out.stderr == ('Error from server (BadRequest): error when creating "STDIN": Job in version "v1" '
                          'cannot be handled as a Job: strict decoding error: unknown field '
                          '"spec.active_deadline_seconds"\n')
    assert kubectl(served, "get", "job", "snake", check=False).returncode == 1  # nothing written


def test_a_snake_case_name_is_warned_and_dropped_outside_strict(served: Any, job: str) -> None:
    out = kubectl(served, "patch", "job", "unknown", "--type", "merge", "-p", '{"spec":{"backoff_limit":1}}')
    assert 'Warning: unknown field "spec.backoff_limit"' in out.stderr
    got = json.loads(kubectl(served, "get", "job", "unknown", "-o", "json").stdout)["spec"]
    assert got["backoffLimit"] == 6 and "backoff_limit" not in got


def test_server_side_apply_does_not_declare_a_snake_case_name(served: Any) -> None:
    out = kubectl(served, "apply", "--server-side", "-f", "-", input_=SNAKE, check=False)
    assert out.returncode == 1
    assert out.stderr == ('Error from server: failed to create typed patch object (default/snake; batch/v1, '
                          'Kind=Job): .spec.active_deadline_seconds: field not declared in schema\n')
