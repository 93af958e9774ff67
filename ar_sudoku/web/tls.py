"""A self-signed certificate for ``serve --https``: a phone's browser gives a page its camera only
over a secure connection, and on a home network there is no certificate authority to ask.

Made once with ``cryptography`` and kept in the user's cache folder (not the working directory),
so a phone that accepted it once keeps accepting it; made again when it expires or does not name
an address the server now answers on.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

VALID_DAYS = 397  # the longest that browsers accept for a server certificate


def default_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ar-sudoku" / "tls"


def _names(hosts: list[str]) -> list[x509.GeneralName]:
    out: list[x509.GeneralName] = [x509.DNSName("localhost")]
    for h in dict.fromkeys(["127.0.0.1", *hosts]):
        try:
            out.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            if h != "localhost":
                out.append(x509.DNSName(h))
    return out


def _usable(cert_path: Path, key_path: Path, names: list[x509.GeneralName]) -> bool:
    if not (cert_path.is_file() and key_path.is_file()):
        return False
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        have = set(cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value)
    except (ValueError, x509.ExtensionNotFound):
        return False
    fresh = cert.not_valid_after_utc - dt.datetime.now(dt.timezone.utc) > dt.timedelta(days=1)
    return fresh and set(names) <= have


def ensure_certificate(folder: Path, hosts: list[str]) -> tuple[Path, Path, bool]:
    """(cert.pem, key.pem, made now): the folder's certificate if it covers ``hosts``, else a new one."""
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    names = _names(hosts)
    if _usable(cert_path, key_path, names):
        return cert_path, key_path, False
    folder.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ar-sudoku on this computer")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_bytes = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption())
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # the key: readable by this user only
    with os.fdopen(fd, "wb") as f:
        f.write(key_bytes)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path, True


def fingerprint(cert_path: Path) -> str:
    """The SHA-256 fingerprint a browser shows in the certificate's details, to compare by eye."""
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))
