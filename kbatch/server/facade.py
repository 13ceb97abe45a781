"""``ControlPlaneBackend``: the :class:`~kbatch.server.backend.Backend` over an in-process ControlPlane.

Wire dicts go through the API server's dict-level verbs (``server.unstructured``: decoding under
``fieldValidation``, admission, storage); watches go through the typed client, encoded with
``to_dict()``. The same object serves ``kbatch serve`` and the CLI's local mode. Also here:
building, saving and restoring the control plane of a state directory (store snapshot + a small
JSON of clock time and seed, written so that a crash leaves the previous pair intact).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from kbatch.api.base import ApiInfo, format_time, parse_time
from kbatch.api.errors import BadRequest, NotFound, StatusError
from kbatch.api.registry import KindSpec
from kbatch.apiserver.apply.operation import apply_object
from kbatch.apiserver.apply.tracking import field_manager
from kbatch.apiserver.client import Preconditions
from kbatch.apiserver.requester import as_control_plane
from kbatch.server import actions
from kbatch.server.backend import DeleteOptions, WatchOptions, WriteOptions
from kbatch.server.inert_warnings import inert_warnings
from kbatch.sim.unmodelled import unmodelled_warnings

__all__ = ["ControlPlaneBackend", "SelfDrivenBackend", "new_control_plane", "restore_control_plane",
           "save_control_plane"]

Obj = dict[str, Any]
UNTIL_IDLE_LIMIT = 24 * 3600.0
EPHEMERAL = "ephemeralcontainers"  # pods/ephemeralcontainers (kbatch/api/strategies/core/pod_ephemeral.py)


# --- state directory files ------------------------------------------------------------------

def new_control_plane(*, controllers: str | None = None, seed: int = 0, clock: str = "virtual",
                      start: datetime | None = None, store: Any = None,
                      feature_gates: str | None = None, addons: str | None = None) -> Any:
    from kbatch.runtime.controlplane import ControlPlane

    kwargs: dict[str, Any] = {"seed": seed, "controllers": "*" if controllers is None else controllers,
                              "clock": clock,
                              "feature_gates": feature_gates, "addons": addons}
    if start is not None:
        kwargs["start"] = start
    if store is not None:
        kwargs["store"] = store
    return ControlPlane(**kwargs)


MAGIC = b"KBATCH-STATE 1\n"


def save_control_plane(cp: Any, path: str | os.PathLike[str]) -> None:
    """One file: a magic line, a JSON line (clock time, seed), then the store snapshot bytes.
    Written to a temporary file in the same directory, fsynced, then renamed over ``path``: a
    killed process leaves either the old file or the new one, never a mix."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".snap-") as work:
        store_file = Path(work) / "store"
        cp.store.snapshot(str(store_file))
        meta = {"now": cp.now().isoformat(), "seed": getattr(cp, "base_seed", cp.seed)}
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}-")
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC + json.dumps(meta).encode() + b"\n" + store_file.read_bytes())
            out.flush()
            os.fsync(out.fileno())
    os.replace(tmp, target)


def restore_control_plane(path: str | os.PathLike[str], *, controllers: str | None = None,
                          clock: str = "virtual", config: Any = None) -> Any:
    """A control plane over the objects of an objects-only snapshot (``save_control_plane``): its
    controllers start afresh. ``config`` (a :class:`kbatch.cli.state.StateConfig`) builds it when given."""
    from kbatch.store import MemoryStore

    source = Path(path)
    try:
        data = source.read_bytes()
    except OSError as err:
        raise BadRequest(f"cannot read the snapshot {source}: {err.strerror}") from None
    if not data.startswith(MAGIC):
        raise BadRequest(f"{source} is not a kbatch snapshot")
    header, _, body = data[len(MAGIC):].partition(b"\n")
    try:
        meta = json.loads(header)
    except ValueError:
        raise BadRequest(f"{source} is not a kbatch snapshot (bad header)") from None
    store = MemoryStore()
    with tempfile.TemporaryDirectory(prefix="kbatch-restore-") as work:
        store_file = Path(work) / "store"
        store_file.write_bytes(body)
        try:
            store.restore(str(store_file))
        except Exception as err:
            raise BadRequest(f"cannot restore the snapshot {source}: {err}") from None
    _migrate(store)
    if config is not None:
        clock = config.clock
    start = parse_time(meta["now"]) if meta.get("now") and clock == "virtual" else None
    seed = int(meta.get("seed", 0))
    if config is not None:
        cp = config.build(store=store, start=start, seed=session_seed(seed, store.revision))
    else:
        cp = new_control_plane(controllers=controllers, seed=session_seed(seed, store.revision), clock=clock,
                               start=start, store=store)
    cp.base_seed = seed
    cp.server.tokens.use_secret(seed, None)  # the state's key, as `kbatch serve` derives it
    return cp


