"""What the HTTP front end (and the CLI) need from a control plane, at the wire level: plain dicts.

``Backend`` is the one seam between ``kbatch serve`` and the library: every REST verb on a kind
(identified by its ``ApiInfo``), a watch stream of dict events, and the kbatch extensions (clock,
fault injection, logs, snapshots). :class:`kbatch.server.facade.ControlPlaneBackend` implements it
over an in-process ``ControlPlane``; the CLI's remote mode implements the same calls over HTTP.

Every method raises ``kbatch.api.errors.StatusError`` subclasses for API failures.

Who asks is not an argument: as upstream's handlers read the user from the request context, the verbs
act as :func:`kbatch.apiserver.requester.requester`, which ``kbatch serve`` sets for each request
(``acting_as``) and which admission sees as ``AdmissionRequest.user``; a control plane's own work
(``settle``, moving the clock, actions) runs ``as_control_plane``, the local administrator. A typed
field in ``WriteOptions``/``DeleteOptions`` would have to be threaded through every verb of the API
server and would still miss the writes a request makes without options (an eviction's delete).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from kbatch.api.base import ApiInfo
from kbatch.api.registry import Registry

__all__ = ["Backend", "DeleteOptions", "DictWatch", "WatchOptions", "WriteOptions"]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class WriteOptions:
    """``dryRun=All``, ``fieldValidation=Strict|Warn|Ignore`` (KEP-2885) and ``fieldManager``: the
    manager a create, update or patch is recorded under (KEP-555; kubectl names its verbs',
    ``kubectl-label``)."""

    dry_run: bool = False
    field_validation: str = "Strict"
    field_manager: str | None = None
    warnings: list[str] = field(default_factory=list)  # filled by the backend for ``Warn``


@dataclass(frozen=True, slots=True)
class DeleteOptions:
    propagation_policy: str | None = None  # Background | Foreground | Orphan
    grace_period_seconds: int | None = None
    uid: str | None = None
    resource_version: str | None = None
    dry_run: bool = False
    policy_unset: bool = False  # neither propagationPolicy nor orphanDependents: the kind's default


@dataclass(frozen=True, slots=True)
class WatchOptions:
    label_selector: str | None = None
    field_selector: str | None = None
    resource_version: str | None = None
    allow_bookmarks: bool = False
    send_initial_events: bool = False  # in-process only: kbatch serve refuses sendInitialEvents
    timeout_seconds: int | None = None  # only for remote watches; the server ends the stream then


class DictWatch(Protocol):
    """A pull-based stream of ``{"type": ..., "object": {...}}`` events."""

    def poll(self) -> list[Obj]: ...

    def set_notify(self, fn: Callable[[], None] | None) -> None: ...

    def close(self) -> None: ...


class Backend(Protocol):
    registry: Registry

    def now(self) -> datetime:
        """The control plane's current time (virtual or real): what AGE is measured against."""
        ...

    def committed_at(self, revision: int) -> datetime:
        """When ``revision`` was committed (virtual time; on a real clock, now): what a watch event's
        table row is measured against (kbatch/server/watch.py)."""
        ...

    def create(self, info: ApiInfo, namespace: str | None, body: Obj, opts: WriteOptions) -> Obj: ...

    def get(self, info: ApiInfo, namespace: str | None, name: str, *,
            resource_version: str | None = None) -> Obj:
        """``resource_version``: "not older than" (unset or ``"0"``: the latest; a revision not yet
        written: the too-large ``Timeout``)."""
        ...

    def list(self, info: ApiInfo, namespace: str | None, *, label_selector: str | None = None,
             field_selector: str | None = None, limit: int | None = None, continue_: str | None = None,
             resource_version: str | None = None, resource_version_match: str | None = None) -> Obj:
        """A ``<Kind>List`` dict with ``metadata.resourceVersion`` (and ``continue``)."""
        ...

    def update(self, info: ApiInfo, namespace: str | None, name: str, body: Obj, opts: WriteOptions,
               *, subresource: str | None = None) -> Obj: ...

    def patch(self, info: ApiInfo, namespace: str | None, name: str, patch: Any, patch_type: str,
              opts: WriteOptions, *, subresource: str | None = None) -> Obj:
        """``patch_type`` is ``merge``, ``json`` or ``strategic``."""
        ...

    def apply(self, info: ApiInfo, namespace: str | None, name: str, config: Any, opts: WriteOptions, *,
              field_manager: str | None, force: bool = False, subresource: str | None = None) -> Obj:
        """Server-side apply of ``config`` (a wire dict) as ``field_manager``."""
        ...

    def delete(self, info: ApiInfo, namespace: str | None, name: str, opts: DeleteOptions) -> Obj | None:
        """The object while it still exists (terminating), ``None`` once gone."""
        ...

    def watch(self, info: ApiInfo, namespace: str | None, opts: WatchOptions) -> DictWatch: ...

    def evict(self, namespace: str, name: str, eviction: Obj, *, dry_run: bool = False) -> Obj:
        """``pods/eviction``: a Success ``Status`` dict, or TooManyRequests when a PDB forbids it."""
        ...

    def settle(self) -> None:
        """Run the controllers until idle at the current instant (after every write)."""
        ...

    # --- kbatch extensions (``/apis/kbatch.dev/v1alpha1``) ---------------------------------------

    def clock(self) -> Obj:
        """``{"virtual": bool, "now": RFC 3339, "nowMicro": …, "nextDeadline": RFC 3339 | None,
        "secondsToNextDeadline": float | None}`` (the earliest pending timer)."""
        ...

    def advance(self, seconds: float | None, *, until_idle: bool = False, wait_for: Obj | None = None,
                until_next_deadline: bool = False) -> Obj:
        """Move virtual time: by ``seconds``; or until no timer is left (``until_idle``), or until
        ``wait_for`` holds (``{kind, name, namespace, condition, status}`` or ``{…, delete: true}``),
        or to the next pending timer (``until_next_deadline``), at most ``seconds``. The answer is
        the clock plus ``advancedSeconds`` and, for the bounded forms, ``met``."""
        ...

    def pod_log(self, namespace: str, name: str, container: str | None = None, *,
                previous: bool = False) -> str: ...

    def pod_log_lines(self, namespace: str, name: str, container: str | None = None, *,
                      previous: bool = False,
                      run_started: str | None = None) -> Sequence[tuple[datetime, str]]:
        """The log's lines, each with the (virtual) time it was written."""
        ...

    def action(self, name: str, args: Obj) -> Obj:
        """Fault injection and cluster actions, as :data:`kbatch.server.actions.ACTIONS` names them
        (``nodes-add``, ``node-down``, ``node-up``, ``node-taint``, ``fail-pod``, ``evict-pod``,
        ``condition-pod``, ``node-stop-kubelet``, ``node-start-kubelet``, ``probe-fail``,
        ``probe-clear``, ``trace``, ``compact``). There is no ``reset``: ``kbatch reset`` works
        on a local state directory only (a served control plane is replaced by restarting)."""
        ...
