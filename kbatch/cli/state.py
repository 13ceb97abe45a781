"""A local state directory: one continuous control plane that every command continues.

Files (``--state DIR``, env ``KBATCH_STATE``, default ``./.kbatch``)::

    state.kbatch      the control plane's image (kbatch/runtime/image.py): objects, clock, timers,
                      queues, caches, random streams, the trace digest, and the configuration
    trace.jsonl       the canonical trace, every line of every command (trace.1.jsonl: the previous
                      256 MiB of it, once it grew past that)
    .lock, server     the directory's lock; the URL of the kbatch serve holding it

A command takes the lock, loads the image, acts, settles and saves the image again (atomically), then
appends its trace lines; so N commands are the same run as the same calls on one ``ControlPlane``.

**Configuration.** The image records what its control plane was built with (:class:`StateConfig`:
controllers, feature gates, admission plugins, scheduler and Kueue configurations, clock, seed; the
clock's start and the cluster add-ons, which only a new state's first command chooses). A
command that gives no such option continues as recorded; one that gives a different value *restarts*
the control plane with it, as restarting kube-controller-manager, kube-apiserver, kube-scheduler or
Kueue's manager with other flags does: the objects, the clock and the trace digest stay, what the
runtime held (timers, queues, caches) starts afresh, and a note on stderr says so.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbatch.cli.errors import UserError
from kbatch.cli.options import GlobalOptions

if TYPE_CHECKING:
    from kbatch.runtime.trace_window import Window

__all__ = ["IMAGE", "LEGACY_SNAPSHOT", "ROTATE_AT", "TRACE", "StateConfig", "StateDir", "addons_option",
           "read_kueue_config"]

IMAGE = "state.kbatch"
LEGACY_SNAPSHOT = "snapshot.kbatch"  # the objects-only state of kbatch before images
TRACE = "trace.jsonl"
ROTATE_AT = 256 * 2**20  # the trace file moves to trace.1.jsonl past this size


@dataclass(frozen=True, slots=True)
class StateConfig:
    """What a state directory's control plane is built with."""

    controllers: str = "*"
    feature_gates: str = ""
    enable_admission_plugins: str = ""
    disable_admission_plugins: str = ""
    scheduler_config: dict[str, Any] | None = None
    kueue_config: str | None = None  # Kueue's Configuration (its YAML text, checked when given)
    clock: str = "virtual"
    seed: int = 0
    start: str = ""  # the virtual clock's start (RFC 3339) chosen at creation; "": the library default
    addons: str = "*"  # the cluster add-ons chosen at creation, installed then only (runtime/addons.py)

    @classmethod
    def of(cls, recorded: dict[str, Any] | None) -> StateConfig:
        known = {k: v for k, v in (recorded or {}).items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def with_options(self, opts: GlobalOptions, clock: str | None = None) -> StateConfig:
        """This configuration with the options a command gave (``None``: not given) applied."""
        changes: dict[str, Any] = {}
        for name in ("controllers", "feature_gates", "enable_admission_plugins", "disable_admission_plugins"):
            value = getattr(opts, name)
            if value is not None:
                changes[name] = value
        if opts.scheduler_config is not None:
            changes["scheduler_config"] = _read_scheduler_config(opts.scheduler_config)
        if opts.kueue_config is not None:
            gates = changes.get("feature_gates", self.feature_gates)
            changes["kueue_config"] = read_kueue_config(opts.kueue_config, gates)
        if clock is not None:
            changes["clock"] = clock
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def differences(self, other: StateConfig) -> list[str]:
        return [name for name in self.__dataclass_fields__ if getattr(self, name) != getattr(other, name)]

    def build(self, *, store: Any = None, start: Any = None, seed: int | None = None) -> Any:
        """A fresh control plane of this configuration (over ``store``, at ``start``, when given)."""
        from kbatch.runtime.controlplane import ControlPlane

        kwargs: dict[str, Any] = {}
        if start is None and self.start and self.clock == "virtual":
            start = _parse_start(self.start)
        if start is not None:
            kwargs["start"] = start
        return ControlPlane(seed=self.seed if seed is None else seed, controllers=self.controllers,
                            clock=self.clock, feature_gates=self.feature_gates or None,
                            enable_admission_plugins=self.enable_admission_plugins or None,
                            disable_admission_plugins=self.disable_admission_plugins or None,
                            scheduler_config=self.scheduler_config, kueue_config=self.kueue_config,
                            store=store, addons=self.addons, **kwargs)


def read_kueue_config(path: str, feature_gates: str | None = None) -> str:
    """The text of the Kueue ``Configuration`` in ``path``, checked as Kueue's manager checks it."""
    from kbatch.api.errors import StatusError
    from kbatch.controllers.kueue.config import check_config_text

    try:
        text = Path(path).read_text()
    except OSError as err:
        raise UserError(f"--kueue-config {path}: {err.strerror}") from None
    try:
        check_config_text(text, feature_gates)
    except StatusError as err:
        raise UserError(f"--kueue-config {path}: {err}") from None
    return text


def _start_option(value: str | None) -> str:
    """``--clock-start``: ``now`` (the wall clock when the state is created) or an RFC 3339 time."""
    if not value:
        return ""
    if value == "now":
        from kbatch.runtime.clock import wall_clock_start

        return wall_clock_start().strftime("%Y-%m-%dT%H:%M:%SZ")
    return _parse_start(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def addons_option(opts: GlobalOptions) -> str:
    """The cluster add-ons of a new cluster: all (``*``) unless ``--no-default-storage-class``."""
    return "*,-default-storage-class" if opts.no_default_storage_class else "*"


def _parse_start(value: str) -> Any:
    from datetime import UTC, datetime

    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise UserError(f'--clock-start: "{value}" is neither "now" nor an RFC 3339 time') from None
    if when.tzinfo is None:
        raise UserError(f'--clock-start: "{value}" has no time zone (e.g. 2026-05-01T09:00:00Z)')
    return when.astimezone(UTC).replace(microsecond=0)


def _read_scheduler_config(path: str) -> dict[str, Any]:
    """The ``KubeSchedulerConfiguration`` document in ``path`` (YAML or JSON)."""
    from ruamel.yaml import YAML, YAMLError

    from kbatch.apiserver.go_json_syntax import is_json_buffer

    try:
        text = Path(path).read_text()
    except OSError as err:
        raise UserError(f"--scheduler-config {path}: {err.strerror}") from None
    if is_json_buffer(text):
        doc = _json_scheduler_config(text)
    else:
        try:
            doc = YAML(typ="safe").load(text)
        except YAMLError as err:
            raise UserError(f"--scheduler-config {path}: not YAML: {err}") from None
    if not isinstance(doc, dict):
        raise UserError(f"--scheduler-config {path}: expected a KubeSchedulerConfiguration object")
    return json.loads(json.dumps(doc))  # plain JSON values (recorded in the image header)


def _json_scheduler_config(text: str) -> Any:
    """A ``--scheduler-config`` whose first non-blank byte is ``{``: JSON to kube-scheduler's decoder
    (apimachinery ``IsJSONBuffer``), read as written, so a number is judged by its literal (``3.0``
    is no ``int32``, where YAML's ``3.0`` reaches the decoder as ``3``). The literals are gone once
    the document is recorded, so the decoding, nested plugin args too, is checked here; a syntax
    error is the serializer's (``SimpleMetaFactory.Interpret``)."""
    from kbatch.apiserver.go_json_syntax import GoSyntaxError, interpret_json
    from kbatch.controllers.scheduler import decode_nested_objects, parse_config, plugin_registry

    try:
        doc = interpret_json(text)
    except GoSyntaxError as err:
        raise UserError(str(err)) from None
    if isinstance(doc, dict):
        decode_nested_objects(parse_config(doc), plugin_registry())
    return doc


class StateDir:
    """The files of one local state directory."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @property
    def image(self) -> Path:
        return self.path / IMAGE

    @property
    def legacy_snapshot(self) -> Path:
        return self.path / LEGACY_SNAPSHOT

    @property
    def trace(self) -> Path:
        return self.path / TRACE

    @property
    def rotated_trace(self) -> Path:
        return self.path / "trace.1.jsonl"

    @property
    def server_file(self) -> Path:
        """Written by ``kbatch serve`` while it holds the state: the URL it listens on."""
        return self.path / "server"

    def served_at(self) -> str:
        try:
            return self.server_file.read_text().strip()
        except OSError:
            return ""

    @contextmanager
    def locked(self) -> Iterator[StateDir]:
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise UserError(f"cannot create state directory {self.path}: {err.strerror}") from None
        with open(self.path / ".lock", "a+") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                served = self.served_at()
                if served:  # a server holds the state for as long as it runs: waiting would hang
                    raise UserError(f"the state in {self.path} is being served by kbatch serve at {served}; "
                                    f"use --server {served} (or KBATCH_SERVER)") from None
                fcntl.flock(lock, fcntl.LOCK_EX)  # another command: wait for it to finish
            try:
                yield self
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    # -- the control plane ---------------------------------------------------------------------------
    def load(self, opts: GlobalOptions, clock: str | None = None) -> tuple[Any, StateConfig]:
        """The control plane of this directory and its configuration (the options a command gave
        applied; a different value restarts it, see the module docstring)."""
        from kbatch.runtime.image import ImageError, load_image, refreeze

        if self.image.exists():
            try:
                cp, header = load_image(self.image)
            except ImageError as err:
                raise UserError(str(err)) from None
            recorded = StateConfig.of(header.config)
            config = recorded.with_options(opts, clock)
            if config != recorded:
                cp = _restart(cp, config, recorded.differences(config))
                refreeze()  # the loaded runtime is garbage now, frozen in cycles (kbatch.runtime.image)
            # each command starts the API server again: its system-namespaces controller recreates
            # a missing kube-system, kube-public or kube-node-lease (kube-apiserver's post-start hook)
            cp.server.namespaces.ensure_system_namespaces()
            cp.server.run_post_start_hooks()  # e.g. RBAC's bootstrap roles, recreated when missing
        else:
            config = StateConfig(start=_start_option(opts.clock_start),
                                 addons=addons_option(opts)).with_options(opts, clock)
            cp = self._from_legacy(config) if self.legacy_snapshot.exists() else config.build()
        cp.trace.draining = True  # every line of this session goes to the trace file
        return cp, config

    def _from_legacy(self, config: StateConfig) -> Any:
        """An objects-only state of an earlier kbatch: its controllers start afresh over its objects."""
        from kbatch.api.errors import StatusError
        from kbatch.server.facade import restore_control_plane

        try:
            cp = restore_control_plane(self.legacy_snapshot, config=config)
        except StatusError as err:
            raise UserError(err.message) from None
        print(f"note: {self.legacy_snapshot} holds only objects (an earlier kbatch): the controllers "
              f"start afresh; from now on the whole control plane is kept in {self.image}", file=sys.stderr)
        return cp

    def save(self, cp: Any, config: StateConfig) -> None:
        """The image first (atomic), then this session's trace lines (a log: a crash between the two
        loses only the newest lines, never the state)."""
        from kbatch.runtime.image import save_image

        lines = cp.trace.drain()
        save_image(cp, self.image, config.to_dict())
        self.legacy_snapshot.unlink(missing_ok=True)
        self.append_trace(lines)

    def append_trace(self, lines: Window) -> None:
        """Append the lines of a session (kept compressed until now, written block by block)."""
        if not len(lines):
            return
        if self.trace.exists() and self.trace.stat().st_size >= ROTATE_AT:
            os.replace(self.trace, self.rotated_trace)
        with open(self.trace, "a") as out:
            for text in lines.text():
                out.write(text)

    def digest(self) -> str | None:
        """The trace digest recorded in the image (``None`` without one)."""
        from kbatch.runtime.image import ImageError, read_header

        if not self.image.exists():
            return None
        try:
            return read_header(self.image).digest
        except ImageError as err:
            raise UserError(str(err)) from None

    def reset(self) -> None:
        for path in (self.image, self.legacy_snapshot, self.trace, self.rotated_trace):
            path.unlink(missing_ok=True)


def _restart(cp: Any, config: StateConfig, changed: list[str]) -> Any:
    """The control plane restarted with ``config``: same store (objects, revisions), clock and trace
    digest; a fresh runtime (module docstring)."""
    from kbatch.server.facade import session_seed

    store, start, digest = cp.store, cp.now(), cp.trace.digest_state()
    cp.close()
    fresh = config.build(store=store, start=start if config.clock == "virtual" else None,
                         seed=session_seed(config.seed, store.revision))
    fresh.trace.continue_from(digest)
    print(f"note: {', '.join(changed)} changed: the control plane restarts (objects and time are kept; "
          "timers, queues and caches start afresh, as after restarting the components)", file=sys.stderr)
    return fresh
