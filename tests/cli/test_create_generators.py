"""``kbatch create <generator>`` builds what ``kubectl create <generator>`` builds
(k8s.io/kubectl ``pkg/cmd/create``): kubectl itself is the oracle.

Each case runs ``kubectl create … --dry-run=client -o json`` (offline: these generators need no
server) and ``kbatch create … --dry-run=client -o json`` as separate processes and compares the
objects. kubectl on this machine is 1.32, which still writes ``creationTimestamp: null`` for an unset
``ObjectMeta``; 1.37's apimachinery marks it ``omitzero`` (``pkg/apis/meta/v1/types.go``), so the
oracle's nulls are dropped before comparing. Generators that read the server (``role``,
``clusterrole``, ``job --from``) are compared against ``kbatch serve`` in
``tests/server/test_kubectl_create_generators.py``.
"""

from __future__ import annotations

import base64
import datetime
import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.runners import ROOT

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def drop_null_timestamps(value: Any) -> Any:
    """The oracle's 1.32 ``creationTimestamp: null`` removed (module docstring)."""
    if isinstance(value, dict):
        out = {k: drop_null_timestamps(v) for k, v in value.items()
               if not (k == "creationTimestamp" and v is None)}
        annotations = (out.get("metadata") or {}).get("annotations") or {}
        if LAST_APPLIED in annotations:  # compared as the objects they hold
            annotations[LAST_APPLIED] = drop_null_timestamps(json.loads(annotations[LAST_APPLIED]))
        return out
    if isinstance(value, list):
        return [drop_null_timestamps(v) for v in value]
    return value


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def kbatch_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "KBATCH_STATE": str(tmp_path / "state"),
            "KUBECONFIG": str(tmp_path / "no-kubeconfig"), "CM_FROM_ENV": "from-environment"}


def kbatch(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "kbatch", *args], tmp_path, kbatch_env(tmp_path))


def kubectl(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert KUBECTL is not None
    return run([KUBECTL, *args], tmp_path, kbatch_env(tmp_path))


@functools.cache
def _pems() -> dict[str, bytes]:
    """An RSA and an EC certificate with their keys (PKCS #1, PKCS #8, SEC 1), another RSA key, and
    PEM files of the wrong shapes, for ``create secret tls``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
    from cryptography.x509.oid import NameOID

    def cert(key: Any) -> bytes:
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kbatch.test")])
        start = datetime.datetime(2026, 1, 1)
        built = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                 .serial_number(1).not_valid_before(start)
                 .not_valid_after(start + datetime.timedelta(days=365)).sign(key, hashes.SHA256()))
        return built.public_bytes(serialization.Encoding.PEM)

    def pem(key: Any, fmt: Any) -> bytes:
        return key.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption())

    rsa_key, other, ec_key = (rsa.generate_private_key(public_exponent=65537, key_size=2048),
                              rsa.generate_private_key(public_exponent=65537, key_size=2048),
                              ec.generate_private_key(ec.SECP256R1()))
    pkcs1, pkcs8 = serialization.PrivateFormat.TraditionalOpenSSL, serialization.PrivateFormat.PKCS8
    rsa_crt = cert(rsa_key)
    return {**_broken_certs(rsa_crt), "rsa.crt": rsa_crt, "rsa.key": pem(rsa_key, pkcs1),
            "rsa8.key": pem(rsa_key, pkcs8), "other.key": pem(other, pkcs8), "ec.crt": cert(ec_key),
            "ec.key": pem(ec_key, pkcs1),
            "junk.txt": b"not pem\n", "foo.pem": b"-----BEGIN FOO-----\naGVsbG8=\n-----END FOO-----\n",
            "bad.crt": b"-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----\n",
            "bad.key": b"-----BEGIN PRIVATE KEY-----\naGVsbG8=\n-----END PRIVATE KEY-----\n"}


def _broken_certs(pem: bytes) -> dict[str, bytes]:
    """The RSA certificate broken where Go's ``x509.ParseCertificate`` names each failure
    (``crypto/x509/parser.go``): cut short, trailing bytes, the to-be-signed part not a SEQUENCE,
    version 10, a negative serial, an outer signature algorithm unlike the inner one, a public key
    BIT STRING with 8 padding bits."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    parsed = x509.load_pem_x509_certificate(pem)
    der = parsed.public_bytes(serialization.Encoding.DER)
    tbs = der.index(parsed.tbs_certificate_bytes)  # 30 82 LL LL, then A0 03 02 01 02, 02 01 01
    spki = der.index(parsed.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo))

    def at(offset: int, byte: int) -> bytes:
        return der[:offset] + bytes([byte]) + der[offset + 1:]

    def wrap(data: bytes) -> bytes:
        text = base64.encodebytes(data).decode().replace("\n", "")
        lines = "\n".join(text[i:i + 64] for i in range(0, len(text), 64))
        return f"-----BEGIN CERTIFICATE-----\n{lines}\n-----END CERTIFICATE-----\n".encode()

    outer_oid_end = tbs + len(parsed.tbs_certificate_bytes) + 12  # 30 0d 06 09 2a..0b: sha256WithRSA
    return {name: wrap(data) for name, data in {
        "short.crt": der[:-10], "trailing.crt": der + b"\x00\x00", "tbs.crt": at(tbs, 0x31),
        "version.crt": at(tbs + 8, 9), "serial.crt": at(tbs + 11, 0x81),
        "sigalg.crt": at(outer_oid_end, 0x0C), "pubkey.crt": at(spki + 23, 8)}.items()}


