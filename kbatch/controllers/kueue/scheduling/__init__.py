"""Kueue's scheduling decisions as pure computations over a snapshot of the cache.

:mod:`.snapshot` (the journaled view), :mod:`.flavorassigner` and :mod:`.assignment`,
:mod:`.podset_reducer` (partial admission), :mod:`.preemption` (classical and fair sharing),
:mod:`.fairshare` (dominant resource share), :mod:`.ordering` and :mod:`.cycle` (the numbered steps).
"""

from kbatch.controllers.kueue.scheduling.cycle import CycleConfig, Entry, Head, run_cycle
from kbatch.controllers.kueue.scheduling.flavorassigner import AssignerOptions, FlavorAssigner
from kbatch.controllers.kueue.scheduling.snapshot import Snapshot

__all__ = ["AssignerOptions", "CycleConfig", "Entry", "FlavorAssigner", "Head", "Snapshot", "run_cycle"]
