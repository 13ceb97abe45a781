"""kbatch.runtime: controller-runtime in Python on one deterministic loop and an injected clock.

Guarantees: the wall clock is read only in ``clock.py``; one seeded random source per control plane;
work queues with client-go's guarantees; reconcile outcomes mapped to the queue in one place; cache
reads never alias the stored truth; the same inputs and seed give the same trace digest.
See docs/runtime.md and docs/determinism.md.
"""

from kbatch.runtime.builder import Builder
from kbatch.runtime.cache import Cache, SharedInformer
from kbatch.runtime.catalog import Catalog, ControllerSpec, default_catalog
from kbatch.runtime.clock import DEFAULT_START, Clock, RealClock, VirtualClock
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.controller import Controller, ReconcileRecord
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.duration import format_duration, parse_duration
from kbatch.runtime.events import EventRecorder, EventSink
from kbatch.runtime.loop import Loop, NotConverging
from kbatch.runtime.manager import Manager, Stepper
from kbatch.runtime.predicate import (
    GenerationChanged,
    LabelsChanged,
    Predicate,
    ResourceVersionChanged,
    predicate_func,
)
from kbatch.runtime.published import Published, PublishedKey
from kbatch.runtime.reconcile import Reconciler, Request, Result, TerminalError, reconcile_func
from kbatch.runtime.recorder import Recorder
from kbatch.runtime.rng import derive, new_rng
from kbatch.runtime.selection import ControllerInfo, SelectionError, select
from kbatch.runtime.timers import TimerQueue
from kbatch.runtime.trace import Trace, TraceRecord

__all__ = [
    "DEFAULT_START",
    "Builder",
    "Cache",
    "Catalog",
    "Clock",
    "ControlPlane",
    "Controller",
    "ControllerContext",
    "ControllerInfo",
    "ControllerSpec",
    "EventRecorder",
    "EventSink",
    "GenerationChanged",
    "LabelsChanged",
    "Loop",
    "Manager",
    "NotConverging",
    "Predicate",
    "Published",
    "PublishedKey",
    "RealClock",
    "ReconcileRecord",
    "Reconciler",
    "Recorder",
    "Request",
    "ResourceVersionChanged",
    "Result",
    "SelectionError",
    "SharedInformer",
    "Stepper",
    "TerminalError",
    "TimerQueue",
    "Trace",
    "TraceRecord",
    "VirtualClock",
    "default_catalog",
    "derive",
    "format_duration",
    "new_rng",
    "parse_duration",
    "predicate_func",
    "reconcile_func",
    "select",
]
