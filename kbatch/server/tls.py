"""``kbatch serve --tls``: a self-signed serving certificate, so that kubectl sends credentials.

client-go applies a kubeconfig user's credentials (``token``, ``--token``) only when the server URL
is ``https`` (k8s.io/client-go ``tools/clientcmd/client_config.go``, ``ClientConfig``: the user's
identification is merged only ``if isHTTPS(server)``): against plain HTTP, ``kubectl --token=…``
sends nothing and acts as whoever the server makes of an anonymous request. With ``--tls`` the
server speaks HTTPS with a P-256 certificate for ``localhost``, ``127.0.0.1``, ``::1`` (and the bound
address), valid 2000-2100 (no wall clock is read), which is also its own CA: the kubeconfig carries
it as ``certificate-authority-data``. The key is drawn from the operating system once and kept in
``<state>/tls/`` (a serving key derived from the seed would be no secret); no simulated decision
depends on it.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

__all__ = ["ServingCert", "serving_cert"]

NOT_BEFORE = datetime(2000, 1, 1, tzinfo=UTC)
NOT_AFTER = datetime(2100, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class ServingCert:
    cert_file: Path
    key_file: Path
    ca_pem: bytes  # the certificate itself: it signs itself
    admin_cert_pem: bytes = b""  # kubernetes-admin in system:masters, signed by it (the kubeconfig's user)
    admin_key_pem: bytes = b""


def _names(hosts: tuple[str, ...]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = [x509.DNSName("localhost")]
    for host in ("127.0.0.1", "::1", *hosts):
        try:
            ip = x509.IPAddress(ipaddress.ip_address(host))
        except ValueError:
            name: x509.GeneralName = x509.DNSName(host)
        else:
            name = ip
        if name not in names:
            names.append(name)
    return names


def _covers(cert: x509.Certificate, names: list[x509.GeneralName]) -> bool:
    try:
        have = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    return all(n in list(have) for n in names)


def _make(names: list[x509.GeneralName], key: ec.EllipticCurvePrivateKey) -> x509.Certificate:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kbatch-serve")])
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
               .public_key(key.public_key()).serial_number(1)
               .not_valid_before(NOT_BEFORE).not_valid_after(NOT_AFTER)
               .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
               .add_extension(x509.SubjectAlternativeName(names), critical=False))
    return builder.sign(key, hashes.SHA256(), ecdsa_deterministic=True)


def _admin(ca: x509.Certificate, ca_key: ec.EllipticCurvePrivateKey) -> tuple[bytes, bytes]:
    """A client certificate as kubeadm's ``admin.conf`` has (CN the user, O its group): kubectl needs a
    credential in the kubeconfig over HTTPS, or it prompts for a password. kbatch does not ask for
    client certificates; a request without a bearer token is the local administrator's anyway."""
    key = ec.derive_private_key(int.from_bytes(ca.fingerprint(hashes.SHA256()), "big") % (2**255) + 1,
                                ec.SECP256R1())  # no secret: the certificate is never checked
    subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "system:masters"),
                         x509.NameAttribute(NameOID.COMMON_NAME, "kubernetes-admin")])
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(2)
            .not_valid_before(NOT_BEFORE).not_valid_after(NOT_AFTER)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256(), ecdsa_deterministic=True))
    pem = serialization.Encoding.PEM
    return cert.public_bytes(pem), key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                                     serialization.NoEncryption())


def _load(cert_file: Path, key_file: Path) -> ServingCert:
    cert = x509.load_pem_x509_certificate(cert_file.read_bytes())
    key = serialization.load_pem_private_key(key_file.read_bytes(), None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return ServingCert(cert_file, key_file, cert_file.read_bytes(), *_admin(cert, key))


def serving_cert(directory: Path, hosts: tuple[str, ...] = ()) -> ServingCert:
    """The certificate and key in ``directory`` (``tls.crt``, ``tls.key``), made or remade when
    missing or not naming every host."""
    cert_file, key_file = directory / "tls.crt", directory / "tls.key"
    names = _names(hosts)
    if cert_file.exists() and key_file.exists():
        cert = x509.load_pem_x509_certificate(cert_file.read_bytes())
        if _covers(cert, names):
            return _load(cert_file, key_file)
    key = ec.generate_private_key(ec.SECP256R1())  # the one draw from the OS (module docstring)
    directory.mkdir(parents=True, exist_ok=True)
    pem = serialization.Encoding.PEM
    key_bytes = key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key_bytes)
    cert_file.write_bytes(_make(names, key).public_bytes(pem))
    return _load(cert_file, key_file)
