"""Which controllers run: kube-controller-manager's ``--controllers`` syntax.

A selection is a comma-separated list of terms, read left to right:

* ``*`` — every controller that is on by default;
* ``name`` — turn that controller on;
* ``-name`` — turn it off (wins over ``*`` wherever it appears; the first explicit term naming a
  controller decides, as upstream).

Examples: ``*`` (the defaults), ``*,-podgc``, ``job,garbage-collector`` (exactly those two),
``""`` (none at all).
Upstream: ``cmd/kube-controller-manager/app/controllermanager.go`` (``IsControllerEnabled``).
Unknown names raise :class:`SelectionError`, which lists the known ones. The result keeps the
catalog's order, never the order of a set.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["ControllerInfo", "SelectionError", "parse_selection", "select"]


@dataclass(frozen=True, slots=True)
class ControllerInfo:
    """What selection needs to know of a controller."""

    name: str
    description: str = ""
    enabled_by_default: bool = True
    aliases: tuple[str, ...] = ()  # other names that select it (upstream's canonical and legacy names)


class SelectionError(ValueError):
    pass


def parse_selection(text: str | Sequence[str] | None) -> list[str]:
    """Split ``"*,-podgc"`` (or a list of terms) into terms. ``None`` means the default (``["*"]``);
    an empty string or list selects nothing (a bare control plane: API server only)."""
    if text is None:
        return ["*"]
    raw = text.split(",") if isinstance(text, str) else [t for part in text for t in part.split(",")]
    return [t.strip() for t in raw if t.strip()]


def select(text: str | Sequence[str] | None, known: Iterable[ControllerInfo]) -> list[str]:
    """The names to run, in catalog order."""
    catalog = list(known)
    names = [c.name for c in catalog]
    canonical = {alias: c.name for c in catalog for alias in c.aliases} | {n: n for n in names}
    terms = [_canonical_term(t, canonical) for t in parse_selection(text)]
    unknown = [t.lstrip("-") for t in terms if t != "*" and t.lstrip("-") not in names]
    if unknown:
        raise SelectionError(
            f"unknown controller{'s' if len(unknown) > 1 else ''} {', '.join(repr(u) for u in unknown)}; "
            f"known controllers: {', '.join(sorted(names))}"
        )
    return [info.name for info in catalog if _enabled(info, terms)]


def _canonical_term(term: str, canonical: dict[str, str]) -> str:
    """``-job-controller`` → ``-job``; unknown names pass through (reported by the caller)."""
    negated = term.startswith("-")
    name = term[1:] if negated else term
    name = canonical.get(name, name)
    return "-" + name if negated else name


def _enabled(info: ControllerInfo, terms: list[str]) -> bool:
    """Upstream's rule: the first explicit ``name``/``-name`` term decides; otherwise ``*`` does."""
    for term in terms:
        if term == info.name:
            return True
        if term == "-" + info.name:
            return False
    return "*" in terms and info.enabled_by_default
