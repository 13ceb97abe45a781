"""The CLI at scale (issue 15 item 3): a whole batch run through separate ``kbatch`` processes, against
the same work in one process, measured in the same run.

    python benchmarks/cli_bench.py                                       # 100 Jobs x 1000 on 1000 nodes
    python benchmarks/cli_bench.py --jobs 10 --completions 1000 --nodes 100     # smaller
    python benchmarks/cli_bench.py --jobs 2 --completions 100 --nodes 2 --step 90s   # a smoke run

The sequence, each command its own ``python -m kbatch.cli --state DIR`` process:

1. ``nodes add --count NODES --cpu 64 --gpu 8``;
2. one ``apply -f`` of a file with JOBS Indexed Jobs of COMPLETIONS completions, parallelism =
   completions (or ``--parallelism``), pods ``sleep 60`` requesting 10m CPU (as benchmarks/job_bench.py);
3. ``advance STEP`` (default 30s: half a pod's run, so a run of ``sleep 60`` pods is seen in progress
   and done within a few commands), each followed by ``get jobs -o json``, the check a user makes,
   until every Job is Complete;
4. ``get jobs`` (the table).

The baseline is the same command lines, in the same order, through the same entry point (``main``)
in one child process against one control plane that is never saved or loaded: kbatch's CLI session
is replaced by one that yields that control plane's backend (settled before and after each command,
as the CLI's session does). So the ratio is what the state directory costs: a process start, loading
and saving the image, per command. The two runs must print the same ``get jobs`` table and end with the
same trace digest (``agree``), or the benchmark fails.

Measured: wall time, CPU time and peak RSS of every process (``os.wait4``: each child's own rusage),
the image's size, and the seconds (wall and CPU) to load it and to save it again
(``load_image``/``save_image`` in a child of their own: the CLI prints no timings). On a shared machine
the CPU figures are the steadier ones: the report prints both. Targets: CLI wall <= 1.3x the
in-process wall, peak RSS of every kbatch process <= 2 GiB, loading and saving the state <= 3 s each.

Every child gets a bytecode cache (``PYTHONPYCACHEPREFIX``, filled by the first command), as an
installed kbatch has (pip compiles on install); ``--no-bytecode`` runs them with the environment as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GiB = 2**30
TARGET_RATIO, TARGET_RSS, TARGET_IMAGE_S = 1.3, 2 * GiB, 3.0


def job_manifest(i: int, completions: int, parallelism: int) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": f"bench-{i}"},
            "spec": {"completions": completions, "parallelism": parallelism, "completionMode": "Indexed",
                     "template": {"spec": {"restartPolicy": "Never", "containers": [{
                         "name": "main", "image": "busybox", "command": ["sleep", "60"],
                         "resources": {"requests": {"cpu": "10m"}}}]}}}}


def all_complete(jobs_json: str, count: int) -> bool:
    items = json.loads(jobs_json)["items"]
    conditions = [(j.get("status") or {}).get("conditions", ()) for j in items]
    return len(items) == count and all(
        any(c["type"] == "Complete" and c["status"] == "True" for c in conds) for conds in conditions)


# --- children ------------------------------------------------------------------------------------------

@dataclass
class Run:
    """One child process: what it printed, how long it took (wall and CPU), its own peak RSS."""

    args: list[str]
    code: int
    out: str
    err: str
    wall: float
    cpu: float
    rss: int  # bytes

    def label(self) -> str:
        text = " ".join(self.args[4:] if self.args[:2] == ["-m", "kbatch.cli"] else self.args)
        return text if len(text) <= 50 else text[:47] + "..."


def child(args: list[str], env: dict[str, str]) -> Run:
    """Run ``python ARGS`` and wait for it with ``os.wait4``, which reports that child's own rusage."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *args], stdout=out, stderr=err, env=env, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(args, proc.returncode, out.read(), err.read(), wall, usage.ru_utime + usage.ru_stime,
                   usage.ru_maxrss * 1024)


