"""A Job whose script writes a file from a here-document, sorts and counts it through pipelines,
reads it line by line and exits by ``grep``'s status, through the CLI (each command a separate
``python -m kbatch`` process): no create-time warning, the log and the exit code dash and GNU
coreutils would give (docs/simulation.md, the command vocabulary)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_stop_signals_cli import _kbatch

JOB = {
    "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "lists"},
    "spec": {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never", "containers": [{
        "name": "main", "image": "busybox", "env": [{"name": "WHO", "value": "kbatch"}],
        "command": ["sh", "-c", "\n".join([
            "cat > /tmp/list <<EOF",
            "beta $WHO",
            "alpha",
            "gamma",
            "EOF",
            "sort /tmp/list | head -n 2",
            "n=$(wc -l < /tmp/list)",
            "printf 'count=%d\\n' \"$n\"",
            "tr a-z A-Z <<'X'",
            "done $WHO",
            "X",
            "while read -r first rest; do echo \"item $first\"; done < /tmp/list",
            "grep -q delta /tmp/list || exit 3",
        ])]}]}}},
}


def test_a_job_script_with_heredocs_pipelines_and_read(tmp_path: Path) -> None:
    (tmp_path / "job.json").write_text(json.dumps(JOB))
    _kbatch(tmp_path, "nodes", "add", "--count", "1")
    applied = _kbatch(tmp_path, "apply", "-f", "job.json")
    assert "Warning" not in applied.stderr
    _kbatch(tmp_path, "advance", "5s")
    assert _kbatch(tmp_path, "logs", "job/lists").stdout.splitlines() == [
        "alpha", "beta kbatch", "count=3", "DONE $WHO", "item beta", "item alpha", "item gamma"]
    pods = json.loads(_kbatch(tmp_path, "get", "pods", "-o", "json").stdout)["items"]
    term = pods[0]["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (3, "Error")
