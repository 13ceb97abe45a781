"""Upstream's volume-matching tables, through the API with the binder running.

Source: kubernetes ``pkg/controller/volume/persistentvolume/index_test.go`` (the stored copy is an
older revision; the rows are unchanged at master, where ``findMatchingVolume`` moved to
component-helpers ``storage/volume/pv_helpers.go`` ``FindMatchingVolume``): ``TestMatchVolume``
(every scenario), ``TestMatchingWithBoundVolumes``, ``TestFindingVolumeWithDifferentAccessModes``
and ``TestFindingPreboundVolumes`` (each step a case). Volumes are created first and made
Available by the binder, then the claim; the volume the claim binds to is upstream's match.
Upstream matches by uid; kbatch names each volume after upstream's uid. Volume sources upstream
uses that kbatch does not model (GCE PD, Glusterfs, EBS) are ``hostPath``/``nfs`` here: matching
never looks at the source. A volume "pretending to be bound" (``claimRef`` with a uid only) names a
claim that does not exist, so the binder releases it: it is not Available, as upstream's intent.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import PersistentVolumeClaim

RWO, ROX, RWX = "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany"
BETA_CLASS = "volume.beta.kubernetes.io/storage-class"
TAKEN = {"uid": "abc123", "name": "someone", "namespace": "elsewhere"}


def pv(name: str, size: str, modes: list[str], *, labels: dict[str, str] | None = None,
       cls: str | None = None, claim_ref: dict[str, str] | None = None, nfs: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {"capacity": {"storage": size}, "accessModes": modes}
    spec.update({"nfs": {"server": "nfs.example.com", "path": "/" + name}} if nfs
                else {"hostPath": {"path": "/data/" + name}})
    if claim_ref is not None:
        spec["claimRef"] = {"kind": "PersistentVolumeClaim", "apiVersion": "v1", **claim_ref}
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name, "labels": labels, "annotations": {BETA_CLASS: cls} if cls else None},
            "spec": spec}


def claim(size: str, modes: list[str] | None = None, *, selector: dict[str, str] | None = None,
          cls: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"accessModes": modes or [ROX, RWO], "resources": {"requests": {"storage": size}}}
    if selector:
        spec["selector"] = {"matchLabels": selector}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "claim01", "namespace": "default",
                         "annotations": {BETA_CLASS: cls} if cls else None}, "spec": spec}


def bound_to(volumes: list[dict[str, Any]], claim_manifest: dict[str, Any]) -> str:
    cp = ControlPlane(seed=1, addons="")  # upstream's claims keep a nil class: no default class given
    cp.apply(volumes)
    cp.apply([claim_manifest])
    return cp.client.get(PersistentVolumeClaim, "claim01", "default").spec.volume_name or ""


def create_test_volumes() -> list[dict[str, Any]]:
    """``createTestVolumes`` (deliberately out of order), each named after upstream's uid."""
    return [
        pv("gce-pd-10", "10G", [RWO, ROX]),
        pv("gce-pd-20", "20G", [RWO, ROX], claim_ref=TAKEN),
        pv("nfs-5", "5G", [RWO, ROX, RWX], nfs=True),
        pv("gce-pd-1", "1G", [RWO, ROX], claim_ref=TAKEN),
        pv("nfs-10", "10G", [RWO, ROX, RWX], nfs=True),
        pv("gce-pd-5", "5G", [RWO, ROX]),
        pv("nfs-1", "1G", [RWO, ROX, RWX], nfs=True),
        pv("gce-pd-2", "20000G", [RWO], labels={"should-exist": "true"}),
        pv("gce-pd-silver1", "10000G", [RWO], labels={"should-exist": "true"}, cls="silver"),
        pv("gce-pd-silver2", "100G", [RWO], cls="silver"),
        pv("gce-pd-gold", "50G", [RWO], cls="gold"),
    ]


MATCH_VOLUME = [
    ("successful-match-gce-10", "gce-pd-10", claim("8G")),
    ("successful-match-nfs-5", "nfs-5", claim("5G", [ROX, RWO, RWX])),
    ("successful-skip-1g-bound-volume", "gce-pd-5", claim("1G")),
    ("successful-no-match", "", claim("999G")),
    ("successful-no-match-due-to-label", "", claim("999G", selector={"should-not-exist": "true"})),
    ("successful-no-match-due-to-size-constraint-with-label-selector", "",
     claim("20000G", [ROX, RWO], selector={"should-exist": "true"})),
    ("successful-match-due-with-constraint-and-label-selector", "gce-pd-2",
     claim("20000G", [RWO], selector={"should-exist": "true"})),
    ("successful-match-with-class", "gce-pd-silver1",
     claim("1G", [RWO], selector={"should-exist": "true"}, cls="silver")),
    ("successful-match-with-class-and-labels", "gce-pd-silver2", claim("1G", [RWO], cls="silver")),
]


