"""Score normalization shared by plugins (upstream ``pkg/scheduler/framework/plugins/helper``
``DefaultNormalizeScore``): scale so the best is 100; ``reverse`` flips it (fewer is better)."""

from __future__ import annotations

__all__ = ["default_normalize"]

MAX_NODE_SCORE = 100


def default_normalize(scores: list[int], reverse: bool) -> list[int]:
    top = max(scores, default=0)
    if top == 0:
        return [MAX_NODE_SCORE] * len(scores) if reverse else list(scores)
    out = [MAX_NODE_SCORE * s // top for s in scores]
    return [MAX_NODE_SCORE - s for s in out] if reverse else out
