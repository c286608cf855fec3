"""Throwaway TLS material for the suite's servers: a self-signed CA, a server certificate for 127.0.0.1 and
localhost, and a client certificate in a JKS keystore (the kind a Glue KAFKA connection names in
``KAFKA_CLIENT_KEYSTORE``). Made with ``openssl`` (keys, certificates) and the JDK's ``keytool`` (JKS)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tools.services.base import ServiceError

DAYS = "30"


@dataclass(frozen=True)
class Certificates:
    """Where the files are, and the client keystore's passwords (distinct, as Glue keeps two)."""

    folder: Path
    ca: Path                   # the CA certificate (PEM): what a client trusts (KAFKA_CUSTOM_CERT)
    server_keystore: Path      # the server's key and certificate chain (PEM, unencrypted PKCS#8 key)
    client_keystore: Path      # the client's key and certificate (JKS)
    client_keystore_password: str = "client-store-secret"
    client_key_password: str = "client-key-secret"


def _run(argv: list[str], folder: Path) -> None:
    done = subprocess.run(argv, cwd=folder, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise ServiceError(f"{' '.join(argv[:2])} failed: {(done.stderr or done.stdout).strip()[-1500:]}")


def _tool(name: str, package: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise ServiceError(f"{name} not found: the suite's TLS certificates need it (Debian: {package})")
    return found


def _signed(openssl: str, folder: Path, name: str, subject: str, extensions: str) -> None:
    """``<name>.key`` and ``<name>.crt``, signed by the CA in ``folder``."""
    _run([openssl, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
          "-subj", subject], folder)
    (folder / f"{name}.ext").write_text(extensions)
    _run([openssl, "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
          "-out", f"{name}.crt", "-days", DAYS, "-sha256", "-extfile", f"{name}.ext"], folder)


def make_certificates(folder: Path) -> Certificates:
    """A CA, a server certificate (SAN 127.0.0.1 and localhost) and a client keystore under ``folder``.

    Raises:
        ServiceError: openssl or keytool is missing or failed (their message included).
    """
    openssl = _tool("openssl", "openssl")
    keytool = _tool("keytool", "a JDK, e.g. openjdk-17-jdk-headless")
    folder.mkdir(parents=True, exist_ok=True)
    _run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
          "-days", DAYS, "-sha256", "-subj", "/CN=glueball-test-ca",
          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"], folder)
    _signed(openssl, folder, "server", "/CN=localhost",
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    _signed(openssl, folder, "client", "/CN=glueball-client", "extendedKeyUsage=clientAuth\n")
    server = folder / "server-keystore.pem"
    server.write_text("".join((folder / part).read_text() for part in ("server.key", "server.crt", "ca.pem")))
    certificates = Certificates(folder, folder / "ca.pem", server, folder / "client.jks")
    _run([openssl, "pkcs12", "-export", "-inkey", "client.key", "-in", "client.crt", "-certfile", "ca.pem",
          "-name", "client", "-out", "client.p12", "-passout", f"pass:{certificates.client_keystore_password}"],
         folder)
    _run([keytool, "-importkeystore", "-noprompt", "-srckeystore", "client.p12", "-srcstoretype", "PKCS12",
          "-srcstorepass", certificates.client_keystore_password, "-srcalias", "client",
          "-destkeystore", "client.jks", "-deststoretype", "JKS",
          "-deststorepass", certificates.client_keystore_password, "-destalias", "client",
          "-destkeypass", certificates.client_key_password], folder)
    return certificates
