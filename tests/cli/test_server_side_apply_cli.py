"""``kbatch apply --server-side`` (kubectl's flags: ``--field-manager``, ``--force-conflicts``), locally and
against ``kbatch serve``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbatch.server.process import ServeProcess
from tests.cli.test_remote import server  # noqa: F401  (the module's own kbatch serve)
from tests.server.test_kubectl_server_side_apply import JOB


def _write(tmp_path: Path, parallelism: int) -> str:
    path = tmp_path / f"job-{parallelism}.yaml"
    path.write_text(JOB.format(parallelism=parallelism))
    return str(path)


def _check_conflict_and_force(kb: Any, tmp_path: Path, *remote: str) -> None:
    assert kb.ok(*remote, "apply", "--server-side", "-f", _write(tmp_path, 1)).strip() == \
        "job.batch/ssa serverside-applied"
    clash = kb(*remote, "apply", "--server-side", "--field-manager", "ops", "-f", _write(tmp_path, 2))
    assert clash.code == 1
    assert ('Error from server (Conflict): Apply failed with 1 conflict: conflict with "kbatch": '
            ".spec.parallelism") in clash.err
    kb.ok(*remote, "apply", "--server-side", "--field-manager", "ops", "--force-conflicts", "-f",
          _write(tmp_path, 2))
    assert "managedFields" not in json.loads(kb.ok(*remote, "get", "job", "ssa", "-o", "json"))["metadata"]
    job = json.loads(kb.ok(*remote, "get", "job", "ssa", "-o", "json", "--show-managed-fields"))
    assert job["spec"]["parallelism"] == 2
    assert {m["manager"] for m in job["metadata"]["managedFields"]} >= {"kbatch", "ops"}


def test_server_side_apply_locally(kb: Any, tmp_path: Path) -> None:
    _check_conflict_and_force(kb, tmp_path)
    dry = kb("apply", "--server-side", "--dry-run=client", "-f", _write(tmp_path, 3))
    assert dry.code == 1 and "--dry-run=client doesn't work with --server-side" in dry.err
    force = kb("apply", "--force-conflicts", "-f", _write(tmp_path, 3))
    assert force.code == 1 and "--force-conflicts only works with --server-side" in force.err


def test_server_side_apply_through_the_server(kb: Any, tmp_path: Path, server: ServeProcess) -> None:  # noqa: F811
    _check_conflict_and_force(kb, tmp_path, "--server", server.url)
