"""``EtcdProcess``: a real etcd on loopback for tests and benchmarks, started and stopped by them.

It runs the ``etcd`` binary that ``.ci/run`` installs (Debian's ``etcd-server``) as one member on
free loopback ports with its own data directory (by default a temporary one on ``/dev/shm`` when it
exists: tests want speed, not durability across reboots; a SIGKILL of etcd still leaves the data, as
the fault tests need). Readiness is etcd's own "serving client traffic" log line, read from its
stderr, not a sleep::

    with EtcdProcess() as etcd:
        store = EtcdStore(etcd.url)
        etcd.kill(); etcd.start()          # SIGKILL and restart on the same data and ports

``progress_interval`` sets ``--experimental-watch-progress-notify-interval`` (etcd's default is 10
minutes; ``EtcdStore.settle`` waits for one notification on watchers that saw no event). A short
election timeout makes a single member lead within ~0.1 s of starting.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

__all__ = ["EtcdProcess", "etcd_binary", "free_ports"]


def etcd_binary() -> str | None:
    """The ``etcd`` executable on ``PATH`` (or Debian's ``/usr/bin/etcd``), ``None`` when absent."""
    found = shutil.which("etcd")
    if found is None and os.access("/usr/bin/etcd", os.X_OK):
        found = "/usr/bin/etcd"
    return found


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports. The sockets are held until all are bound: ports taken
    one after another can repeat (the kernel may hand the port just released to the next bind), and
    etcd with its client and peer URLs on one port fails with "address already in use"."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in sockets]
    finally:
        for s in sockets:
            s.close()


class EtcdProcess:
    def __init__(self, data_dir: str | os.PathLike[str] | None = None, *, progress_interval: str = "50ms",
                 start_timeout: float = 30.0, extra: tuple[str, ...] = ()) -> None:
        binary = etcd_binary()
        if binary is None:
            raise FileNotFoundError("etcd is not installed (Debian: apt-get install etcd-server)")
        self.binary = binary
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if data_dir is None:
            base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
            self._tmp = tempfile.TemporaryDirectory(prefix="kbatch-etcd-", dir=base)
            data_dir = self._tmp.name
        self.data_dir = Path(data_dir)
        self.progress_interval = progress_interval
        self.start_timeout = start_timeout
        self.extra = extra
        self.client_port, self.peer_port = free_ports(2)
        self.process: subprocess.Popen[bytes] | None = None
        self.log: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.client_port}"

    def command(self) -> list[str]:
        peer = f"http://127.0.0.1:{self.peer_port}"
        return [self.binary, "--name", "kbatch", "--data-dir", str(self.data_dir / "member-data"),
                "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", f"kbatch={peer}", "--heartbeat-interval", "10",
                "--election-timeout", "100", "--logger", "zap", "--log-level", "info",
                "--experimental-watch-progress-notify-interval", self.progress_interval, *self.extra]

    def start(self) -> EtcdProcess:
        """Start etcd (again, on the same data and ports) and wait until it serves clients."""
        if self.running:
            return self
        ready = threading.Event()
        self.process = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        start_new_session=True)
        threading.Thread(target=self._read, args=(self.process, ready), daemon=True).start()
        if not ready.wait(self.start_timeout) or not self.running:
            self.kill()
            raise RuntimeError(f"etcd did not start within {self.start_timeout}s: {''.join(self.log[-20:])}")
        return self

    def _read(self, process: subprocess.Popen[bytes], ready: threading.Event) -> None:
        assert process.stderr is not None
        for raw in process.stderr:
            line = raw.decode(errors="replace")
            if len(self.log) < 2000:
                self.log.append(line)
            if "serving client traffic" in line:
                ready.set()
        ready.set()  # exited: start() sees it is not running

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL (a crash: nothing flushed beyond what etcd already fsynced)."""
        self._signal(signal.SIGKILL)

    def stop(self) -> None:
        """SIGTERM and wait."""
        self._signal(signal.SIGTERM)

    def pause(self) -> None:
        self._signal(signal.SIGSTOP, wait=False)

    def resume(self) -> None:
        self._signal(signal.SIGCONT, wait=False)

    def _signal(self, sig: int, wait: bool = True) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.send_signal(sig)
        if wait:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)

    def close(self) -> None:
        self.kill()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> EtcdProcess:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()
