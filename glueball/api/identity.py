"""Who a request is served for: the caller's access key, account and region.

The edge works this out from the request (the SigV4 credential scope and the access key's
account, :mod:`glueball.edge.sigv4`); handlers receive it and keep state per account and region.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Caller:
    """The identity a request is served for."""

    access_key: str | None
    account_id: str
    region: str
