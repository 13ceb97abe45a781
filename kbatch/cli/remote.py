"""A :class:`kbatch.server.backend.Backend` that talks to a running ``kbatch serve`` over HTTP.

``--server URL`` (env ``KBATCH_SERVER``) makes every CLI command use this instead of the local
state directory; ``KBATCH_TOKEN`` supplies the bearer token when the server asks for one. Errors
come back as ``Status`` bodies and are raised as the matching ``StatusError``.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import httpx

from kbatch.api.base import ApiInfo, parse_time
from kbatch.api.registry import Registry
from kbatch.api.rest_paths import resource_path as _path
from kbatch.api.rest_paths import status_error
from kbatch.cli.errors import ServerUnreachable
from kbatch.families import builtin
from kbatch.server.aggregated_discovery import CONTENT_TYPE as AGGREGATED
from kbatch.server.backend import DeleteOptions, WatchOptions, WriteOptions
from kbatch.server.warning_header import warning_text

__all__ = ["HttpBackend"]

Obj = dict[str, Any]
_CONTENT_TYPES = {"merge": "application/merge-patch+json", "json": "application/json-patch+json",
                  "strategic": "application/strategic-merge-patch+json"}
def _raise(resp: httpx.Response) -> None:
    if resp.status_code < 400:
        return
    try:
        body = resp.json()
    except ValueError:
        body = None
    if not (isinstance(body, dict) and (body.get("kind") == "Status" or body.get("status") == "Failure")):
        _raise_unstructured(resp)  # client-go: a body that is no Status makes a generic error
        return
    raise status_error(body, resp.text.strip() or f"HTTP {resp.status_code}")


def _raise_unstructured(resp: httpx.Response) -> None:
    from kbatch.cli.unstructured_errors import generic_server_error

    ctype = resp.headers.get("content-type", "")
    textual = not ctype or ctype.split(";")[0].strip().startswith("text/")  # client-go isTextResponse
    text = resp.text.strip()[:2048] if textual else "unknown"
    raise generic_server_error(resp.status_code, resp.request.method, resp.request.url.path, text)


class _HttpWatch:
    """Blocking iteration over a watch response (the CLI's ``get -w``)."""

    def __init__(self, client: httpx.Client, path: str, params: dict[str, Any]) -> None:
        self._cm = client.stream("GET", path, params=params, timeout=httpx.Timeout(10.0, read=None))
        self._resp = self._cm.__enter__()
        _raise_stream(self._resp)

    def __iter__(self) -> Iterator[Obj]:
        for line in self._resp.iter_lines():
            if line.strip():
                yield json.loads(line)

    def poll(self) -> list[Obj]:
        return [next(iter(self))]

    def set_notify(self, fn: Callable[[], None] | None) -> None:
        pass

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


def _raise_stream(resp: httpx.Response) -> None:
    if resp.status_code >= 400:
        resp.read()
        _raise(resp)


class HttpBackend:
    remote = True  # changes can come from elsewhere (``get -w`` keeps watching)

    def __init__(self, url: str, *, token: str | None = None, registry: Registry | None = None,
                 timeout: float = 60.0, ca_file: str | None = None) -> None:
        """``ca_file``: the certificate an ``https`` server is trusted by (``kbatch serve --tls``'s)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        verify: ssl.SSLContext | bool = ssl.create_default_context(cafile=ca_file) if ca_file else True
        self._http = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout, verify=verify)
        self._registry = registry

    @property
    def registry(self) -> Registry:
        """The kinds the server serves, from its discovery on first use (a kind behind a gate the
        server has off is not offered, so a name resolves as kubectl's discovery-backed RESTMapper
        resolves it: client-go ``restmapper``)."""
        if self._registry is None:
            self._registry = builtin().registry(served=self._served_kinds())
        return self._registry

    def _served_kinds(self) -> set[tuple[str, str]]:
        """(apiVersion, kind) of every resource of ``/api/v1`` and each ``/apis`` group version: from
        aggregated discovery in two requests, as client-go asks first, or else from the legacy
        documents, one request per group version."""
        accept = {"Accept": f"{AGGREGATED},application/json"}
        docs = [self._call("GET", path, headers=accept) for path in ("/api", "/apis")]
        if all(d.get("kind") == "APIGroupDiscoveryList" for d in docs):
            return {(f"{g['metadata']['name']}/{v['version']}" if g["metadata"].get("name") else v["version"],
                     r["responseKind"]["kind"])
                    for d in docs for g in d["items"] for v in g.get("versions") or ()
                    for r in v.get("resources") or ()}
        return self._legacy_served_kinds()

    def _legacy_served_kinds(self) -> set[tuple[str, str]]:
        versions = ["v1"] + [v["groupVersion"] for g in self._call("GET", "/apis").get("groups") or ()
                             for v in g.get("versions") or ()]
        served = set()
        for gv in versions:
            listing = self._call("GET", "/api/v1" if gv == "v1" else f"/apis/{gv}")
            served |= {(gv, r["kind"]) for r in listing.get("resources") or () if "/" not in r["name"]}
        return served

    def close(self) -> None:
        self._http.close()

    def raw_get(self, uri: str) -> str:
        """``GET uri`` as the server answers it (``kbatch get --raw``); an error is its Status."""
        try:
            resp = self._http.get(uri)
        except httpx.HTTPError as err:
            raise ServerUnreachable(self._http.base_url.netloc.decode(), err) from None
        _raise(resp)
        return resp.text

    def _call(self, method: str, path: str, *, warnings: list[str] | None = None, **kwargs: Any) -> Any:
        """``warnings`` receives the texts of the answer's ``Warning`` headers (what kubectl prints)."""
        try:
            resp = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as err:
            raise ServerUnreachable(self._http.base_url.netloc.decode(), err) from None
        _raise(resp)
        if warnings is not None:
            warnings.extend(warning_text(v) for v in resp.headers.get_list("warning"))
        return resp.json() if resp.headers.get("content-type",
                                               "").startswith("application/json") else resp.text

    @staticmethod
    def _write_params(opts: WriteOptions) -> dict[str, str]:
        params = {"fieldValidation": opts.field_validation}
        if opts.dry_run:
            params["dryRun"] = "All"
        if opts.field_manager:
            params["fieldManager"] = opts.field_manager
        return params

    def now(self) -> datetime:
        return parse_time(self.clock()["now"])

    def committed_at(self, revision: int) -> datetime:
        answer = self._call("GET", "/apis/kbatch.dev/v1alpha1/clock", params={"revision": str(revision)})
        return datetime.fromisoformat(answer["committedAt"])

    def create(self, info: ApiInfo, namespace: str | None, body: Obj, opts: WriteOptions) -> Obj:
        return self._call("POST", _path(info, namespace), json=body, params=self._write_params(opts),
                          warnings=opts.warnings)

    def get(self, info: ApiInfo, namespace: str | None, name: str) -> Obj:
        return self._call("GET", _path(info, namespace, name))

    def list(self, info: ApiInfo, namespace: str | None, *, label_selector: str | None = None,
             field_selector: str | None = None, limit: int | None = None, continue_: str | None = None,
             resource_version: str | None = None, resource_version_match: str | None = None) -> Obj:
        params = {k: v for k, v in {"labelSelector": label_selector, "fieldSelector": field_selector,
                                    "limit": limit, "continue": continue_,
                                    "resourceVersion": resource_version,
                                    "resourceVersionMatch": resource_version_match}.items() if v}
        return self._call("GET", _path(info, namespace), params=params)

    def update(self, info: ApiInfo, namespace: str | None, name: str, body: Obj, opts: WriteOptions,
               *, subresource: str | None = None) -> Obj:
        return self._call("PUT", _path(info, namespace, name, subresource), json=body,
                          params=self._write_params(opts), warnings=opts.warnings)

    def patch(self, info: ApiInfo, namespace: str | None, name: str, patch: Any, patch_type: str,
              opts: WriteOptions, *, subresource: str | None = None) -> Obj:
        return self._call("PATCH", _path(info, namespace, name, subresource), content=json.dumps(patch),
                          headers={"Content-Type": _CONTENT_TYPES[patch_type]},
                          params=self._write_params(opts), warnings=opts.warnings)

    def apply(self, info: ApiInfo, namespace: str | None, name: str, config: Any, opts: WriteOptions, *,
              field_manager: str | None, force: bool = False, subresource: str | None = None) -> Obj:
        params = self._write_params(opts)
        if field_manager:
            params["fieldManager"] = field_manager
        if force:
            params["force"] = "true"
        return self._call("PATCH", _path(info, namespace, name, subresource), content=json.dumps(config),
                          headers={"Content-Type": "application/apply-patch+yaml"}, params=params,
                          warnings=opts.warnings)

    def delete(self, info: ApiInfo, namespace: str | None, name: str, opts: DeleteOptions) -> Obj | None:
        body: Obj = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if opts.propagation_policy:
            body["propagationPolicy"] = opts.propagation_policy
        if opts.grace_period_seconds is not None:
            body["gracePeriodSeconds"] = opts.grace_period_seconds
        if opts.dry_run:
            body["dryRun"] = ["All"]
        out = self._call("DELETE", _path(info, namespace, name), content=json.dumps(body),
                         headers={"Content-Type": "application/json"})
        return None if out.get("kind") == "Status" else out

    def evict(self, namespace: str, name: str, eviction: Obj, *, dry_run: bool = False) -> Obj:
        """``POST pods/NAME/eviction`` with a policy/v1 Eviction (a 429 is ``TooManyRequests``)."""
        body = {**eviction, "apiVersion": "policy/v1", "kind": "Eviction"}
        params = {"dryRun": "All"} if dry_run else {}
        return self._call("POST", f"/api/v1/namespaces/{namespace}/pods/{name}/eviction", json=body,  # type: ignore[no-any-return]
                          params=params)

    def watch(self, info: ApiInfo, namespace: str | None, opts: WatchOptions) -> _HttpWatch:
        params = {k: v for k, v in {"watch": "1", "labelSelector": opts.label_selector,
                                    "fieldSelector": opts.field_selector,
                                    "resourceVersion": opts.resource_version,
                                    "allowWatchBookmarks": "true" if opts.allow_bookmarks else None,
                                    "timeoutSeconds": opts.timeout_seconds,
                                    }.items() if v}
        return _HttpWatch(self._http, _path(info, namespace), params)

    def settle(self) -> None:
        """The server settles after every write."""

    def clock(self) -> Obj:
        return self._call("GET", "/apis/kbatch.dev/v1alpha1/clock")

    def advance(self, seconds: float | None, *, until_idle: bool = False,
                wait_for: Obj | None = None, until_next_deadline: bool = False) -> Obj:
        body: Obj = {"untilIdle": until_idle}
        if until_next_deadline:
            body["untilNextDeadline"] = True
        if seconds is not None:
            body["advance"] = f"{seconds}s"
        if wait_for is not None:
            body["waitFor"] = wait_for
        return self._call("POST", "/apis/kbatch.dev/v1alpha1/clock", json=body)

    def pod_log(self, namespace: str, name: str, container: str | None = None) -> str:
        params = {"container": container} if container else {}
        return self._call("GET", f"/api/v1/namespaces/{namespace}/pods/{name}/log", params=params)

    def action(self, name: str, args: Obj) -> Obj:
        return self._call("POST", f"/apis/kbatch.dev/v1alpha1/actions/{name}", json=args)