def _files(tmp_path: Path) -> None:
    for name, data in _pems().items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "a.txt").write_text("alpha\n")
    (tmp_path / "conf" / "b.bin").write_bytes(b"\xff\x00\x01")
    (tmp_path / "app.env").write_text("\ufeffONE=1\n# comment\n\n   TWO=two=2\nCM_FROM_ENV\nUNSET_VAR\n")


# (generator arguments, what they exercise); run with `--dry-run=client -o json` appended
CASES: list[tuple[str, ...]] = [
    ("job", "hello", "--image=busybox", "--", "echo", "hi", "--flag"),
    ("job", "bare", "--image=busybox"),
    ("job", "inns", "--image=busybox", "-n", "team", "--save-config", "--", "sh", "-c", "exit 0"),
    ("cronjob", "nightly", "--image=busybox", "--schedule=*/5 * * * *", "--", "date"),
    ("cronjob", "never", "--image=busybox", "--schedule=@daily", "--restart=Never", "-n", "team"),
    ("namespace", "team"),
    ("namespace", "saved", "--save-config"),
    ("serviceaccount", "builder", "-n", "team"),
    ("sa", "short"),
    ("-n", "team", "serviceaccount", "namespace-first"),  # -n first: a persistent flag in cobra
    ("priorityclass", "high", "--value=1000", "--description=for batch", "--global-default"),
    ("priorityclass", "low", "--value=-5", "--preemption-policy=Never"),
    ("quota", "q", "--hard=cpu=1500m,memory=1Gi,pods=10,requests.nvidia.com/gpu=2"),
    ("quota", "scoped", "--hard=pods=5", "--scopes=BestEffort,NotTerminating", "-n", "team"),
    ("quota", "empty"),
    ("poddisruptionbudget", "pdb", "--selector=app=web", "--min-available=2"),
    ("pdb", "pct", "--selector=app in (a,b),!canary,tier", "--max-unavailable=30%", "-n", "team"),
    ("configmap", "lit", "--from-literal=a=1", "--from-literal=b=x=y"),
    ("configmap", "files", "--from-file=conf", "--from-file=renamed=conf/a.txt"),
    ("configmap", "env", "--from-env-file=app.env"),
    ("cm", "empty", "-n", "team"),
    ("secret", "generic", "s", "--from-literal=user=admin", "--from-file=conf", "--type=Opaque"),
    ("secret", "generic", "envsecret", "--from-env-file=app.env"),
    ("secret", "docker-registry", "reg", "--docker-username=u", "--docker-password=p",
     "--docker-email=e@x", "--docker-server=r.example"),
    ("secret", "docker-registry", "hub", "--docker-username=u", "--docker-password=p"),
    ("secret", "tls", "rsa", "--cert=rsa.crt", "--key=rsa.key"),
    ("secret", "tls", "pkcs8", "--cert=rsa.crt", "--key=rsa8.key", "-n", "team"),
    ("secret", "tls", "ec", "--cert=ec.crt", "--key=ec.key", "--save-config"),
    # --append-hash: the name suffixed with kubectl's hash of the content (pkg/util/hash)
    ("configmap", "hashed", "--from-literal=a=<b&c>", "--from-file=conf", "--append-hash"),
    ("configmap", "hashed-empty", "--append-hash"),
    ("secret", "generic", "hashed", "--from-literal=a=1", "--type=example.com/x", "--append-hash"),
    ("secret", "generic", "hashed-empty", "--append-hash"),
    ("secret", "docker-registry", "hashed", "--docker-username=u", "--docker-password=p", "--append-hash"),
    ("secret", "tls", "hashed", "--cert=rsa.crt", "--key=rsa.key", "--append-hash"),
    ("rolebinding", "rb", "--role=reader", "--user=alice", "--user=bob", "--group=devs",
     "--serviceaccount=team:builder"),
    ("rolebinding", "crb-in-ns", "--clusterrole=view", "-n", "team"),
    ("clusterrolebinding", "crb", "--clusterrole=edit", "--group=ops", "--serviceaccount=kube-system:x"),
]


