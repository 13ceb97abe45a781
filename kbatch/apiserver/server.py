"""``APIServer``: kube-apiserver semantics for every registered kind, on top of a ``KV`` store.

One object per control plane; it owns nothing but the store handle, the registry, the injected
clock and rng, the admission chain and a decode cache. Each verb lives in its own module
(create, update, patch, delete, listing, watch, unstructured); this class wires them together and is
what :class:`kbatch.apiserver.local.LocalClient` (``server.client()``) calls.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound, Status
from kbatch.api.features import FeatureGates
from kbatch.api.meta import Resource, ResourceList
from kbatch.api.policy_v1 import Eviction
from kbatch.api.registry import Registry
from kbatch.api.strategies.core import NamespaceFinalizeStrategy
from kbatch.apiserver import rbac_policybased
from kbatch.apiserver.admission import Admission
from kbatch.apiserver.admission_plugins.node_restriction import admit_token_request
from kbatch.apiserver.apply import tracking as apply_tracking
from kbatch.apiserver.apply.operation import apply_object
from kbatch.apiserver.binding import Binding, bind_pod
from kbatch.apiserver.client import Client, PatchType, Preconditions
from kbatch.apiserver.create import create_object
from kbatch.apiserver.decoded_cache import DecodedCache
from kbatch.apiserver.delete import delete_object
from kbatch.apiserver.eviction import evict_pod
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.listing import list_objects
from kbatch.apiserver.local import LocalClient
from kbatch.apiserver.namespaces import NamespaceLifecycle
from kbatch.apiserver.node_graph_source import default_chain
from kbatch.apiserver.patch import patch_object
from kbatch.apiserver.requester import requester
from kbatch.apiserver.subresource_admission import admit_pod_subresource
from kbatch.apiserver.token_requests import ServerObjects, TokenIssuer
from kbatch.apiserver.unstructured import Unstructured
from kbatch.apiserver.update import object_namespace, read_kv, update_object
from kbatch.apiserver.watch import TypedWatch, open_watch
from kbatch.authz.chain import AuthorizerChain
from kbatch.authz.token_signer import TokenSigner
from kbatch.families import AdmissionPlugin, Composition, builtin, resolve
from kbatch.store.kv import KV

__all__ = ["APIServer"]

Warnings = list[str]  # an alias: inside APIServer, `list` is its own method
Obj = dict[str, Any]
T = TypeVar("T", bound=Resource)


class APIServer:
    """Create/get/list/update/patch/delete/watch with kube-apiserver semantics.

    ``now`` gives the current (usually virtual) time and ``rng`` every random choice (uids,
    generated names), so the same inputs give the same objects. With a ``Namespace`` kind
    registered, the ``default`` and ``kube-system`` namespaces are created at construction and
    creates in a missing or terminating namespace are rejected (NamespaceLifecycle).
    ``admission_plugins`` are the admission plugins to install, in order (the families' plugins as
    ``--enable-admission-plugins``/``--disable-admission-plugins`` select them; default: every
    built-in family's default-enabled plugins, :meth:`kbatch.families.Composition.admission_plugins`);
    ``features``, ``composition`` and ``configurations`` are what those plugins may read.
    """

    def __init__(self, store: KV, registry: Registry, *, now: Callable[[], datetime],
                 rng: random.Random, bootstrap: bool = True,
                 admission_plugins: tuple[AdmissionPlugin, ...] | None = None,
                 features: FeatureGates | None = None, composition: Composition | None = None,
                 configurations: Mapping[str, Any] | None = None) -> None:
        self.store = store
        self.registry = registry
        # the gates in force, for admission plugins that decide by one (webhooks read their binary's)
        self.features = features if features is not None else builtin().feature_gates()
        self.now = now
        self.rng = rng
        # what admission plugins may consult (upstream webhooks read their component's flags and
        # configuration): the gates in force, the composed families (their job integrations) and
        # component configurations by name (e.g. "kueue": Kueue's Configuration)
        self.features = features if features is not None else builtin().feature_gates()
        self.composition = composition if composition is not None else builtin()
        self.configurations: dict[str, Any] = dict(configurations or {})
        self.admission = Admission()
        self.decoded = DecodedCache()
        self._kinds: dict[type[Resource], Kind] = {}
        self.namespaces = NamespaceLifecycle(self)
        # controllers in this process that keep each namespace's `default` ServiceAccount: the
        # ServiceAccount admission plugin lets them sync a namespace whose account it misses
        self.account_syncers: list[Callable[[str], None]] = []
        # the service-account signing key, when `kbatch serve` has put it there (kbatch/authz/token_signer.py)
        self.token_signer = TokenSigner()
        # serviceaccounts/NAME/token: decision and signing (kbatch/apiserver/token_requests.py); the
        # control plane sets its seed, `kbatch serve` its secret
        self.tokens = TokenIssuer()
        # the authorizer chain the server's own checks ask (escalation, NodeRestriction's audience rule,
        # admission policies' `authorizer`): Node,RBAC over the store, until `kbatch serve` sets its own
        self._authorizer: AuthorizerChain | None = None
        self.unstructured = Unstructured(self)
        # Update managers of tracked writes, recorded before the other admission plugins mutate the
        # object, as upstream's handlers do (kbatch.apiserver.apply.tracking)
        apply_tracking.install(self)
        rbac_policybased.install(self)  # RBAC's escalation check, not a plugin: upstream's storage
        self._plugins = admission_plugins if admission_plugins is not None else builtin().admission_plugins()
        self.admission_plugins = tuple(p.name for p in self._plugins)
        for plugin in self._plugins:
            resolve(plugin.install)(self)
        if bootstrap:
            self.namespaces.bootstrap()
            self.run_post_start_hooks()

    @property
    def authorizer(self) -> AuthorizerChain:
        """The configured authorizer chain (:mod:`kbatch.apiserver.node_graph_source`)."""
        if self._authorizer is None:
            self._authorizer = default_chain(self)
        return self._authorizer

    @authorizer.setter
    def authorizer(self, chain: AuthorizerChain) -> None:
        self._authorizer = chain

    def run_post_start_hooks(self) -> None:
        """The families' post-start hooks, in family order (kube-apiserver runs its post-start hooks
        each time it starts; a CLI command's load of its state directory is such a start)."""
        for family in self.composition.families:
            for hook in family.post_start:
                resolve(hook)(self)

    # --- pickling (a saved control plane, docs/cli.md) -----------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """Everything but what is rebuilt from configuration: the admission chain (its hooks are the
        plugins' own objects, installed again from the plugin list) and the per-model kind cache."""
        state = dict(self.__dict__)
        state["admission"] = None
        state["_kinds"] = {}
        state["_authorizer"] = None  # its graph reads this server; built again when first asked
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("token_signer", TokenSigner())  # an image saved before it existed
        self.__dict__.setdefault("tokens", TokenIssuer())
        self.__dict__.setdefault("_authorizer", None)
        self.admission = Admission()
        apply_tracking.install(self)
        rbac_policybased.install(self)
        for plugin in self._plugins:
            resolve(plugin.install)(self)

    def timestamp(self) -> datetime:
        """``now()`` at metav1.Time precision (whole seconds): what the server writes into objects, so
        that the object it returns equals the one it stores (upstream returns the stored form)."""
        now = self.now()
        return now.replace(microsecond=0) if now.microsecond else now

    # --- kinds -----------------------------------------------------------------------------------

    def kind(self, model: type[Resource]) -> Kind:
        kind = self._kinds.get(model)
        if kind is None:
            kind = self._kinds[model] = Kind.of(self.registry.for_model(model))
        return kind

    def kind_for(self, api_version: str, kind: str) -> Kind:
        return self.kind(self.registry.for_gvk(api_version, kind).model)

    # --- typed verbs -----------------------------------------------------------------------------

    def create(self, obj: T, *, namespace: str | None = None, dry_run: bool = False) -> T:
        return create_object(self, obj, namespace=namespace, dry_run=dry_run)

    def get(self, model: type[T], name: str, namespace: str | None = None) -> T:
        kind = self.kind(model)
        kv = read_kv(self, kind, object_namespace(kind, namespace), name)
        return self.decoded.shared(kind.model, kv)  # type: ignore[return-value]

    def list(self, model: type[T], namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None, limit: int | None = None, continue_: str | None = None,
             resource_version: str | None = None,
             resource_version_match: str | None = None) -> ResourceList[T]:
        """Items are the decode cache's shared, read-only instances (:mod:`kbatch.api.frozen`)."""
        return list_objects(self, model, namespace, label_selector=label_selector,
                            field_selector=field_selector, limit=limit, continue_=continue_,
                            resource_version=resource_version,
                            resource_version_match=resource_version_match)

    def update(self, obj: T, *, dry_run: bool = False) -> T:
        return update_object(self, obj, dry_run=dry_run)

    def update_status(self, obj: T, *, dry_run: bool = False) -> T:
        return update_object(self, obj, status=True, dry_run=dry_run)

    def finalize(self, obj: T, *, dry_run: bool = False) -> T:
        """``PUT /api/v1/namespaces/{name}/finalize``: set a Namespace's ``spec.finalizers`` (the only
        write that may), keeping its status; a terminating namespace left with no finalizers is
        deleted by the same write (ShouldDeleteNamespaceDuringUpdate)."""
        if not self.kind(type(obj)).is_namespace:
            raise NotFound(f"the server could not find the requested resource "
                           f"({type(obj).api_info.plural}/finalize)")
        return update_object(self, obj, dry_run=dry_run, strategy=NamespaceFinalizeStrategy())

    def patch(self, model: type[T], name: str, patch: Any, namespace: str | None = None, *,
              patch_type: PatchType = "merge", status: bool = False, dry_run: bool = False) -> T:
        obj, _ = patch_object(self, model, name, patch, namespace, patch_type=patch_type, status=status,
                              dry_run=dry_run)
        return obj

    def apply(self, obj: T | dict[str, Any], *, field_manager: str, force: bool = False,
              status: bool = False, dry_run: bool = False, model: type[T] | None = None) -> T:
        """Server-side apply (KEP-555) of ``obj``, a typed object (the fields set on it are the
        configuration) or a wire dict (then ``model``, or its apiVersion/kind, names the kind): only
        the fields it sets are this manager's
        (:mod:`kbatch.apiserver.apply`); ``status`` applies to the status subresource."""
        if isinstance(obj, Resource):  # only the fields the caller set, as an apply configuration
            config = {"apiVersion": obj.api_version, "kind": obj.kind,
                      **obj.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude_none=True)}
        else:
            config = obj
        if model is None:
            model = (type(obj) if isinstance(obj, Resource)  # type: ignore[assignment]
                     else self.kind_for(str(config.get("apiVersion")), str(config.get("kind"))).model)
        meta = config.get("metadata") if isinstance(config, dict) else None
        name = str((meta or {}).get("name") or "")
        out, _ = apply_object(self, model, name, config, (meta or {}).get("namespace"),  # type: ignore[arg-type]
                              field_manager=field_manager, force=force, status=status, dry_run=dry_run)
        return out

    def delete(self, model: type[T], name: str, namespace: str | None = None, *,
               propagation_policy: str | None = None, grace_period_seconds: int | None = None,
               preconditions: Preconditions | None = None, dry_run: bool = False) -> T | None:
        return delete_object(self, model, name, namespace, propagation_policy=propagation_policy,
                             grace_period_seconds=grace_period_seconds, preconditions=preconditions,
                             dry_run=dry_run)

    def watch(self, model: type[T], namespace: str | None = None, *, label_selector: str | None = None,
              field_selector: str | None = None, resource_version: str | None = None,
              allow_bookmarks: bool = False, send_initial_events: bool = False) -> TypedWatch[T]:
        """Events carry the decode cache's shared, read-only instances."""
        return open_watch(self, model, namespace, label_selector=label_selector,
                          field_selector=field_selector, resource_version=resource_version,
                          allow_bookmarks=allow_bookmarks, send_initial_events=send_initial_events)

    def bind(self, binding: Binding, namespace: str | None = None, *, dry_run: bool = False) -> Pod:
        """``pods/binding``: set the pod's node, annotations and ``PodScheduled`` in one write."""
        binding = admit_pod_subresource(self, binding, "binding", namespace, binding.name, dry_run=dry_run)
        return bind_pod(self, binding, namespace, dry_run=dry_run)

    def evict(self, name: str, namespace: str, eviction: Eviction, *, dry_run: bool = False) -> Status:
        """``pods/eviction``: delete the pod unless its PodDisruptionBudget forbids it (429)."""
        eviction = admit_pod_subresource(self, eviction, "eviction", namespace, name, dry_run=dry_run)
        return evict_pod(self, name, namespace, eviction, dry_run=dry_run)

    def create_token(self, namespace: str, name: str, body: dict[str, Any]) -> tuple[Obj, Warnings]:
        """``serviceaccounts/NAME/token``: a TokenRequest answered at the server's now, and its
        warnings; nothing is stored (:class:`~kbatch.apiserver.token_requests.TokenIssuer`). The
        admission chain runs on it as on any create: NodeRestriction holds a node's request to a
        token bound to one of its own pods (``admitServiceAccount``)."""
        admit_token_request(self, requester(), namespace, name, body)
        return self.tokens.create_token(ServerObjects(self), namespace, name, body, self.now())

    def client(self) -> Client:
        """The in-process :class:`kbatch.apiserver.client.Client`."""
        return LocalClient(self)
