"""What the simulated container runtime (containerd) reports about a container's image: the
normalized ``image`` and the ``imageID`` (repo digest).

Upstream: ``convertContainerStatus`` in ``pkg/kubelet/kubelet_pods.go`` copies the CRI status'
``Image`` (the runtime's normalized reference: ``busybox`` is ``docker.io/library/busybox:latest``,
``github.com/distribution/reference`` ``ParseNormalizedNamed`` + ``TagNameOnly``) and ``ImageRef``
(``docker.io/library/busybox@sha256:…``). A container the runtime has not created has neither: its
status carries the spec's image as written and an empty ``imageID``. The simulated runtime has no
registry, so a digest is the sha256 of the normalized name. Both values depend on the image only:
every container status of one image holds the same two strings (cached here), so statuses stay
equal across pods and the held objects keep sharing them (``kbatch/api/model_intern.py``).

Not reported yet: the per-container ``containerID`` (``containerd://<64 hex>``), which makes every
status unique (docs/simulation.md, "The pod status, field by field").
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

__all__ = ["image_id", "normalize_image"]

_DEFAULT_DOMAIN = "docker.io"
_LEGACY_DOMAIN = "index.docker.io"


@lru_cache(maxsize=1024)  # a cluster runs few distinct images: parsed once each
def normalize_image(ref: str) -> str:
    """The fully qualified reference (``splitDockerDomain``: a first component with ``.`` or ``:``,
    or ``localhost``, or an upper-case letter is a registry; otherwise Docker Hub, ``library/`` for
    one-component names; no tag and no digest: ``:latest``)."""
    name, _, digest = ref.partition("@")
    tag = ""
    colon = name.rfind(":")
    if colon > name.rfind("/"):
        name, tag = name[:colon], name[colon + 1:]
    first, slash, rest = name.partition("/")
    registry = "." in first or ":" in first or first == "localhost" or first.lower() != first
    if not slash or not registry:
        domain, path = _DEFAULT_DOMAIN, name
    else:
        domain, path = (_DEFAULT_DOMAIN if first == _LEGACY_DOMAIN else first), rest
    if domain == _DEFAULT_DOMAIN and "/" not in path:
        path = "library/" + path
    out = f"{domain}/{path}"
    if tag or not digest:
        out += ":" + (tag or "latest")
    return out + ("@" + digest if digest else "")


@lru_cache(maxsize=1024)
def image_id(ref: str) -> str:
    """The repo digest the runtime reports as ``imageRef``: the reference's own digest when it has
    one, else a stable one for its name and tag."""
    normalized = normalize_image(ref)
    name, _, digest = normalized.partition("@")
    repo = name[:name.rfind(":")] if name.rfind(":") > name.rfind("/") else name
    if not digest:
        digest = "sha256:" + hashlib.sha256(name.encode()).hexdigest()
    return f"{repo}@{digest}"

