"""``kbatch --server`` on a failed response whose body is no ``Status`` (e.g. the plain-text 404 of a
route the server lacks): the error client-go builds, so the line is kubectl's.

Upstream: client-go ``rest/request.go`` ``newUnstructuredResponseError`` and k8s.io/apimachinery
v0.37.0-beta.0 ``pkg/api/errors/errors.go`` ``NewGenericServerResponse``; kubectl then prints
``Error from server (NotFound): the server could not find the requested resource (get jobs.batch pi)``.
"""

from __future__ import annotations

import httpx
import pytest

from kbatch.api import errors
from kbatch.api.batch_v1 import Job
from kbatch.cli.errors import describe_error
from kbatch.cli.remote import HttpBackend
from kbatch.families import builtin


def _backend(status: int, text: str, content_type: str = "text/plain; charset=utf-8") -> HttpBackend:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, text=text, headers={"content-type": content_type})

    backend = HttpBackend("http://kbatch.invalid", registry=builtin().registry())
    backend._http = httpx.Client(base_url="http://kbatch.invalid", transport=httpx.MockTransport(answer))
    return backend


def _error(backend: HttpBackend) -> errors.StatusError:
    with pytest.raises(errors.StatusError) as err:
        backend.get(Job.api_info, "default", "pi")
    return err.value


def test_a_plain_text_404_is_not_found_as_kubectl_says() -> None:
    err = _error(_backend(404, "404 page not found\n"))
    assert (err.code, err.reason) == (404, "NotFound")
    assert describe_error(err) == ("Error from server (NotFound): the server could not find the requested "
                                   "resource (get jobs.batch pi)")
    assert err.details is not None and err.details.causes is not None
    assert err.details.causes[0].message == "404 page not found"


@pytest.mark.parametrize(("status", "text", "ctype", "line"), [
    (405, "nope", "text/plain",
     "Error from server (MethodNotAllowed): the server does not allow this method on the requested resource "
     "(get jobs.batch pi)"),
    (500, "boom", "text/plain", 'Error from server (InternalError): an error on the server ("boom") has '
                                "prevented the request from succeeding (get jobs.batch pi)"),
    (502, "<html>", "text/html", 'Error from server (InternalError): an error on the server ("<html>") has '
                                 "prevented the request from succeeding (get jobs.batch pi)"),
    (500, "\x00\x01", "application/octet-stream",  # not textual: upstream's "unknown"
     'Error from server (InternalError): an error on the server ("unknown") has prevented the request from '
     "succeeding (get jobs.batch pi)"),
    (418, "teapot", "text/plain",
     "Error from server: the server responded with the status code 418 but did not return more information "
     "(get jobs.batch pi)"),
], ids=["405", "500", "502-html", "500-binary", "418-unknown-reason"])
def test_other_codes_follow_new_generic_server_response(status: int, text: str, ctype: str,
                                                        line: str) -> None:
    assert describe_error(_error(_backend(status, text, ctype))) == line


def test_a_status_body_is_still_decoded_as_the_server_said() -> None:
    body = '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,' \
           '"message":"jobs.batch \\"pi\\" not found"}'
    err = _error(_backend(404, body, "application/json"))
    assert isinstance(err, errors.NotFound) and err.message == 'jobs.batch "pi" not found'
