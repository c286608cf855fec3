"""``Glueball.GetUsage``: usage grouped as asked, for the caller's account and region."""

from __future__ import annotations

import datetime as dt

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.errors import InvalidInputException
from glueball.store.scoped import Scope
from glueball.usage.area import INTERNAL_OPERATIONS, UsageNeeds
from glueball.usage.models import PRICE_PER_DPU_HOUR, UsageKind
from glueball.usage.service import UsageService


def _epoch(request: Request, member: str) -> float | None:
    """A timestamp member as epoch seconds (JSON clients send numbers; ISO 8601 text is read too)."""
    value = request.get(member)
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            return (moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)).timestamp()
        except ValueError:
            pass
    raise InvalidInputException(f"{member} must be a time (epoch seconds or ISO 8601), got {value!r}")


def _strings(request: Request, member: str) -> list[str]:
    value = request.get(member) or []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidInputException(f"{member} must be a list of strings, got {value!r}")
    return value


def _kinds(request: Request) -> list[UsageKind] | None:
    names = _strings(request, "Kinds")
    known = [kind.value for kind in UsageKind]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise InvalidInputException(f"Kinds {unknown!r}: expected some of {', '.join(known)}")
    return [UsageKind(name) for name in names] or None


@INTERNAL_OPERATIONS.operation("GetUsage")
def get_usage(needs: UsageNeeds, caller: Caller, request: Request) -> Response:
    service = UsageService(needs.store, Scope(caller.account_id, caller.region))
    groups = service.grouped(_strings(request, "GroupBy") or ["resource"], _epoch(request, "Since"),
                             _epoch(request, "Until"), _kinds(request))
    return {"Groups": [{"Keys": g.keys, "Runs": g.runs, "DpuSeconds": round(g.dpu_seconds, 4),
                        "EstimatedCost": round(g.cost, 6)} for g in groups],
            "Currency": "USD", "PricePerDpuHour": PRICE_PER_DPU_HOUR}