def environment(bytecode: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    for name in ("KBATCH_STATE", "KBATCH_SERVER", "KBATCH_CONTROLLERS", "KBATCH_FEATURE_GATES",
                 "KBATCH_ETCD_SERVERS"):
        env.pop(name, None)
    if bytecode is not None:
        env["PYTHONPYCACHEPREFIX"] = bytecode
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


# --- the sequence ----------------------------------------------------------------------------------------

def sequence(args: argparse.Namespace, manifests: Path, run: Any) -> tuple[list[Any], str]:
    """Drive the commands with ``run(*argv) -> (code, out, err, record)``; the records and the final
    ``get jobs`` table."""
    records = []

    def kbatch(*argv: str) -> str:
        code, out, err, record = run(*argv)
        records.append(record)
        if code != 0:
            raise SystemExit(f"kbatch {' '.join(argv)} failed ({code}): {err.strip() or out.strip()}")
        return out

    kbatch("nodes", "add", "--count", str(args.nodes), "--cpu", "64", "--gpu", "8")
    kbatch("apply", "-f", str(manifests))
    for _ in range(args.max_advances):
        kbatch("advance", args.step)
        if all_complete(kbatch("get", "jobs", "-o", "json"), args.jobs):
            break
    else:
        raise SystemExit(f"the Jobs were not Complete after {args.max_advances} advances of {args.step}")
    return records, kbatch("get", "jobs")


def in_process(args: argparse.Namespace, manifests: Path) -> dict[str, Any]:
    """The baseline (module docstring), in this (child) process."""
    import contextlib
    import io
    from unittest import mock

    from kbatch.cli import main
    from kbatch.cli.state import StateConfig
    from kbatch.server.facade import ControlPlaneBackend

    start, cpu = time.perf_counter(), time.process_time()
    cp = StateConfig().build()  # what the CLI builds for a new state directory
    backend = ControlPlaneBackend(cp)

    @contextlib.contextmanager
    def kept(opts: Any, *, save: bool = True) -> Any:
        backend.settle()
        try:
            yield backend
        finally:
            backend.settle()

    def run(*argv: str) -> tuple[int, str, str, float]:
        out, err, code, t0 = io.StringIO(), io.StringIO(), 0, time.perf_counter()
        with mock.patch("kbatch.cli.session.session", kept), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            try:
                main(list(argv))
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
        return code, out.getvalue(), err.getvalue(), time.perf_counter() - t0

    records, table = sequence(args, manifests, run)
    return {"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu, "commands": len(records),
            "table": table,
            "digest": cp.trace.digest(), "now": cp.now().isoformat()}


def image_times(path: Path) -> dict[str, Any]:
    """Seconds to load the image at ``path`` (as a command does: its modules not yet imported), to
    save it again, and to load it once more (modules imported: the unpickling alone); wall and CPU
    (``*_cpu``: on a shared machine the steadier figure)."""
    import gc

    from kbatch.runtime.image import load_image, save_image

    def now() -> tuple[float, float]:
        return time.perf_counter(), time.process_time()

    t0 = now()
    cp, header = load_image(path)
    t1 = now()
    with tempfile.TemporaryDirectory(dir=path.parent.parent) as scratch:  # the same file system
        save_image(cp, Path(scratch) / path.name, header.config)
        t2 = now()
    del cp
    gc.unfreeze()
    gc.collect()
    t3 = now()
    load_image(path)
    t4 = now()
    out: dict[str, Any] = {"size": path.stat().st_size}
    for name, (a, b) in {"load": (t0, t1), "save": (t1, t2), "reload": (t3, t4)}.items():
        out[name], out[f"{name}_cpu"] = b[0] - a[0], b[1] - a[1]
    return out


# --- the report --------------------------------------------------------------------------------------------

def _mib(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


def _verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def report(args: argparse.Namespace, cli: list[Run], extra: list[Run], base: Run, base_out: dict[str, Any],
           image: Run, times: dict[str, Any], agree: bool) -> None:
    """``cli``: the user's sequence; ``extra``: processes run only to compare (``trace --digest``)."""
    parallelism = args.parallelism or args.completions
    print(f"jobs={args.jobs} completions={args.completions} parallelism={parallelism} nodes={args.nodes} "
          f"step={args.step}")
    print(f"{'kbatch command (one process each)':<52} {'wall s':>8} {'cpu s':>8} {'peak RSS':>10}")
    for r in (*cli, *extra):
        print(f"{r.label() if r in cli else '(to compare) ' + r.label():<52} {r.wall:8.2f} {r.cpu:8.2f} "
              f"{_mib(r.rss):>10}")
    wall, cpu = sum(r.wall for r in cli), sum(r.cpu for r in cli)
    checks = sum(r.wall for r in cli if r.args[-3:] == ["jobs", "-o", "json"])
    print(f"CLI: {len(cli)} processes, {wall:.2f} s wall, {cpu:.2f} s cpu (of the wall: the checks after "
          f"each advance {checks:.2f} s)")
    print(f"in process: the same {base_out['commands']} commands on one control plane, "
          f"{base_out['wall']:.2f} s wall, {base_out['cpu']:.2f} s cpu (the child: {base.wall:.2f} s with "
          f"its start); peak RSS {_mib(base.rss)}")
    print(f"image: {_mib(times['size'])}; load {times['load']:.2f} s wall, {times['load_cpu']:.2f} s cpu "
          f"(unpickling alone {times['reload']:.2f} s, {times['reload_cpu']:.2f} s cpu), save "
          f"{times['save']:.2f} s wall, {times['save_cpu']:.2f} s cpu; that child's peak RSS "
          f"{_mib(image.rss)}")
    ratio, cpu_ratio = wall / base_out["wall"], cpu / base_out["cpu"]
    peak = max(r.rss for r in (*cli, *extra, image))
    slowest = max(times["load"], times["save"])
    print(f"agree (same `get jobs` table, same trace digest): {'yes' if agree else 'NO'}")
    print(f"CLI wall / in-process wall: {ratio:.2f} (cpu: {cpu_ratio:.2f}; target <= {TARGET_RATIO}) "
          f"{_verdict(ratio <= TARGET_RATIO)}")
    print(f"max peak RSS of a kbatch process: {_mib(peak)} (target <= 2 GiB) {_verdict(peak <= TARGET_RSS)}")
    print(f"load {times['load']:.2f} s, save {times['save']:.2f} s (target <= {TARGET_IMAGE_S} s each) "
          f"{_verdict(slowest <= TARGET_IMAGE_S)} (cpu: load {times['load_cpu']:.2f} s, "
          f"save {times['save_cpu']:.2f} s)")


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=100)
    ap.add_argument("--completions", type=int, default=1000)
    ap.add_argument("--parallelism", type=int, default=None, help="default: = completions")
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--step", default="30s", help="virtual time per advance (default 30s)")
    ap.add_argument("--max-advances", type=int, default=200)
    ap.add_argument("--no-bytecode", action="store_true", help="no shared bytecode cache for the children")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR (kept) instead of a temporary directory")
    ap.add_argument("--role", choices=("in-process", "image"), help=argparse.SUPPRESS)  # the children
    ap.add_argument("--path", help=argparse.SUPPRESS)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.role == "in-process":
        print(json.dumps(in_process(args, Path(args.path))))
        return 0
    if args.role == "image":
        print(json.dumps(image_times(Path(args.path))))
        return 0
    with tempfile.TemporaryDirectory(prefix="kbatch-cli-bench-") as scratch:
        work = Path(args.keep) if args.keep else Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        return measure(args, work)


def measure(args: argparse.Namespace, work: Path) -> int:
    env = environment(None if args.no_bytecode else str(work / "pycache"))
    manifests = work / "jobs.yaml"
    parallelism = args.parallelism or args.completions
    manifests.write_text("".join("---\n" + json.dumps(job_manifest(i, args.completions, parallelism)) + "\n"
                                 for i in range(args.jobs)))
    state = work / "state"

    def cli(*argv: str) -> tuple[int, str, str, Run]:
        r = child(["-m", "kbatch.cli", "--state", str(state), *argv], env)
        return r.code, r.out, r.err, r

    runs, table = sequence(args, manifests, cli)
    digest = child(["-m", "kbatch.cli", "--state", str(state), "trace", "--digest"], env)
    base = child([str(Path(__file__).resolve()), *_scale(args), "--role", "in-process", "--path",
                  str(manifests)], env)
    if base.code != 0:
        raise SystemExit(f"the in-process run failed: {base.err.strip()}")
    base_out = json.loads(base.out.splitlines()[-1])
    image = child([str(Path(__file__).resolve()), "--role", "image", "--path", str(state / "state.kbatch")],
                  env)
    if image.code != 0:
        raise SystemExit(f"timing the image failed: {image.err.strip()}")
    agree = base_out["table"] == table and base_out["digest"] == digest.out.strip()
    report(args, runs, [digest], base, base_out, image, json.loads(image.out.splitlines()[-1]), agree)
    return 0 if agree else 1


def _scale(args: argparse.Namespace) -> list[str]:
    out = ["--jobs", str(args.jobs), "--completions", str(args.completions), "--nodes", str(args.nodes),
           "--step", args.step, "--max-advances", str(args.max_advances)]
    if args.parallelism:
        out += ["--parallelism", str(args.parallelism)]
    return out


if __name__ == "__main__":
    sys.exit(main())
