"""A control plane's image: the whole running control plane in one file, to continue it in another
process exactly where it stopped.

A CLI command loads the image of its state directory, acts, settles and saves it again, so N commands
are one simulation (issue 15): whatever the runtime holds besides the objects (timers, work queues with
their delayed items and rate limiters, the scheduler's queues and back-offs, each kubelet's container
clocks, the seeded random streams, informer caches, event-correlator state, the trace's digest) is in
the image. The mechanism is Python's ``pickle`` of the :class:`~kbatch.runtime.controlplane.ControlPlane`
object graph: every runtime object is picklable by construction (no closures or lambdas in runtime
state: mappers, predicates and timers are module-level functions, bound methods or small classes;
``tests/runtime/test_image.py`` pickles a control plane running every controller), and the few objects
rebuilt from configuration say so in their ``__getstate__`` (the API server's admission chain).

File layout: a magic line, one JSON line (format, the kbatch and Python versions that wrote it, the
virtual time, the store revision, the trace digest, the configuration), then the pickle. Written to a
temporary file in the same directory, fsynced (the writeback overlapping the pickling:
``image_writer.py``), then renamed over the target, so a killed command
leaves the previous image. An image is tied to the kbatch version and the Python minor version that
wrote it: pickle refers to classes by name, so another version gets a clear error, never a half-read
control plane. An image is trusted as code is (pickle runs constructors): load only images you or
your tools wrote.

Loading moves the loaded objects out of the cyclic garbage collector's generations (``gc.freeze``):
they live for the whole command, and CPython's collector would otherwise scan millions of them
again and again while the command runs.
"""

from __future__ import annotations

import gc
import json
import os
import pickle
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbatch.runtime.image_writer import SyncingWriter
from kbatch.runtime.pickling import ImagePickler, loaded

if TYPE_CHECKING:
    from kbatch.runtime.controlplane import ControlPlane

__all__ = ["FORMAT", "MAGIC", "Header", "ImageError", "load_image", "read_header", "refreeze", "save_image"]

MAGIC = b"KBATCH-IMAGE\n"
FORMAT = 5  # 2: the store's index as columns; built-in kinds under upstream's key prefixes; 3: its
# payloads as the store's own bytes objects, not one joined blob (store/columns.py); 4: the API server's
# held objects carry where a status write's carried fields lie (apiserver/decoded_cache.py); 5: the pickle
# holds models and unhashable slotted objects' states as columns after the root
# (pickling.py), timers and held objects as columns


class ImageError(ValueError):
    """The file is not an image this kbatch can load (with the reason and what to do)."""


@dataclass(frozen=True, slots=True)
class Header:
    format: int
    kbatch: str
    python: str
    now: str
    revision: int
    digest: str
    config: dict[str, Any]

    def to_json(self) -> bytes:
        return json.dumps({"format": self.format, "kbatch": self.kbatch, "python": self.python,
                           "now": self.now, "revision": self.revision, "digest": self.digest,
                           "config": self.config}, sort_keys=True).encode()


def _python() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def _kbatch_version() -> str:
    from kbatch import __version__

    return __version__


def save_image(cp: ControlPlane, path: str | os.PathLike[str],
               config: dict[str, Any] | None = None) -> Header:
    """Write ``cp`` to ``path`` atomically; ``config`` is what the caller built it from (recorded)."""
    try:
        digest = cp.trace.digest()
    except RuntimeError:  # ControlPlane(trace=False)
        digest = ""
    header = Header(FORMAT, _kbatch_version(), _python(), cp.now().isoformat(), cp.store.revision, digest,
                    dict(config or {}))
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}-")
    enabled = gc.isenabled()
    gc.disable()  # pickling allocates only the output; a collection meanwhile would scan everything
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC + header.to_json() + b"\n")
            writer = SyncingWriter(out)  # the disk writeback overlaps the pickling (image_writer.py)
            try:
                ImagePickler(writer, protocol=pickle.HIGHEST_PROTOCOL).dump(cp)
            except BaseException:
                writer.wait()  # no sync thread outlives a failed save
                raise
            writer.finish()
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        if enabled:
            gc.enable()
    return header


def read_header(path: str | os.PathLike[str]) -> Header:
    """The header of the image at ``path`` (reads one line)."""
    source = Path(path)
    with open(source, "rb") as f:
        return _header(source, f)


def _header(source: Path, f: Any) -> Header:
    if f.read(len(MAGIC)) != MAGIC:
        raise ImageError(f"{source} is not a kbatch control-plane image")
    try:
        raw = json.loads(f.readline())
        return Header(int(raw["format"]), str(raw["kbatch"]), str(raw["python"]), str(raw["now"]),
                      int(raw["revision"]), str(raw.get("digest", "")), dict(raw.get("config") or {}))
    except (ValueError, KeyError, TypeError):
        raise ImageError(f"{source} is not a kbatch control-plane image (bad header)") from None


def load_image(path: str | os.PathLike[str]) -> tuple[ControlPlane, Header]:
    """The control plane saved at ``path`` and its header; :class:`ImageError` when this kbatch (or
    this Python) cannot load it."""
    source = Path(path)
    with open(source, "rb") as f:
        header = _header(source, f)
        if header.format != FORMAT or header.kbatch != _kbatch_version() or header.python != _python():
            raise ImageError(
                f"{source} was written by kbatch {header.kbatch} on Python {header.python} (image format "
                f"{header.format}); this is kbatch {_kbatch_version()} on Python {_python()}: its runtime "
                "state cannot be carried over. Start afresh with `kbatch reset`, or keep the objects "
                "with `kbatch snapshot save FILE --objects-only` on the old version")
        enabled = gc.isenabled()
        gc.disable()  # unpickling creates millions of objects: no collection can free any of them
        try:
            cp = pickle.load(f)
        except Exception as err:  # a truncated or foreign file: one clear line, not a traceback
            raise ImageError(f"cannot load the image {source}: {type(err).__name__}: {err}") from None
        finally:
            loaded()
            if enabled:
                gc.enable()
    gc.freeze()  # the loaded control plane lives for the whole command (module docstring)
    return cp, header


def refreeze() -> None:
    """The loaded control plane was replaced (a restart keeps its store only): its runtime's cycles,
    frozen with it, are collected, and what lives on is frozen again. One full collection, paid
    only by a command that restarts."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
