"""The console's pages: one JavaScript module each (``static/pages/<name>.js``), shown when the
installation answers the operation the page is built on.

A page for a new area is one module here and one entry in :data:`PAGES` (the schema registry's page,
for example, needs ``glue:ListRegistries``); the page then registers itself in the browser with
``Console.page(name, {...})`` (see ``static/console.js``).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

STATIC = Path(__file__).parent / "static"


@dataclass(frozen=True)
class Page:
    """A page of the console: its module name, title in the menu, and the operation it is built on."""

    name: str
    title: str
    service: str
    operation: str


PAGES = (
    Page("catalog", "Catalog", "glue", "GetTables"),
    Page("query", "Query editor", "athena", "StartQueryExecution"),
    Page("connections", "Connections", "glue", "GetConnections"),
    Page("registry", "Schema registry", "glue", "ListRegistries"),
    Page("crawlers", "Crawlers", "glue", "GetCrawlers"),
    Page("jobs", "Jobs", "glue", "GetJobs"),
    Page("workflows", "Workflows", "glue", "ListWorkflows"),
    Page("quality", "Data quality", "glue", "ListDataQualityRulesets"),
    Page("streaming", "Streaming", "glueball", "GetJobRunMetrics"),
    Page("sessions", "Sessions", "glue", "ListSessions"),
    Page("spend", "Spend", "glueball", "GetUsage"),
)


def available(implemented: Callable[[str], frozenset[str]]) -> list[Page]:
    """The pages whose operation the installation answers and whose module is in the package."""
    return [page for page in PAGES
            if page.operation in implemented(page.service) and (STATIC / "pages" / f"{page.name}.js").is_file()]


def index_html(pages: list[Page], settings: dict[str, object]) -> str:
    """The console's one HTML page: the vendored libraries, the core, and each available page's module."""
    menu = [{"name": p.name, "title": p.title} for p in pages]
    config = json.dumps({**settings, "pages": menu}).replace("</", "<\\/")
    scripts = "\n".join(f'<script src="static/pages/{html.escape(p.name)}.js"></script>' for p in pages)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>glueball console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="static/vendor/uPlot.min.css">
<link rel="stylesheet" href="static/console.css">
</head>
<body>
<header><a class="brand" href="#/">glueball</a><nav id="menu"></nav><span id="who"></span></header>
<main id="page"></main>
<script id="console-config" type="application/json">{config}</script>
<script src="static/vendor/uPlot.iife.min.js"></script>
<script src="static/vendor/dagre.min.js"></script>
<script src="static/console.js"></script>
<script src="static/graph.js"></script>
{scripts}
<script>Console.start();</script>
</body>
</html>
"""
