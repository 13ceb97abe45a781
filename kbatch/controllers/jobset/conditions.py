"""JobSet condition bookkeeping (``jobset_controller.go`` ``setCondition``/``updateCondition``).

A condition update, at ``now``:

* a condition of the same type with another status is replaced (new ``lastTransitionTime``); one
  with the same status but another reason or message is replaced keeping its transition time; an
  identical one changes nothing;
* ``StartupPolicyInProgress`` and ``StartupPolicyCompleted`` are mutually exclusive: setting one
  True turns the other (when True) False, its other fields kept;
* a condition not present is added only when True (a False one is never appended).

Every change queues an event (the condition's reason and message, with the caller's type), emitted
only if the status write succeeds. :class:`Draft` carries the status being decided and those events.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from kbatch.api import jobset_constants as c
from kbatch.controllers.jobset.actions import Event
from kbatch.controllers.jobset.views import Cond, Status

__all__ = ["Draft", "set_completed", "set_failed", "set_restarting_false"]

_EXCLUSIVE = {c.STARTUP_IN_PROGRESS: c.STARTUP_COMPLETED, c.STARTUP_COMPLETED: c.STARTUP_IN_PROGRESS}


@dataclass(slots=True)
class Draft:
    """The status under decision, whether it must be written, and the events to emit after."""

    status: Status
    now: datetime
    should_update: bool = False
    events: list[Event] = field(default_factory=list)

    def update(self, **changes: object) -> None:
        self.status = replace(self.status, **changes)  # type: ignore[arg-type]
        self.should_update = True

    def event(self, type_: str, reason: str, message: str) -> None:
        self.events.append(Event(type_, reason, message))

    def set_condition(self, type_: str, status: str, reason: str, message: str,
                      event_type: str = "Normal") -> bool:
        """``setCondition``; returns whether anything changed."""
        new = Cond(type_, status, reason, message, self.now)
        found = changed = False
        conds = list(self.status.conditions)
        for i, cur in enumerate(conds):
            if cur.type == type_:
                found = True
                if cur.status != status:
                    conds[i], changed = new, True
                elif cur.reason != reason or cur.message != message:
                    conds[i] = replace(new, last_transition_time=cur.last_transition_time)
                    changed = True
            elif (_EXCLUSIVE.get(type_) == cur.type and cur.status == "True" and status == "True"):
                conds[i], changed = replace(cur, status="False"), True
        if not found and status == "True":
            conds.append(new)
            changed = True
        if changed:
            self.update(conditions=tuple(conds))
            self.event(event_type, reason, message)
        return changed


def set_restarting_false(draft: Draft, reason: str, message: str) -> None:
    draft.set_condition(c.RESTARTING, "False", reason, message)


def set_failed(draft: Draft, reason: str, message: str) -> None:
    """``setJobSetFailedCondition``: Failed (a Warning), RestartingJobSet False, terminalState."""
    draft.set_condition(c.FAILED, "True", reason, message, "Warning")
    set_restarting_false(draft, c.RESTARTING_JOBSET_FAILED, c.RESTARTING_JOBSET_FAILED_MESSAGE)
    draft.status = replace(draft.status, terminal_state=c.FAILED)


def set_completed(draft: Draft) -> None:
    """``setJobSetCompletedCondition``: Completed, RestartingJobSet False, terminalState."""
    draft.set_condition(c.COMPLETED, "True", c.ALL_JOBS_COMPLETED_REASON, c.ALL_JOBS_COMPLETED_MESSAGE)
    set_restarting_false(draft, c.RESTARTING_JOBSET_COMPLETED, c.ALL_JOBS_COMPLETED_MESSAGE)
    draft.status = replace(draft.status, terminal_state=c.COMPLETED)
