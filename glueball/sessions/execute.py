"""Running one statement's code as a Glue session runs it, and its output in Glue's shape.

The code runs in the session's namespace (``spark``, ``sc``, ``glueContext`` and whatever earlier
statements defined). If its last statement is an expression, its value is shown after what the
code printed on stdout, as a notebook shows it (``repr``; nothing for ``None``). The output is Glue's
``StatementOutput``: ``Status`` ``ok`` with ``Data.TextPlain``, or ``error`` with ``ErrorName``
(the exception's class), ``ErrorValue`` (its message) and ``Traceback`` (lines, the statement's
own frames only). ``%matplot NAME`` draws the matplotlib figure (or ``pyplot``) NAME as Glue does:
``Data`` is then ``MimeType`` ``image/png`` with the base64 PNG in ``Result`` and the text in
``StdOut``, the form Glue's kernel displays. The Spark jobs a statement starts belong to its job
group, so cancelling the statement cancels them.
"""

from __future__ import annotations

import ast
import contextlib
import io
import traceback
from typing import Any

Namespace = dict[str, Any]
_FILENAME = "<statement>"


def glue_namespace() -> Namespace:
    """What a Glue session's statements start with: ``spark``, ``sc`` and ``glueContext`` (Spark started)."""
    from pyspark.context import SparkContext

    from awsglue.context import GlueContext
    from glueball.runtime.spark import spark_session

    spark = spark_session(app_name="glueball-session")
    sc = SparkContext.getOrCreate()
    glue_context = GlueContext(sc)
    return {"__name__": "__main__", "__builtins__": __builtins__, "spark": spark, "sc": sc,
            "glueContext": glue_context}


def run_code(code: str, namespace: Namespace, job_group: str, execution_count: int) -> dict[str, Any]:
    """Run ``code`` in ``namespace``; Glue's ``StatementOutput`` of it."""
    code, plots = _plot_magics(code)
    out = io.StringIO()
    context = namespace.get("sc")
    if context is not None:
        context.setJobGroup(job_group, f"statement {execution_count - 1}", interruptOnCancel=True)
    try:
        tree = ast.parse(code, _FILENAME, "exec")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        assert last is None or isinstance(last, ast.Expr)
        with contextlib.redirect_stdout(out):  # stderr (Spark's and loggers' noise) stays in the driver's log
            exec(compile(tree, _FILENAME, "exec"), namespace)  # noqa: S102 - running the user's code is the point
            if last is not None:
                value = eval(compile(ast.Expression(last.value), _FILENAME, "eval"), namespace)  # noqa: S307
                if value is not None:
                    print(repr(value))
    except BaseException as exc:  # noqa: BLE001 - every failure of the user's code is the statement's output
        if isinstance(exc, SystemExit) and exc.code in (None, 0):
            return _ok(out.getvalue(), execution_count)
        name = "KeyboardInterrupt" if isinstance(exc, KeyboardInterrupt) else type(exc).__name__
        lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
        own = [line for line in lines if _FILENAME in line or not line.startswith("  File ")]
        return {"Data": {"TextPlain": out.getvalue()}, "ExecutionCount": execution_count, "Status": "error",
                "ErrorName": name, "ErrorValue": str(exc), "Traceback": own}
    finally:
        if context is not None:
            context.setLocalProperty("spark.jobGroup.id", None)
    if plots:
        try:
            image = _png(namespace, plots[-1])
        except Exception as exc:  # noqa: BLE001 - a plot that cannot be drawn is the statement's error
            return {"Data": {"TextPlain": out.getvalue()}, "ExecutionCount": execution_count, "Status": "error",
                    "ErrorName": type(exc).__name__, "ErrorValue": f"%matplot {plots[-1]}: {exc}",
                    "Traceback": []}
        return {"Data": {"MimeType": "image/png", "Result": image, "StdOut": out.getvalue()},
                "ExecutionCount": execution_count, "Status": "ok"}
    return _ok(out.getvalue(), execution_count)


def _plot_magics(code: str) -> tuple[str, list[str]]:
    """``%matplot NAME`` lines (Glue's: show the matplotlib figure or ``pyplot`` called NAME) taken out of the
    code, which the kernel sends with them."""
    kept, plots = [], []
    for line in code.splitlines():
        stripped = line.strip()
        if stripped.startswith("%matplot"):
            plots.append(stripped.removeprefix("%matplot").strip() or "plt")
        else:
            kept.append(line)
    return "\n".join(kept), plots


def _png(namespace: Namespace, name: str) -> str:
    """The figure ``name`` refers to (a Figure, or the ``pyplot`` module: its current figure), as base64 PNG."""
    import base64

    target = eval(name, namespace)  # noqa: S307 - a name (or expression) of the user's namespace
    figure = target.gcf() if hasattr(target, "gcf") else target
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode()


def _ok(text: str, execution_count: int) -> dict[str, Any]:
    return {"Data": {"TextPlain": text.rstrip("\n")}, "ExecutionCount": execution_count, "Status": "ok"}
