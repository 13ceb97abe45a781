"""Same inputs and seed → the same trace digest, in this process and in others with different
``PYTHONHASHSEED`` values; different seeds → different generateName suffixes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from _scenario import run, scenario

SCENARIO = Path(__file__).parent / "_scenario.py"


def _run_in_subprocess(seed: int, hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run([sys.executable, str(SCENARIO), str(seed)], env=env, capture_output=True,
                         text=True, check=True, timeout=120)
    return out.stdout.strip()


def test_same_seed_same_digest_in_process() -> None:
    first, second = run(7), run(7)
    assert first == second
    assert len(first[1]) == 4, "b's pods are gone with b (TTL + foreground GC); a and c keep two each"


def test_same_seed_same_digest_across_processes_and_hash_seeds() -> None:
    outputs = {_run_in_subprocess(7, hash_seed) for hash_seed in ("0", "1", "12345")}
    assert len(outputs) == 1, outputs
    digest, *names = outputs.pop().split()
    assert (digest, names) == run(7)


def test_different_seeds_give_different_generated_names() -> None:
    digest_a, names_a = run(1)
    digest_b, names_b = run(2)
    assert names_a != names_b and digest_a != digest_b
    assert all(n.startswith(("a-", "c-")) for n in names_a)


def test_trace_records_reconcile_errors_with_per_item_backoff_and_events() -> None:
    records = [json.loads(line) for line in scenario(5).trace.lines()]
    errors = [r for r in records if r["verb"] == "reconcile-error"]
    want = [f"RuntimeError: transient failure {i}" for i in range(1, 5)]
    assert [e["diff"]["error"] for e in errors] == want
    assert [(e["name"], e["diff"]["retryIn"]) for e in errors] == [
        ("a", 0.005), ("b", 0.005), ("c", 0.005), ("a", 0.01)], "back-off is per item"
    events = [r for r in records if r["kind"] == "Event" and r["verb"] == "create"]
    assert len(events) == 6, "two pods per Job, one event each, none lost to a name clash"
    assert all(e["diff"]["reason"] == "SuccessfulCreate" for e in events)
    assert all(e["diff"]["source"] == {"component": "_pod_maker"} for e in events)