@needs_kubectl
@pytest.mark.parametrize("args", CASES, ids=lambda a: "-".join(a[:2]))
def test_generator_builds_kubectls_object(tmp_path: Path, args: tuple[str, ...]) -> None:
    _files(tmp_path)
    head, dash, tail = _split(args)
    flags = ["--dry-run=client", "-o", "json"]
    want = kubectl(tmp_path, "create", *head, *flags, *dash, *tail)
    assert want.returncode == 0, want.stderr
    got = kbatch(tmp_path, "create", *head, *flags, *dash, *tail)
    assert got.returncode == 0, got.stderr
    assert "Traceback" not in got.stderr
    assert drop_null_timestamps(json.loads(got.stdout)) == drop_null_timestamps(json.loads(want.stdout))


def _split(args: tuple[str, ...]) -> tuple[list[str], list[str], list[str]]:
    if "--" not in args:
        return list(args), [], []
    at = args.index("--")
    return list(args[:at]), ["--"], list(args[at + 1:])


# bad flags: kubectl's error line, exit 1, nothing stored
BAD: list[tuple[str, ...]] = [
    ("job",),
    ("job", "x"),
    ("job", "x", "--image=b", "--from=cronjob/y"),
    ("job", "x", "--image=b", "echo", "hi"),
    ("namespace", "a", "b"),
    ("cronjob", "c", "--image=b"),
    ("clusterrolebinding", "c"),
    ("poddisruptionbudget", "p"),
    ("poddisruptionbudget", "p", "--selector=a=b"),
    ("pdb", "p", "--selector=a=b", "--min-available=1", "--max-unavailable=2"),
    ("pdb", "p", "--selector=a=b", "--min-available=1x"),
    ("pdb", "p", "--selector=a!=b", "--min-available=1"),
    ("quota", "q", "--hard=cpu"),
    ("quota", "q", "--hard=cpu=abc"),
    ("quota", "q", "--scopes=a,,b"),
    ("configmap", "c", "--from-literal=a"),
    ("configmap", "c", "--from-literal=a=1", "--from-literal=a=2"),
    ("configmap", "c", "--from-env-file=app.env", "--from-literal=a=b"),
    ("configmap", "c", "--from-file=/nonexistent/file"),
    ("configmap", "c", "--from-file=k=conf"),
    ("configmap", "c", "--from-literal=a/b=1"),
    ("secret", "generic", "s", "--from-literal=a=1", "--from-literal=a=2"),
    ("secret", "docker-registry", "d"),
    ("secret", "tls", "t"),
    ("secret", "tls", "t", "--cert=rsa.crt"),
    ("secret", "tls", "t", "--cert=missing.crt", "--key=rsa.key"),
    ("secret", "tls", "t", "--cert=rsa.crt", "--key=missing.key"),
    ("secret", "tls", "t", "--cert=rsa.crt", "--key=other.key"),
    ("secret", "tls", "t", "--cert=rsa.crt", "--key=ec.key"),
    ("secret", "tls", "t", "--cert=junk.txt", "--key=rsa.key"),
    ("secret", "tls", "t", "--cert=rsa.key", "--key=rsa.key"),
    ("secret", "tls", "t", "--cert=foo.pem", "--key=rsa.key"),
    ("secret", "tls", "t", "--cert=rsa.crt", "--key=junk.txt"),
    ("secret", "tls", "t", "--cert=rsa.crt", "--key=rsa.crt"),
    ("secret", "tls", "t", "--cert=rsa.crt", "--key=foo.pem"),
    ("secret", "tls", "t", "--cert=bad.crt", "--key=rsa.key"),
    ("secret", "tls", "t", "--cert=rsa.crt", "--key=bad.key"),
    *(("secret", "tls", "t", f"--cert={broken}.crt", "--key=rsa.key")
      for broken in ("short", "trailing", "tbs", "version", "serial", "sigalg", "pubkey")),
    ("rolebinding", "r"),
    ("rolebinding", "r", "--role=a", "--clusterrole=b"),
    ("rolebinding", "r", "--role=a", "--serviceaccount=x"),
    ("job", "x", "--image=b", "--dry-run=bogus"),
]


@needs_kubectl
@pytest.mark.parametrize("args", BAD, ids=lambda a: "-".join(a))
def test_bad_flags_fail_with_kubectls_message(tmp_path: Path, args: tuple[str, ...]) -> None:
    _files(tmp_path)
    want = kubectl(tmp_path, "create", *args)
    got = kbatch(tmp_path, "create", *args)
    assert want.returncode != 0 and got.returncode == 1
    assert "Traceback" not in got.stderr
    assert _first_error(got.stderr) == _first_error(want.stderr)
    assert not (tmp_path / "state" / "state.kbatch").exists() or "created" not in got.stdout


def _first_error(text: str) -> str:
    """The error line; cobra's required-flag failure is logged by kubectl's ``run.go`` as
    ``"command failed" err="required flag(s) \\"x\\" not set"``, which kbatch prints as ``error:``."""
    for line in text.splitlines():
        if line.startswith("error: "):
            return line
        if '"command failed" err=' in line:
            return "error: " + line.split('err="', 1)[1].rstrip('"').replace('\\"', '"')
    return text
