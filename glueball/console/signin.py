"""Console sign-ins: a random token in an HttpOnly cookie, the credentials it stands for kept server-side.

A sign-in is a file under ``$GLUEBALL_HOME/console/sessions`` (mode 0600) named by the SHA-256 of its
token, so every worker process of one server (``--workers``) knows it and the token itself is never
stored. The secret stays on the server (never in the cookie, never in a log).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path

COOKIE = "glueball_console"
LIFETIME = 12 * 3600  # seconds a sign-in lasts


@dataclass(frozen=True)
class Credentials:
    """What the console signs its calls with for one signed-in principal."""

    access_key: str
    secret: str
    token: str | None = None
    arn: str = ""  # who signed in, as STS GetCallerIdentity answered
    expires: float = 0.0


class SignIns:
    """The console's sign-ins of one installation."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, token: str) -> Path:
        return self.folder / hashlib.sha256(token.encode()).hexdigest()

    def add(self, credentials: Credentials) -> str:
        """Keep ``credentials`` for a new sign-in; its cookie token."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        token = secrets.token_urlsafe(32)
        kept = Credentials(credentials.access_key, credentials.secret, credentials.token, credentials.arn,
                           time.time() + LIFETIME)
        fd = os.open(self._path(token), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(asdict(kept), out)
        return token

    def get(self, token: str | None) -> Credentials | None:
        """The credentials of a sign-in's token; None when unknown or expired (an expired one is removed)."""
        if not token:
            return None
        path = self._path(token)
        try:
            found = Credentials(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            return None
        if found.expires < time.time():
            path.unlink(missing_ok=True)
            return None
        return found

    def remove(self, token: str | None) -> None:
        """End a sign-in."""
        if token:
            self._path(token).unlink(missing_ok=True)
