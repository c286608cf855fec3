"""``GlueTransform``: the base of every transform class, with upstream's class-level ``apply``."""

from __future__ import annotations

from typing import Any


class GlueTransform:
    """A transform: ``Transform.apply(frame=..., ...)`` runs it; ``describe()`` documents it."""

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        return cls()(*args, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not implement __call__")

    @classmethod
    def name(cls) -> str:
        return cls.__name__

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return []

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrame"}

    @classmethod
    def describeTransform(cls) -> str:  # noqa: N802
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""

    @classmethod
    def describeErrors(cls) -> list[dict[str, Any]]:  # noqa: N802
        return []

    @classmethod
    def describe(cls) -> dict[str, Any]:
        return {"transform": {"name": cls.name(), "args": cls.describeArgs(),
                              "returns": cls.describeReturn(), "description": cls.describeTransform(),
                              "raises": cls.describeErrors()}}
