"""The SigV4 credential scope of a request, and the accounts that access keys belong to.

Signatures are not verified yet (that belongs to the identity work); the access key, the
credential scope's region and its service are read: the region and the key's account decide
whose state a request reaches, and the service routes requests that carry no other mark
(the query protocol's IAM and STS).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs

from glueball.api.identity import Caller
from glueball.config import DEFAULT_ACCOUNT_ID

_CREDENTIAL = re.compile(
    r"Credential=(?P<key>[^/,\s]+)/(?P<date>\d{8})/(?P<region>[^/,\s]+)/(?P<service>[^/,\s]+)/aws4_request"
)
_QUERY_CREDENTIAL = re.compile(r"(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request")


@dataclass(frozen=True)
class CredentialScope:
    """``<access key>/<date>/<region>/<service>/aws4_request`` of a signed request."""

    access_key: str
    date: str
    region: str
    service: str


def credential_scope(authorization: str | None, query: str = "") -> CredentialScope | None:
    """The credential scope of an ``Authorization`` header or of a presigned URL's ``X-Amz-Credential``."""
    if authorization and authorization.startswith("AWS4-HMAC-SHA256"):
        match = _CREDENTIAL.search(authorization)
        if match is not None:
            return CredentialScope(match["key"], match["date"], match["region"], match["service"])
        return None
    if query and "X-Amz-Credential" in query:
        values = parse_qs(query).get("X-Amz-Credential")
        match = _QUERY_CREDENTIAL.fullmatch(values[0]) if values else None
        if match is not None:
            return CredentialScope(match["key"], match["date"], match["region"], match["service"])
    return None


def parse_authorization(header: str | None) -> tuple[str | None, str | None]:
    """The access key id and region of a SigV4 ``Authorization`` header, if present."""
    scope = credential_scope(header)
    return (scope.access_key, scope.region) if scope is not None else (None, None)


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

    def caller(self, scope: CredentialScope | None, default_region: str, source_ip: str | None = None) -> Caller:
        key = scope.access_key if scope is not None else None
        region = scope.region if scope is not None else None
        return Caller(access_key=key, account_id=self.account_for(key), region=region or default_region,
                      source_ip=source_ip)
