"""The ASGI application behind ``kbatch serve``: the Kubernetes REST API over a :class:`Backend`.

Routes: ``/version``, health checks, ``/metrics``, discovery (``/api``, ``/apis``, group versions), OpenAPI
(``/openapi/v2``, ``/openapi/v3``), resource paths with every verb and watch, ``pods/NAME/log``, and
the kbatch extension group ``kbatch.dev/v1alpha1`` (see docs/serve.md):

* ``GET  /apis/kbatch.dev/v1alpha1/clock`` → ``{"kind": "Clock", "virtual": …, "now": …,
  "nextDeadline": …}``
* ``POST /apis/kbatch.dev/v1alpha1/clock`` with ``{"advance": "5m"}``, ``{"untilIdle": true}``,
  ``{"untilNextDeadline": true, "advance": "1m"}`` or
  ``{"advance": "1h", "waitFor": {"kind": "jobs", "name": "pi", "condition": "Complete"}}``
* ``POST /apis/kbatch.dev/v1alpha1/actions/NAME`` with the action's arguments (fault injection).

Every failure is a ``Status``, but for a path that no route claims, which is Go's plain-text
``404 page not found`` as kube-apiserver's (see :mod:`kbatch.server.routing`); a store that cannot
be reached (etcd down) is a 503 ``ServiceUnavailable`` Status; an unexpected exception is logged and
answered with a 500 Status, and never ends the server.
"""

from __future__ import annotations

import hmac
import logging
from dataclasses import replace
from typing import Any

from kbatch.api.errors import (
    BadRequest,
    MethodNotAllowed,
    NotFound,
    ServiceUnavailable,
    StatusError,
    Unauthorized,
)
from kbatch.api.kube_version import version_info
from kbatch.api.virtual import Subresource
from kbatch.apiserver.admission_plugins.node_restriction import admit_token_request
from kbatch.apiserver.requester import LOCAL_ADMIN, acting_as, as_control_plane
from kbatch.authz.chain import AuthorizerChain, authorize, is_privileged
from kbatch.authz.impersonation import impersonated_user, requested_user
from kbatch.authz.impersonation_check import check_impersonation
from kbatch.authz.node_authorizer import NodeAuthorizer
from kbatch.authz.rbac import Decision, RbacSnapshot
from kbatch.authz.request import forbidden, request_attributes
from kbatch.authz.sa_claims import TokenInvalid
from kbatch.authz.user import Attributes, UserInfo
from kbatch.runtime.clock import RealClock
from kbatch.runtime.duration import parse_duration
from kbatch.server import discovery
from kbatch.server.aggregated_discovery import CONTENT_TYPE as AGGREGATED
from kbatch.server.aggregated_discovery import api_discovery, apis_discovery, wants_aggregated
from kbatch.server.authorization_api import rbac_snapshot
from kbatch.server.backend import Backend
from kbatch.server.feature_metrics import render_feature_enabled
from kbatch.server.handlers import handle_resource
from kbatch.server.http import (
    Request,
    Response,
    document_response,
    json_response,
    raw_json_response,
    read_request,
    status_response,
)
from kbatch.server.log_follow import ClockTicks, serve_log_follow
from kbatch.server.node_graph_feed import NodeGraphFeed, node_authorizer
from kbatch.server.oidc_discovery import CACHE_CONTROL, CONFIG_PATH, JWKS_PATH, JWKS_TYPE, oidc_documents
from kbatch.server.openapi import OpenAPI
from kbatch.server.openapi_http import serve_v3_document, serve_v3_root
from kbatch.server.pretty import indented, wants_pretty
from kbatch.server.routing import PageNotFound, ResourcePath, Router, VirtualPath
from kbatch.server.service_account_tokens import TokenService, default_tokens
from kbatch.server.table import include_object, table_accepted
from kbatch.server.versions import versioned
from kbatch.server.virtual import (
    VirtualCall,
    answer,
    subresource_call_target,
    subresource_verb,
    virtual_table,
    virtual_verb,
)
from kbatch.server.warning_header import warning_header
from kbatch.server.watch import EncodedEvents, Shutdown, serve_watch
from kbatch.store.errors import UnavailableError

__all__ = ["KUBE_VERSION", "KbatchApp"]

