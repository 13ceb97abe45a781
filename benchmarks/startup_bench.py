"""How soon ``kbatch serve`` answers after launch (run: ``python benchmarks/startup_bench.py``).

Target (issue 15): connections accepted ≤ 1 s after launch on the development machine. Measured
here as the wall time from ``Popen`` of ``python -m kbatch.cli serve --state EMPTY --port P`` to the
first successful ``GET /version`` (polled every 5 ms), median of ``--runs`` launches; and, since the
control plane loads after the socket answers (kbatch/server/starting.py), also to the first answered
``GET /api/v1/namespaces/default/pods`` (the API itself ready). The in-run baseline is a process that
only runs ``import kbatch`` (the interpreter's own start-up plus the package's root), so the ratio
shows what kbatch's serve path adds on this machine, busy or not.

Each launch runs with the environment as it is (this machine sets ``PYTHONDONTWRITEBYTECODE=1``, so
every launch compiles kbatch's sources); ``--bytecode`` also measures with a warm bytecode cache
(``PYTHONPYCACHEPREFIX`` in a temporary directory, filled by a first launch), which is what an
installed package gets (pip compiles on install). ``--importtime`` prints the 15 slowest imports of
one launch up to the first pod list (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {**os.environ, **extra}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def time_to_answers(env: dict[str, str], deadline: float = 30.0) -> tuple[float, float]:
    """Seconds from launch to the first answered ``GET /version``, and to the first pod list."""
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="kbatch-startup-") as state:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "kbatch.cli", "serve", "--state", state, "--port",
                                 str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with httpx.Client(timeout=deadline) as http:
                version = _first_answer(http, f"http://127.0.0.1:{port}/version", start, deadline)
                listed = _first_answer(http, f"http://127.0.0.1:{port}/api/v1/namespaces/default/pods", start,
                                       deadline)
            return version, listed
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def _first_answer(http: httpx.Client, url: str, start: float, deadline: float) -> float:
    while time.perf_counter() - start < deadline:
        try:
            if http.get(url).status_code == 200:
                return time.perf_counter() - start
        except httpx.TransportError:
            pass
        time.sleep(0.005)
    raise RuntimeError(f"kbatch serve did not answer {url} within {deadline}s")


def time_to_import(env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import kbatch"], env=env, check=True)
    return time.perf_counter() - start


def report(label: str, env: dict[str, str], runs: int) -> None:
    base = statistics.median(time_to_import(env) for _ in range(runs))
    samples = [time_to_answers(env) for _ in range(runs)]
    version = sorted(v for v, _ in samples)
    listed = statistics.median(lst for _, lst in samples)
    serve = statistics.median(version)
    print(f"{label}: import kbatch {base:.3f} s; serve → first /version {serve:.3f} s median "
          f"(min {version[0]:.3f}, max {version[-1]:.3f}; {serve / base:.1f}x the import; target ≤ 1 s), "
          f"→ first pod list {listed:.3f} s")


def importtime(env: dict[str, str], top: int = 15) -> None:
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="kbatch-startup-") as state, \
            tempfile.TemporaryFile("w+") as log:  # a file: importtime's lines would fill a pipe and stall it
        proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "kbatch.cli", "serve", "--state",
                                 state, "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                                stderr=log, text=True)
        with httpx.Client(timeout=1.0) as http:
            while True:
                try:
                    if http.get(f"http://127.0.0.1:{port}/api/v1/namespaces/default/pods").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.01)
        proc.terminate()
        proc.wait(timeout=30)
        log.seek(0)
        err = log.read()
    rows = []
    for line in err.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            own_us, _cumulative, name = line.removeprefix("import time:").split("|")
            rows.append((int(own_us), name.strip()))
    ours = sum(1 for _, name in rows if name == "kbatch" or name.startswith("kbatch."))
    print(f"imports: {len(rows)} modules ({ours} of kbatch), {sum(r[0] for r in rows) / 1e6:.3f} s of their "
          "own time; slowest:")
    for own, name in sorted(rows, reverse=True)[:top]:
        print(f"  {own / 1e3:7.1f} ms  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--bytecode", action="store_true", help="also measure with a warm bytecode cache")
    parser.add_argument("--importtime", action="store_true", help="print the slowest imports of one launch")
    args = parser.parse_args()
    env = _env({})
    report("as configured" + (" (no bytecode written)" if env.get("PYTHONDONTWRITEBYTECODE") else ""), env,
           args.runs)
    if args.bytecode:
        with tempfile.TemporaryDirectory(prefix="kbatch-pyc-") as cache:
            warm = _env({"PYTHONPYCACHEPREFIX": cache})
            warm.pop("PYTHONDONTWRITEBYTECODE", None)
            time_to_answers(warm)  # fills the cache
            report("bytecode cached", warm, args.runs)
    if args.importtime:
        importtime(env)


if __name__ == "__main__":
    main()
