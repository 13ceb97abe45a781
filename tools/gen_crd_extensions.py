"""Generate ``kbatch/server/crd_extensions.json``: the list and map extensions the upstream CRDs declare.

A CRD's ``openAPIV3Schema`` may carry ``x-kubernetes-list-type``, ``x-kubernetes-list-map-keys`` and
``x-kubernetes-map-type`` on any node (controller-gen writes them from the Go types' ``+listType``,
``+listMapKey``, ``+mapType``/``+structType`` markers), and kube-apiextensions-apiserver publishes
the schema with them (``pkg/controller/openapi/builder/builder.go``); the patch extensions
(``x-kubernetes-patch-*``) are not allowed in a CRD's schema, so a custom resource has none.

This tool reads the CRD YAMLs kbatch serves in place of (the releases ``tests/server/data/
crd_field_paths.txt`` names) and writes, per ``group/version/Kind`` and field path (``.``-joined
property names, ``[]`` for a list's item, ``{}`` for a map's value; ``""`` for the root), the
extensions that node carries. :mod:`kbatch.server.crd_openapi` puts them into the published schemas.

Usage: ``python tools/gen_crd_extensions.py MIRROR_DIR`` (the directory holding the git mirrors,
``owner+name/repo``; the commit of each source is recorded in the output).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

OUT = Path(__file__).resolve().parent.parent / "kbatch" / "server" / "crd_extensions.json"
# (mirror, ref, path or directory of CRD YAMLs, file name prefix)
SOURCES = (
    ("kubernetes-sigs+jobset", "v0.12.0", "config/components/crd/bases/", "jobset.x-k8s.io_"),
    ("kubernetes-sigs+kueue", "v0.19.2", "config/components/crd/bases/", "kueue.x-k8s.io_"),
    ("kubernetes-sigs+scheduler-plugins", "HEAD", "config/crd/bases/", "scheduling.x-k8s.io_podgroups"),
    ("kubernetes+autoscaler", "HEAD", "cluster-autoscaler/apis/config/crd/",
     "autoscaling.x-k8s.io_provisioningrequests"),
)
EXTENSIONS = ("x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True).stdout


def _walk(node: Any, path: str, out: dict[str, dict[str, Any]]) -> None:
    if not isinstance(node, dict):
        return
    found = {k: node[k] for k in EXTENSIONS if k in node}
    if found:
        out[path] = found
    for name, child in sorted((node.get("properties") or {}).items()):
        _walk(child, f"{path}.{name}" if path else name, out)
    if isinstance(node.get("items"), dict):
        _walk(node["items"], path + "[]", out)
    if isinstance(node.get("additionalProperties"), dict):
        _walk(node["additionalProperties"], path + "{}", out)


def _crd(document: dict[str, Any], out: dict[str, dict[str, dict[str, Any]]]) -> None:
    spec = document["spec"]
    for version in spec["versions"]:
        if not version.get("served", True):
            continue
        paths: dict[str, dict[str, Any]] = {}
        _walk(version["schema"]["openAPIV3Schema"], "", paths)
        if paths:
            out[f"{spec['group']}/{version['name']}/{spec['names']['kind']}"] = paths


def missing(mirrors: Path) -> list[str]:
    """The sources whose mirror or ref is absent under ``mirrors`` (nothing to generate from)."""
    gone = []
    for mirror, ref, _directory, _prefix in SOURCES:
        found = subprocess.run(["git", "-C", str(mirrors / mirror / "repo"), "rev-parse", "--verify",
                                "--quiet", f"{ref}^{{commit}}"], capture_output=True)
        if found.returncode != 0:
            gone.append(f"{mirror.replace('+', '/')}@{ref}")
    return gone


def generate(mirrors: Path) -> dict[str, Any]:
    kinds: dict[str, dict[str, dict[str, Any]]] = {}
    sources: dict[str, str] = {}
    for mirror, ref, directory, prefix in SOURCES:
        repo = mirrors / mirror / "repo"
        sources[mirror.replace("+", "/")] = _git(repo, "rev-parse", f"{ref}^{{commit}}").strip()
        for name in sorted(_git(repo, "ls-tree", "--name-only", ref, directory).split()):
            if name.rsplit("/", 1)[-1].startswith(prefix) and name.endswith(".yaml"):
                _crd(YAML(typ="safe", pure=True).load(_git(repo, "show", f"{ref}:{name}")), kinds)
    return {"source": sources, "kinds": dict(sorted(kinds.items()))}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    table = generate(Path(argv[1]))
    OUT.write_text(json.dumps(table, indent=1) + "\n")
    print(f"wrote {OUT} ({len(table['kinds'])} kinds)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
