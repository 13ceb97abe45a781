"""A simulated container's files: its mounted volumes, and what its script writes.

A container sees (kubernetes/kubernetes ``pkg/kubelet/kubelet_pods.go`` ``makeMounts``; the volume
plugins under ``pkg/volume``):

* each ``volumeMount`` at its ``mountPath``: a :class:`Mount` whose ``tree`` maps paths relative to
  the mount point to file contents (``""``: the mount point is itself a file, a ``subPath`` naming
  a file). ConfigMap, Secret, downward API and projected volumes are read-only (the kubelet mounts
  them so since 1.10, kubernetes#58720); an ``emptyDir`` is writable and its tree is shared by
  every container of the pod that mounts it;
* its own writable layer everywhere else (``/tmp``, ``/data``…): what the script writes there
  lives as long as this run of the container (a restart starts from the image again);
* the directories every image has (:data:`IMAGE_DIRS`) and ``/dev/null``.

Paths are POSIX: relative ones resolve against the working directory the caller passes, ``.``
and ``..`` are folded. A directory made in a writable tree is kept there as ``"dir/"`` (so the
containers sharing an emptyDir share it too). A write that changes nothing keeps
:attr:`FileSystem.version`, so a loop that rewrites the same file is seen to repeat
(:mod:`kbatch.sim.shell_run`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field

__all__ = ["IMAGE_DIRS", "FileSystem", "Mount", "SubTree", "resolve"]

IMAGE_DIRS = frozenset({"/", "/bin", "/dev", "/etc", "/home", "/opt", "/proc", "/root", "/run", "/sbin",
                        "/srv", "/sys", "/tmp", "/usr", "/usr/bin", "/usr/local", "/usr/local/bin", "/var",
                        "/var/run", "/var/tmp", "/var/log", "/mnt"})
"""Directories present in the common base images (busybox, alpine, debian, ubuntu)."""
_NULL = "/dev/null"


@dataclass(slots=True)
class Mount:
    """One ``volumeMount``: ``tree`` maps relative paths to contents (mutable when ``writable``)."""

    path: str
    tree: MutableMapping[str, str] = field(default_factory=dict)
    writable: bool = False


class SubTree(MutableMapping[str, str]):
    """The part of a volume's tree under ``prefix``, as a tree of its own (a ``subPath`` mount of a
    writable volume: writes land in the volume the other containers see)."""

    def __init__(self, tree: MutableMapping[str, str], prefix: str) -> None:
        self.tree, self.prefix = tree, prefix.strip("/")

    def _key(self, rel: str) -> str:
        return f"{self.prefix}/{rel}" if rel else self.prefix

    def __getitem__(self, rel: str) -> str:
        return self.tree[self._key(rel)]

    def __setitem__(self, rel: str, value: str) -> None:
        self.tree[self._key(rel)] = value

    def __delitem__(self, rel: str) -> None:
        del self.tree[self._key(rel)]

    def __iter__(self) -> Iterator[str]:
        start = self.prefix + "/"
        return (k[len(start):] for k in list(self.tree) if k.startswith(start))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class FileSystem:
    """The files one run of a container sees; mounts win over the writable layer beneath them."""

    def __init__(self, mounts: Iterable[Mount] = ()) -> None:
        self.mounts = sorted(mounts, key=lambda m: len(m.path), reverse=True)  # longest path first
        self.layer = Mount("/", {}, writable=True)
        self.version = 0

    def _locate(self, path: str) -> tuple[Mount, str]:
        for mount in self.mounts:
            if path == mount.path:
                return mount, ""
            if path.startswith(mount.path.rstrip("/") + "/"):
                return mount, path[len(mount.path.rstrip("/")) + 1:]
        return self.layer, path.lstrip("/")

    def read(self, path: str) -> str | None:
        """The content of the regular file at ``path`` (absolute, normalized), or None."""
        if path == _NULL:
            return ""
        mount, rel = self._locate(path)
        return mount.tree.get(rel)

    def is_dir(self, path: str) -> bool:
        if path in IMAGE_DIRS:
            return True
        if any(m.path == path and "" not in m.tree for m in self.mounts):
            return True
        if any(m.path.startswith(path.rstrip("/") + "/") for m in self.mounts):
            return True
        mount, rel = self._locate(path)
        prefix = rel + "/" if rel else ""
        return any(key.startswith(prefix) and key != "" for key in mount.tree)

    def exists(self, path: str) -> bool:
        return self.read(path) is not None or self.is_dir(path)

    def writable(self, path: str) -> bool:
        return self._locate(path)[0].writable

    def listdir(self, path: str) -> list[str] | None:
        """The names in the directory at ``path``, sorted; None when it is not one. Names starting
        with ``.`` are the kubelet's (``..data``) and are not modelled, as ``ls`` hides them."""
        if not self.is_dir(path):
            return None
        names: set[str] = set()
        base = path.rstrip("/") + "/"
        mount, rel = self._locate(path)
        prefix = rel + "/" if rel else ""
        names.update(key[len(prefix):].split("/")[0] for key in mount.tree if key.startswith(prefix) and key)
        for other in (*self.mounts, *(Mount(d) for d in IMAGE_DIRS)):
            if other.path.startswith(base) and other.path != path:
                names.add(other.path[len(base):].split("/")[0])
        return sorted(n for n in names if n)

    def write(self, path: str, text: str, append: bool = False) -> str | None:
        """Write (or append) ``text``; the shell's error message when it cannot, else None."""
        if path == _NULL:
            return None
        if self.is_dir(path):
            return f"can't create {path}: Is a directory"
        mount, rel = self._locate(path)
        if not mount.writable:
            return f"can't create {path}: Read-only file system"
        if not self.is_dir(posixpath.dirname(path)):
            return f"can't create {path}: nonexistent directory"
        new = (mount.tree.get(rel, "") + text) if append else text
        if mount.tree.get(rel) != new:
            mount.tree[rel] = new
            self.version += 1
        return None

    def make_dir(self, path: str) -> str | None:
        """Make the directory (nothing when there is one); the error message when it cannot."""
        if self.is_dir(path):
            return None
        mount, rel = self._locate(path)
        if not mount.writable:
            return f"can't create directory '{path}': Read-only file system"
        if self.read(path) is not None:
            return f"can't create directory '{path}': File exists"
        mount.tree[rel + "/"] = ""  # a directory: kept in the tree, so a shared volume shares it
        self.version += 1
        return None

    def remove(self, path: str) -> str | None:
        mount, rel = self._locate(path)
        if rel not in mount.tree:
            return f"can't remove '{path}': No such file or directory"
        if not mount.writable:
            return f"can't remove '{path}': Read-only file system"
        del mount.tree[rel]
        self.version += 1
        return None


def resolve(cwd: str, path: str) -> str:
    """``path`` made absolute against ``cwd`` and normalized (POSIX ``//`` folded to ``/``)."""
    joined = posixpath.normpath(posixpath.join(cwd, path))
    return "/" + joined.lstrip("/")
