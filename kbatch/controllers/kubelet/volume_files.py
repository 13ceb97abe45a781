"""The files a container's volume mounts show its script, as the kubelet's volume plugins write them.

Built only when a script first touches a file (:data:`kbatch.sim.command.FilesFactory`), from the
objects as they are then (the kubelet reads them when it sets the volume up). Upstream, semantics
only (kubernetes/kubernetes 1.37):

* ``pkg/volume/configmap`` / ``pkg/volume/secret`` ``MakePayload``: every key a file named after it
  (ConfigMap ``data`` and ``binaryData``; a Secret's ``data`` decoded), or with ``items`` only the
  listed keys, each at its ``path`` (which may hold directories); a missing object or key under
  ``optional: true`` is left out (without ``optional`` the pod never starts:
  :func:`~.references.mount_errors`);
* ``pkg/volume/downwardapi`` ``CollectData``: each item's ``fieldRef`` value; ``metadata.labels``
  and ``metadata.annotations`` as ``pkg/fieldpath`` ``FormatMap`` writes them (``key="value"``
  lines sorted by key, the value Go-quoted, no final newline);
* ``pkg/volume/projected``: the sources' files together; a ``serviceAccountToken`` source is a file
  at its ``path`` holding the token the kubelet's token manager gives (:mod:`.tokens`: a
  TokenRequest bound to the pod, asked when the file is first read and refreshed by upstream's
  rule; no file without a token source or when the request fails); the ServiceAccount admission plugin's
  ``kube-api-access-*`` volume gives ``token``, ``ca.crt`` (the ``kube-root-ca.crt`` ConfigMap)
  and ``namespace`` at ``/var/run/secrets/kubernetes.io/serviceaccount``;
* ``pkg/kubelet/kubelet_pods.go`` ``makeMounts``: ``subPath`` mounts that part of the volume (a
  file or a directory), ``subPathExpr`` too after ``$(VAR)`` expansion from the container's env;
  ``readOnly`` makes a writable volume read-only for that container;
* ``emptyDir`` (and volumes whose contents kbatch cannot know: PVCs, hostPath, CSI, ephemeral,
  image) start empty and are writable; one tree per volume is shared by the pod's containers.
  What an init container (or a sidecar) writes there is what the containers after it read: the
  earlier init containers' scripts are run again, in order, to find it (pure, so the kubelet
  and ``kubectl logs`` agree without keeping files between runs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from kbatch.api.go_quote import go_quote
from kbatch.controllers.kubelet.references import CONFIG_MAP, SECRET, Lookup, decode
from kbatch.sim.command import FilesFactory, expand_k8s_refs, interpret
from kbatch.sim.files import FileSystem, Mount, SubTree

__all__ = ["EnvOf", "TokenSource", "after_run", "files_factory"]

EnvOf = Callable[[Any], dict[str, str]]  # container -> its environment
TokenSource = Callable[[Any, Any], "str | None"]  # (pod, serviceAccountToken projection) -> the token
Tree = MutableMapping[str, str]
_READ_ONLY_KINDS = ("config_map", "secret", "downward_api", "projected")


def files_factory(pod: Any, container: Any, lookup: Lookup | None, env_of: EnvOf,
                  tokens: TokenSource | None = None, earlier_runs: int = 0) -> FilesFactory:
    """The factory of ``container``'s file view (nothing is read until it is called; a token file
    not until a command reads it). ``earlier_runs``: the container's own runs before this one (its
    restart count): an emptyDir lives with the pod, so each of them is run again over the shared
    volumes first, each with a fresh writable layer, as a restarted container starts from its image."""

    def build() -> FileSystem:
        shared = _shared_trees(pod)
        inits = list(pod.spec.init_containers or ())
        before = inits[:next((i for i, c in enumerate(inits) if c.name == container.name), len(inits))]
        for earlier in [*before, *[container] * earlier_runs]:
            if any(m.name in shared for m in earlier.volume_mounts or ()):
                argv = [*(earlier.command or ()), *(earlier.args or ())]
                env = env_of(earlier)
                interpret(argv, env, 0.0, _viewer(pod, earlier, shared, lookup, env, tokens))
        return _view(pod, container, shared, lookup, env_of(container), tokens)

    return build


def after_run(pod: Any, container: Any, lookup: Lookup | None, env_of: EnvOf,
              tokens: TokenSource | None = None) -> FilesFactory:
    """The factory of ``container``'s files as its own command leaves them (what an ``exec``
    probe, run in the container, finds)."""
    build = files_factory(pod, container, lookup, env_of, tokens)

    def ran() -> FileSystem:
        view = build()
        interpret([*(container.command or ()), *(container.args or ())], env_of(container), 0.0, lambda: view)
        return view

    return ran


def _viewer(pod: Any, container: Any, shared: dict[str, MutableMapping[str, str]],
            lookup: Lookup | None, env: dict[str, str], tokens: TokenSource | None) -> FilesFactory:
    return lambda: _view(pod, container, shared, lookup, env, tokens)


def _shared_trees(pod: Any) -> dict[str, MutableMapping[str, str]]:
    return {v.name: {} for v in pod.spec.volumes or ()
            if not any(getattr(v, kind) is not None for kind in _READ_ONLY_KINDS)}


def _view(pod: Any, container: Any, shared: dict[str, MutableMapping[str, str]],
          lookup: Lookup | None, env: dict[str, str], tokens: TokenSource | None) -> FileSystem:
    volumes = {v.name: v for v in pod.spec.volumes or ()}
    mounts = []
    for mount in container.volume_mounts or ():
        volume = volumes.get(mount.name)
        if volume is None:
            continue
        writable = mount.name in shared and not mount.read_only
        tree = shared[mount.name] if mount.name in shared else _read_only_tree(pod, volume, lookup, tokens)
        sub = (mount.sub_path or expand_k8s_refs(mount.sub_path_expr or "", env)).strip("/")
        if sub and sub in tree:  # a subPath naming a file: the mount point is that file
            tree = {"": tree[sub]} if not writable else SubTree(tree, sub)
        elif sub:
            tree = SubTree(tree, sub)
        mounts.append(Mount(mount.mount_path.rstrip("/") or "/", tree, writable))
    return FileSystem(mounts)


def _read_only_tree(pod: Any, volume: Any, lookup: Lookup | None, tokens: TokenSource | None) -> Tree:
    namespace = pod.metadata.namespace or ""
    if volume.config_map is not None:
        return _object_tree(CONFIG_MAP, volume.config_map.name, volume.config_map.items, namespace, lookup)
    if volume.secret is not None:
        return _object_tree(SECRET, volume.secret.secret_name, volume.secret.items, namespace, lookup)
    if volume.downward_api is not None:
        return _downward_tree(pod, volume.downward_api.items)
    tree = _Projected()
    for source in volume.projected.sources or () if volume.projected is not None else ():
        if source.config_map is not None:
            tree.update_files(_object_tree(CONFIG_MAP, source.config_map.name, source.config_map.items,
                                           namespace, lookup))
        elif source.secret is not None:
            tree.update_files(_object_tree(SECRET, source.secret.name, source.secret.items, namespace,
                                           lookup))
        elif source.downward_api is not None:
            tree.update_files(_downward_tree(pod, source.downward_api.items))
        elif source.service_account_token is not None and tokens is not None:
            projection = source.service_account_token
            tree.later(projection.path, _token_of(tokens, pod, projection))
    return tree


def _token_of(tokens: TokenSource, pod: Any, projection: Any) -> Callable[[], str | None]:
    return lambda: tokens(pod, projection)


class _Projected(MutableMapping[str, str]):
    """A projected volume's files, some of them (the tokens) made when first read: listing the
    volume asks for none, reading ``token`` asks for that one."""

    def __init__(self) -> None:
        self._files: dict[str, str] = {}
        self._later: dict[str, Callable[[], str | None]] = {}

    def later(self, path: str, make: Callable[[], str | None]) -> None:
        self._files.pop(path, None)
        self._later[path] = make

    def update_files(self, files: Tree) -> None:
        for path in files:
            self._later.pop(path, None)
        self._files.update(files)

    def __getitem__(self, path: str) -> str:
        make = self._later.pop(path, None)
        if make is not None:
            value = make()
            if value is None:
                raise KeyError(path)
            self._files[path] = value
        return self._files[path]

    def __setitem__(self, path: str, value: str) -> None:
        self._later.pop(path, None)
        self._files[path] = value

    def __delitem__(self, path: str) -> None:
        if self._later.pop(path, None) is None:
            del self._files[path]

    def __contains__(self, path: object) -> bool:  # without making the file
        return path in self._files or path in self._later

    def __iter__(self) -> Iterator[str]:
        yield from self._files
        yield from self._later

    def __len__(self) -> int:
        return len(self._files) + len(self._later)


def _object_tree(kind: str, name: str | None, items: Any, namespace: str, lookup: Lookup | None) -> Tree:
    obj = lookup(kind, namespace, name or "") if lookup is not None else None
    if obj is None:
        return {}
    values = _file_values(kind, obj)
    if not items:
        return values
    return {item.path: values[item.key] for item in items if item.key in values}


def _file_values(kind: str, obj: Any) -> Tree:
    if kind == SECRET:
        return {k: decode(v) for k, v in (obj.data or {}).items()}
    out = {k: decode(v) for k, v in (obj.binary_data or {}).items()}
    out.update(obj.data or {})
    return out


def _downward_tree(pod: Any, items: Any) -> Tree:
    from kbatch.controllers.kubelet.behaviour import field_ref_value

    tree: Tree = {}
    meta = pod.metadata
    for item in items or ():
        if item.field_ref is None:
            continue  # resourceFieldRef: not modelled (docs/simulation.md)
        path = item.field_ref.field_path
        if path in ("metadata.labels", "metadata.annotations"):
            labels = path == "metadata.labels"
            tree[item.path] = format_map((meta.labels if labels else meta.annotations) or {})
        else:
            value = field_ref_value(pod, path)
            if value is not None:
                tree[item.path] = value
    return tree


def format_map(values: dict[str, str]) -> str:
    """``pkg/fieldpath`` ``FormatMap``: ``key="value"`` lines, keys sorted, Go ``%q`` values."""
    return "\n".join(f"{key}={go_quote(values[key])}" for key in sorted(values))

