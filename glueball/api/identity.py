"""Who is calling: the access key of a SigV4 ``Authorization`` header, and its account.

Signatures are not verified yet (that belongs to the security work); the access
key and the credential scope's region are read so that catalog state is kept
per account and region.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from glueball.config import DEFAULT_ACCOUNT_ID

_CREDENTIAL = re.compile(
    r"Credential=(?P<key>[^/,\s]+)/(?P<date>\d{8})/(?P<region>[^/,\s]+)/(?P<service>[^/,\s]+)/aws4_request"
)


@dataclass(frozen=True)
class Caller:
    """The identity a request is served for."""

    access_key: str | None
    account_id: str
    region: str


def parse_authorization(header: str | None) -> tuple[str | None, str | None]:
    """The access key id and region of a SigV4 ``Authorization`` header, if present."""
    if not header or not header.startswith("AWS4-HMAC-SHA256"):
        return None, None
    match = _CREDENTIAL.search(header)
    if match is None:
        return None, None
    return match.group("key"), match.group("region")


_ACCOUNT_ID = re.compile(r"\d{12}")


def parse_key_mappings(mappings: list[str]) -> dict[str, str]:
    """``["AKID=111122223333", ...]`` as a dict; raises ValueError naming a malformed entry."""
    keys: dict[str, str] = {}
    for mapping in mappings:
        key, sep, account = mapping.strip().partition("=")
        if not sep or not key or _ACCOUNT_ID.fullmatch(account) is None:
            raise ValueError(f"{mapping!r} is not KEY=ACCOUNT with a 12-digit account id")
        keys[key] = account
    return keys


class AccountDirectory:
    """Maps access keys to account ids; unknown keys belong to the default account."""

    def __init__(self, keys: Mapping[str, str] | None = None, default_account: str = DEFAULT_ACCOUNT_ID):
        self.keys = dict(keys or {})
        self.default_account = default_account

    def account_for(self, access_key: str | None) -> str:
        if access_key is None:
            return self.default_account
        return self.keys.get(access_key, self.default_account)

    def caller(self, authorization: str | None, default_region: str) -> Caller:
        key, region = parse_authorization(authorization)
        return Caller(access_key=key, account_id=self.account_for(key), region=region or default_region)
