"""kubectl's ``--dry-run`` flag (k8s.io/kubectl ``pkg/cmd/util`` ``GetDryRunStrategy``): its three
values, the refusal of any other, and the suffix the name printer adds to each line
(``PrintFlagsWithDryRunStrategy``: ``pod/p created (dry run)``)."""

from __future__ import annotations

from kbatch.cli.errors import UserError

__all__ = ["DRY_RUN_SUFFIX", "dry_run_strategy"]

DRY_RUN_SUFFIX = {"none": "", "client": " (dry run)", "server": " (server dry run)"}


def dry_run_strategy(value: str) -> str:
    """``value`` when it is one of kubectl's strategies, else kubectl's error."""
    if value not in DRY_RUN_SUFFIX:
        raise UserError(f'Invalid dry-run value ({value}). Must be "none", "server", or "client".')
    return value