log = logging.getLogger("kbatch.server")
KUBE_VERSION = version_info()  # GET /version: the release kbatch models (kbatch/api/kube_version.py)
PROTO_V2 = "application/com.github.proto-openapi.spec.v2"
# every Impersonate-* header (User, Group, Uid, Extra-<key>): any of them without a user is a 400
_IMPERSONATE = "impersonate-"
AUTHORIZATION_MODES = ("Node", "RBAC")
"""``--authorization-mode`` as kind and kubeadm set it; ``RBAC`` alone is the other choice."""




class KbatchApp:
    """``KbatchApp(backend, token=None, tokens=None)`` is an ASGI 3 callable. ``token`` is the static
    bearer token of ``kbatch serve --token``; ``tokens`` issues and authenticates service-account
    tokens (by default with a key derived from the control plane's seed and ``token``), capped at
    ``max_token_expiration`` seconds when not 0 (``--service-account-max-token-expiration``);
    ``authorization_modes``: ``("Node", "RBAC")`` (the default) or ``("RBAC",)``;
    ``external_address``: the ``host:port`` the issuer's key set is published under (kube-apiserver's
    external address), ``None`` to publish no OIDC discovery documents; ``jwks_uri``: the key set's
    URI the configuration names instead (``--service-account-jwks-uri``)."""

    def __init__(self, backend: Backend, *, token: str | None = None,
                 tokens: TokenService | None = None, max_token_expiration: int = 0,
                 authorization_modes: tuple[str, ...] = AUTHORIZATION_MODES,
                 external_address: str | None = None, jwks_uri: str | None = None) -> None:
        self.backend = versioned(backend)  # further served versions (CRDs' v1beta1 …) by conversion
        self.token = token
        self.external_address = external_address
        self.jwks_uri = jwks_uri  # --service-account-jwks-uri: the key set's URI in the configuration
        self.tokens = tokens if tokens is not None else default_tokens(backend, token)
        self.tokens.max_expiration = max_token_expiration or self.tokens.max_expiration
        self.tokens.install_signer(backend)  # the tokens controller signs legacy tokens with its key
        self.router = Router(backend.registry)
        self.openapi = OpenAPI(backend.registry)
        self.wall = RealClock()  # HTTP caching headers (Expires) are about the machine's time
        self.shutdown = Shutdown()
        self.encoded = EncodedEvents()
        self.ticks = ClockTicks()  # open pods/log?follow streams, woken when virtual time moves
        self.node: NodeAuthorizer | None = None  # the Node authorizer, when it is a mode
        if "Node" in authorization_modes:
            features = getattr(getattr(backend, "control_plane", None), "features", None)
            self.node = node_authorizer(NodeGraphFeed(self.backend), features)
        server = getattr(getattr(backend, "control_plane", None), "server", None)
        if server is not None:  # the API server's own checks ask the chain the requests do, one graph
            server.authorizer = AuthorizerChain(self.node)

    def begin_shutdown(self) -> None:
        """End open watch streams (called on SIGINT/SIGTERM, before uvicorn drains connections)."""
        self.shutdown.begin()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        req: Request | None = None
        try:
            req = await read_request(scope, receive)
            caller = self._authenticate(req)
            if caller is not None or any(key.startswith(_IMPERSONATE) for key in req.headers):
                self._authorize(req, caller)
            if req.method == "GET" and req.flag("watch"):
                gv = self.router.group_version(req.path)
                if gv is not None:
                    rp = self.router.resolve(*gv)
                    if rp.name is None:
                        await serve_watch(self.backend, req, rp, send, receive, self.shutdown,
                                          self.encoded)
                        return
            if req.method == "GET" and req.flag("follow") and await self._follow(req, send, receive):
                return
            with acting_as(req.user or LOCAL_ADMIN):  # request.WithUser: admission's userInfo
                response = self.dispatch(req)
        except PageNotFound:
            response = _page_not_found()
        except StatusError as err:
            response = status_response(err)
        except UnavailableError as err:  # etcd down: kube-apiserver's storage errors are 5xx too
            response = status_response(ServiceUnavailable(str(err)))
        except Exception as err:  # a bug, not the client's fault: answer, log, keep serving
            log.exception("internal error serving %s %s", scope.get("method"), scope.get("path"))
            response = status_response(_internal(err))
        await _send(send, _pretty(req, response) if req is not None else response)

    async def _follow(self, req: Request, send: Any, receive: Any) -> bool:
        """Stream ``pods/NAME/log?follow=true`` (:mod:`kbatch.server.log_follow`); ``False`` for any
        other path, which the ordinary dispatch answers."""
        gv = self.router.group_version(req.path.rstrip("/"))
        if gv is None or gv[2][-1:] != ["log"]:
            return False
        rp = self.router.resolve(*gv, req.method)
        if rp.subresource != "log" or rp.name is None:
            return False
        await serve_log_follow(self.backend, req, rp, send, receive, self.ticks,
                               lambda: self.shutdown.closing, self.shutdown)
        return True

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _authenticate(self, req: Request) -> UserInfo | None:
        """Who sent ``req``: ``None`` for the local administrator (no credentials, or the static
        ``--token``), the service account of a valid bearer token; 401 ``Unauthorized`` otherwise, as
        kube-apiserver's authentication filter answers a credential no authenticator accepts
        (k8s.io/apiserver ``pkg/endpoints/filters/authentication.go``; docs/rbac.md, "Who a request is")."""
        given = req.headers.get("authorization")
        if given is None:
            if self.token is not None:
                raise Unauthorized("Unauthorized")
            return None
        scheme, _, value = given.strip().partition(" ")
        value = value.strip()
        if scheme.lower() != "bearer" or not value:  # bearertoken.Authenticator: not a bearer token
            raise Unauthorized("Unauthorized")
        if self.token is not None and hmac.compare_digest(value.encode(), self.token.encode()):
            return None
        try:
            user = self.tokens.authenticate(self.backend, value)
        except TokenInvalid as err:
            log.info("service-account token refused: %s", err)
            user = None
        if user is None:
            raise Unauthorized("Unauthorized")
        return user

    def _authorize(self, req: Request, caller: UserInfo | None) -> None:
        """Act as the caller, or as whom it impersonates when it may (k8s.io/apiserver
        ``filters/impersonation``: a uid, extra or group without a user is a 400), and let the
        authorizer chain decide the request (403 when it does not allow it); docs/rbac.md. The local
        administrator's requests without ``Impersonate-*`` headers do not come here."""
        requestor = caller or LOCAL_ADMIN
        attrs = request_attributes(requestor, req.method, req.path.rstrip("/") or "/",
                                   watch=req.method == "GET" and req.flag("watch"),
                                   field_selector=req.param("fieldSelector"))
        snapshot: list[RbacSnapshot] = []

        def decide(a: Attributes) -> Decision:
            if not snapshot:
                snapshot.append(rbac_snapshot(self.backend))
            return authorize(a, snapshot[0], self.node)

        pairs = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in req.raw_headers]
        wanted = requested_user(pairs) if any(k.startswith(_IMPERSONATE) for k, _ in pairs) else None
        if wanted is None:
            req.user = caller
        elif is_privileged(requestor):  # every impersonation check passes: the user as the headers ask
            req.user = impersonated_user(pairs)
        else:
            req.user = check_impersonation(requestor, wanted, attrs, decide)
        attrs = replace(attrs, user=req.user or requestor)
        if is_privileged(attrs.user):
            return
        decision = decide(attrs)
        if not decision.allowed:
            raise forbidden(attrs, decision.reason)

    def dispatch(self, req: Request) -> Response:
        path = req.path.rstrip("/") or "/"
        simple = self._simple(req, path)
        if simple is not None:
            return simple
        gv = self.router.group_version(path)
        if gv is None:
            raise PageNotFound()
        group, version, rest = gv
        if group == discovery.KBATCH_GROUP:
            with as_control_plane():  # moving the clock runs the controllers, whose writes are theirs
                return self._extension(req, version, rest)
        if not rest:
            doc = discovery.api_resource_list(self.backend.registry, group, version)
            if doc is None:
                raise self.router.not_found(group)
            return json_response(doc)
        virtual = self.router.virtual(group, version, rest)
        if virtual is not None:
            return self._virtual(req, virtual)
        rp = self.router.resolve(group, version, rest, req.method)
        sub = rp.spec.subresource(rp.subresource)
        if sub is not None and sub.handler is not None:  # serviceaccounts/NAME/token
            return self._subresource(req, rp, sub)
        response = handle_resource(self.backend, req, rp)
        warning = rp.spec.served.warning if rp.spec.served is not None else None
        # a deprecated served version (CRD deprecationWarning) or kind (APILifecycleDeprecated: core/v1
        # Endpoints) warns on every request, installer.go
        for text in (warning, rp.spec.info.deprecation_warning):
            header = warning_header(text) if text else None
            if header is not None and header not in response.headers:
                response = replace(response, headers=(*response.headers, header))
        return response

    def _virtual(self, req: Request, path: VirtualPath) -> Response:
        """A family's virtual resource (:mod:`kbatch.server.virtual`): its handler's answer, 201 for
        a create as the installer's ``createHandler`` answers."""
        verb = virtual_verb(path.resource, req.method, path.namespace, path.name)
        call = VirtualCall(self.backend, path.resource, verb, req.user or LOCAL_ADMIN, path.namespace,
                           path.name, body=req.json() if verb == "create" else None,
                           params={k: req.param(k) for k in sorted(req.query)}, tokens=self.tokens,
                           static_token=self.token, node_authorizer=self.node)
        out = answer(call)
        if path.resource.table and verb in ("get", "list") and table_accepted(req.headers.get("accept", "")):
            out = virtual_table(path.resource, out, include_object(req.param("includeObject")))
        return json_response(out, 201 if verb == "create" else 200)

    def _subresource(self, req: Request, rp: ResourcePath, sub: Subresource) -> Response:
        """A declared subresource with its own handler, as :meth:`_virtual` (the TokenRequest: 201 and
        the request with its ``status``; kubectl sends it as protobuf)."""
        verb = subresource_verb(sub, req.method)
        call = VirtualCall(self.backend, subresource_call_target(rp.spec, sub), verb, req.user or LOCAL_ADMIN,
                           rp.namespace, rp.name, body=req.json() if req.method in ("POST", "PUT") else None,
                           tokens=self.tokens, static_token=self.token)
        if verb == "create" and sub.name == "token" and isinstance(call.body, dict):
            self._admit_token_request(call, rp)
        out = answer(call)
        return json_response(out, 201 if verb == "create" else 200,
                             tuple(warning_header(w) for w in call.warnings))

    def _admit_token_request(self, call: VirtualCall, rp: ResourcePath) -> None:
        """NodeRestriction on a TokenRequest (upstream's admission chain runs on the create of
        ``serviceaccounts/token``; ``admitServiceAccount``): a node's token must be bound to a pod on
        it. Only over an in-process control plane, whose API server holds the plugin."""
        server = getattr(getattr(self.backend, "control_plane", None), "server", None)
        if server is not None and isinstance(call.body, dict):
            admit_token_request(server, call.user, rp.namespace or "default", rp.name or "", call.body)

    def _simple(self, req: Request, path: str) -> Response | None:
        registry = self.backend.registry
        if path in ("/healthz", "/livez", "/readyz"):
            return Response(200, b"ok", content_type="text/plain")
        if path == "/version":
            return raw_json_response(KUBE_VERSION)
        if path in (CONFIG_PATH, JWKS_PATH):
            return self._oidc_discovery(path)
        cp = getattr(self.backend, "control_plane", None)
        metrics = getattr(cp, "metrics", None)
        if path == "/metrics" and cp is not None and metrics is not None:  # kube-controller-manager's
            text = metrics.render() + render_feature_enabled(cp.features)  # the gates, as every component
            return Response(200, text.encode(), content_type="text/plain; version=0.0.4")
        if path in ("/api", "/apis") and wants_aggregated(req.headers.get("accept", "")):
            groups = api_discovery(registry) if path == "/api" else apis_discovery(registry)
            return replace(json_response(groups), content_type=AGGREGATED, headers=(("vary", "Accept"),))
        if path == "/api":
            return json_response(discovery.api_versions())
        if path == "/apis":
            return json_response(discovery.api_group_list(registry))
        if path == "/openapi/v2":
            if PROTO_V2 in req.headers.get("accept", ""):
                # the subtype kube-openapi answers with: "@" (as clients ask) does not parse as a MIME type
                return Response(200, self.openapi.v2_protobuf(), content_type=f"{PROTO_V2}.v1.0+protobuf")
            return document_response(self.openapi.v2_document())
        if path == "/openapi/v3":
            return serve_v3_root(self.openapi, req)
        if path.startswith("/openapi/v3/"):
            return serve_v3_document(self.openapi, req, path.removeprefix("/openapi/v3/"),
                                      self.wall.now_datetime())
        parts = [p for p in path.split("/") if p]
        if len(parts) == 2 and parts[0] == "apis":
            versions = discovery.served_group_versions(registry).get(parts[1])
            if not versions:  # no group's discovery handler claims it
                raise PageNotFound()
            return json_response(discovery.api_group(parts[1], versions))
        return None

    def _oidc_discovery(self, path: str) -> Response:
        """The issuer's discovery document or key set (:mod:`kbatch.server.oidc_discovery`); 404 where
        kube-apiserver installs neither."""
        issuer = self.tokens.issuer
        docs = oidc_documents(issuer.issuer, issuer.key, jwks_uri=self.jwks_uri,
                              external_address=self.external_address)
        if docs is None:
            raise PageNotFound()
        cache = (("cache-control", CACHE_CONTROL),)
        if path == JWKS_PATH:
            return Response(200, docs.keyset, content_type=JWKS_TYPE, headers=cache)
        return Response(200, docs.config, headers=cache)

    def _clock(self, revision: str | None) -> dict[str, Any]:
        """The clock; with ``?revision=N`` also ``committedAt``, when N was committed (what the CLI's
        ``get -w`` measures a row at, as this server's watch tables are: kbatch/server/table.py)."""
        if revision is None:
            return self.backend.clock()
        if not revision.isdigit():
            raise BadRequest(f'revision "{revision}" is not a store revision')
        return {**self.backend.clock(), "committedAt": self.backend.committed_at(int(revision)).isoformat()}

    def _extension(self, req: Request, version: str, rest: list[str]) -> Response:
        if version != discovery.KBATCH_VERSION:
            raise NotFound(f"kbatch.dev/{version} is not served")
        if not rest:
            return json_response(discovery.api_resource_list(self.backend.registry, discovery.KBATCH_GROUP,
                                                             version))
        if rest == ["clock"]:
            if req.method == "GET":
                return json_response(self._clock(req.param("revision")))
            if req.method == "POST":
                body = req.json() if req.body.strip() else {}
                if not isinstance(body, dict):
                    raise BadRequest("the clock request must be a JSON object")
                seconds = None
                if body.get("advance") is not None:
                    try:
                        seconds = parse_duration(body["advance"])
                    except ValueError as err:
                        raise BadRequest(str(err)) from None
                wait_for = body.get("waitFor")
                if wait_for is not None and not isinstance(wait_for, dict):
                    raise BadRequest("waitFor must be an object: {kind, name, namespace, condition}")
                next_deadline = body.get("untilNextDeadline") is True
                if next_deadline and (wait_for is not None or body.get("untilIdle")):
                    raise BadRequest("untilNextDeadline cannot be combined with untilIdle or waitFor")
                moved = self.backend.advance(seconds, until_idle=bool(body.get("untilIdle")),
                                             wait_for=wait_for, until_next_deadline=next_deadline)
                self.ticks.tick()  # followed logs have new lines to send
                return json_response(moved)
            raise MethodNotAllowed(f"{req.method} is not allowed on the clock")
        if len(rest) == 2 and rest[0] == "actions":
            if req.method != "POST":
                raise MethodNotAllowed("actions are invoked with POST")
            body = req.json() if req.body.strip() else {}
            if not isinstance(body, dict):
                raise BadRequest("action arguments must be a JSON object")
            return json_response(self.backend.action(rest[1], body))
        raise NotFound(f"the server could not find the requested resource ({'/'.join(rest)})")


def _page_not_found() -> Response:
    """Go's ``http.NotFound``, as kube-apiserver's ``NotFoundHandler`` sends it
    (k8s.io/apiserver ``pkg/util/notfoundhandler``): kubectl shows it as a NotFound."""
    return Response(404, b"404 page not found\n", content_type="text/plain; charset=utf-8",
                    headers=(("x-content-type-options", "nosniff"),))


def _internal(err: Exception) -> StatusError:
    from kbatch.api.errors import InternalError

    return InternalError(f"an error on the server ({type(err).__name__}: {err}) has prevented the request "
                         "from succeeding")


def _pretty(req: Request, response: Response) -> Response:
    """A negotiated JSON answer indented when the request asks for it (:mod:`kbatch.server.pretty`)."""
    if not response.negotiated or not response.content_type.startswith("application/json"):
        return response
    if not wants_pretty(req.query, req.headers):
        return response
    return replace(response, body=indented(response.body))


async def _send(send: Any, response: Response) -> None:
    headers = [(b"content-type", response.content_type.encode())] if response.content_type else []
    headers.append((b"content-length", str(len(response.body)).encode()))
    headers += [(k.encode(), v.encode()) for k, v in response.headers]
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})
