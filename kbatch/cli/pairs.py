"""``KEY=VALUE`` and ``KEY-`` arguments of ``kbatch label`` and ``kbatch annotate``, and what they do to
an object's labels or annotations: pure functions, as kubectl's (k8s.io/kubectl v0.37.0-beta.0
``pkg/cmd/label/label.go`` ``parseLabels``, ``labelFunc``, ``validateNoOverwrites``;
``pkg/cmd/annotate/annotate.go`` ``parseAnnotations``, ``validateAnnotations``, ``updateAnnotations``;
``pkg/cmd/util/helpers.go`` ``GetResourcesAndPairs``, ``ParsePairs``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kbatch.cli.errors import UserError

__all__ = ["Edit", "annotation_edit", "apply_annotations", "apply_labels", "label_edit", "split_args"]


@dataclass(frozen=True, slots=True)
class Edit:
    """What the pair arguments ask: keys to set (in the order typed) and keys to remove."""

    set: dict[str, str] = field(default_factory=dict)
    remove: tuple[str, ...] = ()

    def empty(self) -> bool:
        return not self.set and not self.remove


def _is_pair(arg: str) -> bool:
    return ("=" in arg and not arg.startswith("=")) or (arg.endswith("-") and arg != "-")


def split_args(args: list[str], pair_type: str) -> tuple[list[str], list[str]]:
    """The resource arguments and the pair arguments; every resource comes before the first pair."""
    resources: list[str] = []
    pairs: list[str] = []
    for arg in args:
        if _is_pair(arg):
            pairs.append(arg)
        elif pairs:
            raise UserError(f"all resources must be specified before {pair_type} changes: {arg}")
        else:
            resources.append(arg)
    return resources, pairs


def label_edit(pairs: list[str]) -> Edit:
    """kubectl's ``parseLabels``: a value must be a valid label value (the key is left to the server)."""
    from kbatch.api.validation import is_valid_label_value

    labels: dict[str, str] = {}
    remove: list[str] = []
    for spec in pairs:
        if "=" in spec:
            parts = spec.split("=")
            if len(parts) != 2:
                raise UserError(f"invalid label spec: {spec}")
            errs = is_valid_label_value(parts[1])
            if errs:
                raise UserError(f'invalid label value: "{spec}": {";".join(errs)}')
            labels[parts[0]] = parts[1]
        elif spec.endswith("-"):
            remove.append(spec[:-1])
        else:
            raise UserError(f"unknown label spec: {spec}")
    if any(key in labels for key in remove):
        raise UserError("can not both modify and remove a label in the same command")
    return Edit(labels, tuple(remove))


def annotation_edit(pairs: list[str]) -> Edit:
    """kubectl's ``ParsePairs(…, "annotation", true)`` and ``validateAnnotations``."""
    values: dict[str, str] = {}
    remove: list[str] = []
    invalid: list[str] = []
    for spec in pairs:
        if "=" in spec and not spec.startswith("="):
            key, _, value = spec.partition("=")
            values[key] = value
        elif spec.endswith("-") and spec != "-":
            remove.append(spec[:-1])
        else:
            invalid.append(spec)
    if invalid:
        raise UserError(f"invalid annotation format: {', '.join(invalid)}")
    both = [key for key in remove if key in values]
    if both:
        raise UserError("can not both modify and remove the following annotation(s) in the same command: "
                        + ", ".join(both))
    return Edit(values, tuple(remove))


def apply_labels(current: dict[str, str], edit: Edit, overwrite: bool) -> tuple[dict[str, str], str]:
    """The new labels and kubectl's word for the change: labeled, unlabeled, modified, not labeled."""
    if not overwrite:
        clashes = [f"'{key}' already has a value ({current[key]}), and --overwrite is false"
                   for key, value in edit.set.items() if key in current and current[key] != value]
        if clashes:
            raise UserError(_aggregate(clashes))
    out = dict(current)
    added = [key for key, value in edit.set.items() if out.get(key) != value]
    out.update(edit.set)
    removed = [key for key in edit.remove if key in out]
    for key in removed:
        del out[key]
    word = {(True, True): "modified", (True, False): "labeled", (False, True): "unlabeled"}
    return out, word.get((bool(added), bool(removed)), "not labeled")


def apply_annotations(current: dict[str, str], edit: Edit, overwrite: bool) -> dict[str, str]:
    """The new annotations (kubectl's ``updateAnnotations``); kubectl's change-cause annotation may
    always be overwritten."""
    if not overwrite:
        clashes = [f"'{key}' already has a value ({current[key]})" for key, value in edit.set.items()
                   if key != "kubernetes.io/change-cause" and key in current and current[key] != value]
        if clashes:
            raise UserError("--overwrite is false but found the following declared annotation(s): "
                            + "; ".join(clashes))
    out = {**current, **edit.set}
    for key in edit.remove:
        out.pop(key, None)
    return out


def _aggregate(messages: list[str]) -> str:
    """apimachinery ``utilerrors.NewAggregate(…).Error()``: one message alone, several in brackets."""
    if len(messages) == 1:
        return messages[0]
    return "[" + ", ".join(messages) + "]"