@pytest.mark.parametrize(("expected", "claim_manifest"), [row[1:] for row in MATCH_VOLUME],
                         ids=[row[0] for row in MATCH_VOLUME])
def test_match_volume(expected: str, claim_manifest: dict[str, Any]) -> None:
    """index_test.go ``TestMatchVolume``."""
    assert bound_to(create_test_volumes(), claim_manifest) == expected


def test_matching_with_bound_volumes() -> None:
    """``TestMatchingWithBoundVolumes``: of two equal volumes, the one not bound."""
    volumes = [pv("gce001", "1G", [RWO, ROX], claim_ref=TAKEN), pv("gce002", "1G", [RWO, ROX])]
    assert bound_to(volumes, claim("1G")) == "gce002"


def _modes_volumes(taken: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """``TestFindingVolumeWithDifferentAccessModes``'s gce (RWO+ROX), ebs (RWO), nfs (all three);
    ``taken`` ones get an empty claimRef (upstream ``&v1.ObjectReference{}``)."""
    empty = {"name": "other", "namespace": "default"}
    return [pv("gce", "10G", [RWO, ROX], claim_ref=empty if "gce" in taken else None),
            pv("ebs", "10G", [RWO], claim_ref=empty if "ebs" in taken else None),
            pv("nfs", "10G", [RWO, ROX, RWX], nfs=True)]


DIFFERENT_MODES = [
    ("exact RWO match", (), [RWO], "ebs"),
    ("exact RWO+ROX match", (), [RWO, ROX], "gce"),
    ("order of the requested modes should not matter", (), [RWX, RWO, ROX], "nfs"),
    ("fewer modes requested should still match", (), [RWX], "nfs"),
    ("pretend the exact match is bound: the next level up of modes", ("ebs",), [RWO], "gce"),
    ("continue up the levels of modes", ("ebs", "gce"), [RWO], "nfs"),
    ("partial mode request", ("ebs",), [ROX], "gce"),
]


@pytest.mark.parametrize(("taken", "modes", "expected"), [row[1:] for row in DIFFERENT_MODES],
                         ids=[row[0] for row in DIFFERENT_MODES])
def test_finding_volume_with_different_access_modes(taken: tuple[str, ...], modes: list[str],
                                                    expected: str) -> None:
    """``TestFindingVolumeWithDifferentAccessModes``: the fewest modes that cover the request win."""
    assert bound_to(_modes_volumes(taken), claim("1G", modes)) == expected


PREBOUND = [
    ("expected exact match on size", None, None, "pv1"),
    ("the exact match pre-bound elsewhere: the next size up", "pv1", {"name": "foo", "namespace": "bar"},
     "pv5"),
    ("the largest volume pre-bound to the claim", "pv8", "claim", "pv8"),
    ("a too small volume pre-bound to the claim: the exact match", "pvbadsize", "claim", "pv1"),
    ("a volume without the access mode pre-bound to the claim: the exact match", "pvbadmode", "claim", "pv1"),
]


@pytest.mark.parametrize(("prebound", "ref", "expected"), [row[1:] for row in PREBOUND],
                         ids=[row[0] for row in PREBOUND])
def test_finding_prebound_volumes(prebound: str | None, ref: Any, expected: str) -> None:
    """``TestFindingPreboundVolumes`` (``testVolume``: hostPath, RWO), one step per case."""
    claim_ref = {"name": "claim01", "namespace": "default"} if ref == "claim" else ref
    sizes = {"pv1": "1Gi", "pv5": "5Gi", "pv8": "8Gi", "pvbadsize": "1Mi", "pvbadmode": "1Gi"}
    volumes = [pv(name, size, [ROX] if name == "pvbadmode" else [RWO],
                  claim_ref=claim_ref if name == prebound else None) for name, size in sizes.items()]
    assert bound_to(volumes, claim("1Gi", [RWO])) == expected
