"""``Glueball.GetUsage``: usage grouped as asked, for the caller's account and region."""

from __future__ import annotations

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.store.scoped import Scope
from glueball.usage.area import INTERNAL_OPERATIONS, UsageNeeds
from glueball.usage.models import PRICE_PER_DPU_HOUR, UsageKind
from glueball.usage.service import UsageService


def _epoch(value: object) -> float | None:
    if value is None:
        return None
    if hasattr(value, "timestamp"):
        return float(value.timestamp())
    return float(value)  # type: ignore[arg-type]


@INTERNAL_OPERATIONS.operation("GetUsage")
def get_usage(needs: UsageNeeds, caller: Caller, request: Request) -> Response:
    service = UsageService(needs.store, Scope(caller.account_id, caller.region))
    kinds = [UsageKind(k) for k in request.get("Kinds") or []] or None
    groups = service.grouped(request.get("GroupBy") or ["resource"], _epoch(request.get("Since")),
                             _epoch(request.get("Until")), kinds)
    return {"Groups": [{"Keys": g.keys, "Runs": g.runs, "DpuSeconds": round(g.dpu_seconds, 4),
                        "EstimatedCost": round(g.cost, 6)} for g in groups],
            "Currency": "USD", "PricePerDpuHour": PRICE_PER_DPU_HOUR}
