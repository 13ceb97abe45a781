"""Preemption: who may be preempted (:mod:`.policy`), classical candidates (:mod:`.classical`), fair
sharing (:mod:`.fairsharing`) and the minimal target search (:mod:`.preemptor`)."""

from kbatch.controllers.kueue.scheduling.preemption.preemptor import Preemptor, Target

__all__ = ["Preemptor", "Target"]
