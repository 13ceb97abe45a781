"""Coscheduling (kubernetes-sigs/scheduler-plugins): the scheduling.x-k8s.io/v1alpha1 PodGroup
controller (:mod:`.controller`, decision in :mod:`.sync`) and the ``Coscheduling`` scheduler plugin
(:mod:`.plugin`, its memory in :mod:`.manager`, its args in :mod:`.args`). docs/gang.md."""

from kbatch.controllers.coscheduling.args import CoschedulingArgs, parse_args
from kbatch.controllers.coscheduling.controller import PodGroupController, setup
from kbatch.controllers.coscheduling.plugin import Coscheduling, new
from kbatch.controllers.coscheduling.sync import GroupStatus, Outcome, PodFacts, next_status

__all__ = [
    "Coscheduling",
    "CoschedulingArgs",
    "GroupStatus",
    "Outcome",
    "PodFacts",
    "PodGroupController",
    "new",
    "next_status",
    "parse_args",
    "setup",
]
