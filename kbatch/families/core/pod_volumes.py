"""The Volumes block of ``kubectl describe pod`` (k8s.io/kubectl 1.37 ``describeVolumes``).

Each volume's name, then its source's lines for the sources batch pods use: HostPath, EmptyDir,
Secret, ConfigMap, PersistentVolumeClaim, Ephemeral (its claim template's storage class and access
modes are not printed), DownwardAPI, Projected and CSI. kubectl also knows the in-tree cloud volume
plugins (GCE PD, AWS EBS, NFS, iSCSI, …): kbatch prints ``<unknown>`` for those, as kubectl does for a
source it does not know.
"""

from __future__ import annotations

from typing import Any

__all__ = ["volume_lines"]

Obj = dict[str, Any]


def _optional(source: Obj) -> str:
    return "true" if source.get("optional") else "false"


def _projected(source: Obj) -> list[str]:
    lines = ["    Type:\tProjected (a volume that contains injected data from multiple sources)"]
    for part in source.get("sources") or ():
        if part.get("secret") is not None:
            lines += [
                f"    SecretName:\t{part['secret'].get('name', '')}",
                f"    Optional:\t{_optional(part['secret'])}",
            ]
        elif part.get("downwardAPI") is not None:
            lines.append("    DownwardAPI:\ttrue")
        elif part.get("configMap") is not None:
            lines += [
                f"    ConfigMapName:\t{part['configMap'].get('name', '')}",
                f"    Optional:\t{_optional(part['configMap'])}",
            ]
        elif part.get("serviceAccountToken") is not None:
            lines.append(
                f"    TokenExpirationSeconds:\t{part['serviceAccountToken'].get('expirationSeconds', 0)}"
            )
    return lines


def _downward(source: Obj) -> list[str]:
    lines = ["    Type:\tDownwardAPI (a volume populated by information about the pod)", "    Items:"]
    for item in source.get("items") or ():
        for key, field in (("fieldRef", "fieldPath"), ("resourceFieldRef", "resource")):
            if item.get(key) is not None:
                lines.append(f"      {item[key].get(field, '')} -> {item.get('path', '')}")
    return lines


def _csi(source: Obj) -> list[str]:
    attributes = source.get("volumeAttributes") or {}
    lines = [
        "    Type:\tCSI (a Container Storage Interface (CSI) volume source)",
        f"    Driver:\t{source.get('driver', '')}",
        f"    FSType:\t{source.get('fsType', '')}",
        f"    ReadOnly:\t{'true' if source.get('readOnly') else 'false'}",
    ]
    if not attributes:
        return [*lines, "    VolumeAttributes:\t<none>"]
    # printCSIPersistentVolumeAttributesMultilineIndent writes every part at LEVEL_2 (four spaces),
    # the separators included: "    VolumeAttributes:\t    k=v", then "        \t    k=v"
    pairs = [f"{k}={attributes[k]}" for k in sorted(attributes)]
    pairs = [p[:140] + "..." if len(p) > 140 else p for p in pairs]
    return [*lines, f"    VolumeAttributes:\t    {pairs[0]}", *(f"        \t    {p}" for p in pairs[1:])]


def _source_lines(volume: Obj) -> list[str]:
    if volume.get("hostPath") is not None:
        source = volume["hostPath"]
        return [
            "    Type:\tHostPath (bare host directory volume)",
            f"    Path:\t{source.get('path', '')}",
            f"    HostPathType:\t{source.get('type') or '<none>'}",
        ]
    if volume.get("emptyDir") is not None:
        source = volume["emptyDir"]
        limit = source.get("sizeLimit")
        return [
            "    Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)",
            f"    Medium:\t{source.get('medium', '')}",
            f"    SizeLimit:\t{limit if limit and str(limit) not in ('0', '0m') else '<unset>'}",
        ]
    if volume.get("secret") is not None:
        source = volume["secret"]
        return [
            "    Type:\tSecret (a volume populated by a Secret)",
            f"    SecretName:\t{source.get('secretName', '')}",
            f"    Optional:\t{_optional(source)}",
        ]
    if volume.get("configMap") is not None:
        source = volume["configMap"]
        return [
            "    Type:\tConfigMap (a volume populated by a ConfigMap)",
            f"    Name:\t{source.get('name', '')}",
            f"    Optional:\t{_optional(source)}",
        ]
    if volume.get("persistentVolumeClaim") is not None:
        source = volume["persistentVolumeClaim"]
        return [
            "    Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
            f"    ClaimName:\t{source.get('claimName', '')}",
            f"    ReadOnly:\t{'true' if source.get('readOnly') else 'false'}",
        ]
    if volume.get("ephemeral") is not None:
        return [
            "    Type:\tEphemeralVolume (an inline specification for a volume that gets created and deleted "
            "with the pod)"
        ]
    if volume.get("downwardAPI") is not None:
        return _downward(volume["downwardAPI"])
    if volume.get("projected") is not None:
        return _projected(volume["projected"])
    if volume.get("csi") is not None:
        return _csi(volume["csi"])
    return ["  <unknown>"]


def volume_lines(volumes: list[Obj], space: str = "") -> list[str]:
    """``describeVolumes``; ``space`` indents the title and, by one more space, each name."""
    if not volumes:
        return [f"{space}Volumes:\t<none>"]
    lines = [f"{space}Volumes:"]
    for volume in volumes:
        lines += [f"  {' ' if space else ''}{volume.get('name', '')}:", *_source_lines(volume)]
    return lines