def _migrate(store: Any) -> None:
    """Objects of built-in kinds written before kbatch's keys followed kube-apiserver's layout."""
    from kbatch.apiserver.keys import migrate_legacy_layout
    from kbatch.families import BUILTIN_FAMILIES, compose

    migrate_legacy_layout(store, (spec.info for spec in compose(BUILTIN_FAMILIES).registry()))


def session_seed(seed: int, revision: int) -> int:
    """The random seed of one session over a restored store: derived from the user's seed and the
    store revision, so that a later command never replays the random draws (uids, generated names)
    of an earlier one, and the same sequence of commands still gives the same results."""
    digest = hashlib.sha256(f"{seed}:{revision}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# --- the backend ------------------------------------------------------------------------------

class EventCache:
    """Events encoded once for every watcher: a change fans out to N watch streams, and each would
    otherwise turn the same object into the same dict (and JSON) again. Keyed by event type,
    resourceVersion, namespace and name, which together name one change; bounded, oldest out.
    Cached dicts are shared: callers must not mutate them."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._items: dict[tuple[Any, ...], Any] = {}

    def get(self, key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
        value = self._items.get(key)
        if value is None:
            value = self._items[key] = make()
            if len(self._items) > self.size:
                del self._items[next(iter(self._items))]
        return value


def _event_dict(e: Any) -> Obj:
    """A watch event on the wire: ``{"type": ..., "object": <the object's JSON dict>}``."""
    return {"type": e.type, "object": e.object.to_dict()}


class _DictWatch:
    def __init__(self, stream: Any, cache: EventCache) -> None:
        self._stream = stream
        self._cache = cache

    def poll(self) -> list[Obj]:
        out = []
        for e in self._stream.poll():
            obj = e.object
            meta = getattr(obj, "metadata", None)
            rv = getattr(meta, "resource_version", None)
            if e.type in ("ERROR", "BOOKMARK") or meta is None or not rv:
                out.append(_event_dict(e))
                continue
            key = (e.type, type(obj).__name__, rv, meta.namespace, meta.name)
            out.append(self._cache.get(key, partial(_event_dict, e)))
        return out

    def set_notify(self, fn: Callable[[], None] | None) -> None:
        self._stream.set_notify(fn)

    def close(self) -> None:
        self._stream.close()


class ControlPlaneBackend:
    def __init__(self, control_plane: Any) -> None:
        self.control_plane = control_plane
        self.registry = control_plane.registry
        self._events = EventCache()

    @property
    def _client(self) -> Any:
        return self.control_plane.client

    @property
    def _api(self) -> Any:
        """The API server's dict-level verbs (``kbatch.apiserver.unstructured``)."""
        return self.control_plane.server.unstructured

    def _spec(self, info: ApiInfo) -> KindSpec:
        return self.registry.for_gvk(info.api_version, info.kind)

    def _model(self, info: ApiInfo) -> Any:
        return self._spec(info).model

    def _ns(self, info: ApiInfo, namespace: str | None) -> str | None:
        return namespace if info.namespaced else None

    def now(self) -> datetime:
        return self.control_plane.now()

    def committed_at(self, revision: int) -> datetime:
        return self.control_plane.committed_at(revision)  # type: ignore[no-any-return]

    def create(self, info: ApiInfo, namespace: str | None, body: Obj, opts: WriteOptions) -> Obj:
        with field_manager(opts.field_manager):
            out, warnings = self._api.create(body, namespace=self._ns(info, namespace),
                                             dry_run=opts.dry_run, field_validation=opts.field_validation)
        opts.warnings.extend(warnings)
        opts.warnings.extend(unmodelled_warnings(out))  # what the simulated kubelet will not run
        opts.warnings.extend(inert_warnings(out))  # what no kbatch controller acts on
        return out

    def get(self, info: ApiInfo, namespace: str | None, name: str, *,
            resource_version: str | None = None) -> Obj:
        return self._api.get(info.api_version, info.kind, name, self._ns(info, namespace),
                             resource_version=resource_version)

    def list(self, info: ApiInfo, namespace: str | None, *, label_selector: str | None = None,
             field_selector: str | None = None, limit: int | None = None, continue_: str | None = None,
             resource_version: str | None = None, resource_version_match: str | None = None) -> Obj:
        return self._api.list(info.api_version, info.kind, self._ns(info, namespace),
                              label_selector=label_selector, field_selector=field_selector, limit=limit,
                              continue_=continue_, resource_version=resource_version,
                              resource_version_match=resource_version_match)

    def update(self, info: ApiInfo, namespace: str | None, name: str, body: Obj, opts: WriteOptions,
               *, subresource: str | None = None) -> Obj:
        with field_manager(opts.field_manager):
            out, warnings = self._api.update(body, namespace=self._ns(info, namespace),
                                             status=subresource == "status", dry_run=opts.dry_run,
                                             field_validation=opts.field_validation,
                                             finalize=subresource == "finalize",
                                             ephemeral=subresource == EPHEMERAL)
        opts.warnings.extend(warnings)
        return out

    def patch(self, info: ApiInfo, namespace: str | None, name: str, patch: Any, patch_type: str,
              opts: WriteOptions, *, subresource: str | None = None) -> Obj:
        if patch_type not in ("merge", "json", "strategic"):
            raise BadRequest(f"unknown patch type {patch_type!r}")
        with field_manager(opts.field_manager):
            out, warnings = self._api.patch(info.api_version, info.kind, name, patch,
                                            namespace=self._ns(info, namespace), patch_type=patch_type,
                                            status=subresource == "status", dry_run=opts.dry_run,
                                            field_validation=opts.field_validation,
                                            ephemeral=subresource == EPHEMERAL)
        opts.warnings.extend(warnings)
        return out

    def apply(self, info: ApiInfo, namespace: str | None, name: str, config: Any, opts: WriteOptions, *,
              field_manager: str | None, force: bool = False, subresource: str | None = None) -> Obj:
        creates = subresource is None and not self._exists(info, namespace, name)
        out, warnings = apply_object(self.control_plane.server, self._model(info), name, config,
                                     self._ns(info, namespace), field_manager=field_manager, force=force,
                                     status=subresource == "status", dry_run=opts.dry_run,
                                     field_validation=opts.field_validation,  # type: ignore[arg-type]
                                     as_served=True)
        opts.warnings.extend(warnings)
        written = out.to_dict()
        # an apply that creates warns as a create does: upstream's applyPatcher creates through the
        # store's Update with forceAllowCreate, which runs BeforeCreate and so WarningsOnCreate
        # (k8s.io/apiserver pkg/endpoints/handlers/patch.go, pkg/registry/generic/registry/store.go)
        if creates:
            opts.warnings.extend(unmodelled_warnings(written))
            opts.warnings.extend(inert_warnings(written))
        return written

    def _exists(self, info: ApiInfo, namespace: str | None, name: str) -> bool:
        try:
            self.get(info, namespace, name)
        except NotFound:
            return False
        return True

    def delete(self, info: ApiInfo, namespace: str | None, name: str, opts: DeleteOptions) -> Obj | None:
        pre = None
        if opts.uid or opts.resource_version:
            pre = Preconditions(uid=opts.uid, resource_version=opts.resource_version)
        return self._api.delete(info.api_version, info.kind, name, self._ns(info, namespace),
                                propagation_policy=opts.propagation_policy,
                                grace_period_seconds=opts.grace_period_seconds, preconditions=pre,
                                dry_run=opts.dry_run)

    def watch(self, info: ApiInfo, namespace: str | None, opts: WatchOptions) -> _DictWatch:
        stream = self._client.watch(self._model(info), self._ns(info, namespace),
                                    label_selector=opts.label_selector, field_selector=opts.field_selector,
                                    resource_version=opts.resource_version,
                                    allow_bookmarks=opts.allow_bookmarks,
                                    send_initial_events=opts.send_initial_events)
        return _DictWatch(stream, self._events)

    def evict(self, namespace: str, name: str, eviction: Obj, *, dry_run: bool = False) -> Obj:
        from kbatch.api.policy_v1 import Eviction
        from kbatch.apiserver.decoding import decode_dict

        # a body that does not decode is the create handler's transformDecodeError, in Go's words
        body = {**eviction, "apiVersion": "policy/v1", "kind": "Eviction"}
        model, _ = decode_dict(Eviction, body, "Ignore")
        return self.control_plane.server.evict(name, namespace, model, dry_run=dry_run).to_dict()

    def settle(self) -> None:
        with as_control_plane():  # the controllers' writes are theirs, not the request's user's
            self.control_plane.run_until_idle()

    # --- extensions -------------------------------------------------------------------------------
    def clock(self) -> Obj:
        cp = self.control_plane
        out = {"kind": "Clock", "apiVersion": "kbatch.dev/v1alpha1", "virtual": bool(cp.clock.is_virtual),
               "now": format_time(cp.now()), "nowMicro": cp.now().isoformat()}
        deadline = cp.timers.next_deadline()
        out["nextDeadline"] = None if deadline is None else cp.clock.to_datetime(deadline).isoformat()
        out["secondsToNextDeadline"] = None if deadline is None else max(0.0, deadline - cp.clock.now())
        return out

    def advance(self, seconds: float | None, *, until_idle: bool = False, wait_for: Obj | None = None,
                until_next_deadline: bool = False) -> Obj:
        cp = self.control_plane
        if not cp.clock.is_virtual:
            raise BadRequest("this control plane runs on the real clock; time cannot be advanced")
        start = cp.clock.now()
        met = None
        if until_next_deadline:
            met = self._to_next_deadline(seconds)
        elif wait_for is not None:
            predicate = actions.wait_predicate(self, wait_for)
            try:
                cp.wait_for(predicate, seconds if seconds is not None else 3600.0)
                met = True
            except TimeoutError:
                met = False
        elif until_idle:
            try:
                cp.wait_for(lambda: not cp.timers.has_pending_work(),
                            seconds if seconds is not None else UNTIL_IDLE_LIMIT)
                met = True
            except TimeoutError:
                met = False
        else:
            cp.advance(seconds or 0.0)
        out = self.clock() | {"advancedSeconds": cp.clock.now() - start}
        if met is not None:
            out["met"] = met
        return out

    def _to_next_deadline(self, limit: float | None) -> bool:
        """Jump to the earliest pending timer and fire what is due there (the in-process
        ``wait_for``'s autojump, one step at a time); at most ``limit`` seconds, where it stops
        instead. True when a deadline was reached; without one (and no limit) time stays put."""
        cp = self.control_plane
        cp.run_until_idle()
        target = cp.timers.next_deadline()
        if target is None and limit is None:
            return False
        try:
            cp.wait_for(lambda: target is not None and cp.clock.now() >= target,
                        limit if limit is not None else max(0.0, target - cp.clock.now()) + 1.0)
        except TimeoutError:
            return False
        return True

    def pod_log(self, namespace: str, name: str, container: str | None = None, *,
                previous: bool = False) -> str:
        return actions.pod_log(self, namespace, name, container, previous=previous)

    def pod_log_lines(self, namespace: str, name: str, container: str | None = None, *,
                      previous: bool = False,
                      run_started: str | None = None) -> Sequence[tuple[datetime, str]]:
        return actions.pod_log_lines(self, namespace, name, container, previous=previous,
                                     run_started=run_started)

    def action(self, name: str, args: Obj) -> Obj:
        handler = actions.ACTIONS.get(name)
        if handler is None:
            raise NotFound(f"unknown kbatch action {name!r}; known: {', '.join(sorted(actions.ACTIONS))}")
        try:
            return handler(self, args)
        except StatusError:
            raise
        except (KeyError, TypeError, ValueError) as err:
            raise BadRequest(f"action {name}: {err}") from None


class SelfDrivenBackend(ControlPlaneBackend):
    """For a control plane whose loop runs by itself and only where leader election allows
    (``kbatch serve --etcd-servers``): a request does not run the controllers after a write, since
    another process may be the leader and this one's informers hear of the write only through etcd."""

    def settle(self) -> None:
        return None
