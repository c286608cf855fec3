"""The driver of a rule recommendation run: profile the table, recommend DQDL rules.

Mirrors StartDataQualityRuleRecommendationRun (RecommendationMode BASIC): the driver reads
the run's catalog table like a Glue job, profiles every column in one pass
(:func:`glueball.dataquality.profile.profile`: completeness, distinct values, value sets,
ranges, types) and turns the profile into rules
(:func:`glueball.dataquality.profile.recommend`). The run's ``RecommendedRuleset`` is the
DQDL document ``Rules = [ ... ]`` of those rules; with ``CreatedRulesetName`` the service
creates that ruleset when the run succeeds (:func:`glueball.dataquality.service.finish_run`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from glueball.dataquality.parser import parse


def ruleset_text(rules: Sequence[str]) -> str:
    """The DQDL document of recommended rule texts, one rule a line, checked by the parser.

    Raises:
        ValueError: no rule was recommended (DQDL has no empty ruleset).
        DqdlError: a recommended rule is not valid DQDL (a bug of the recommender).
    """
    if not rules:
        raise ValueError("no rules could be recommended for this table (it has no columns or no rows to profile)")
    body = ",\n".join(f"    {rule}" for rule in rules)
    text = f"Rules = [\n{body}\n]\n"
    parse(text)
    return text


def recommend_run(info: Mapping[str, Any]) -> str:
    """Profile the run's table and return the recommended ruleset (DQDL)."""
    from glueball.dataquality.profile import profile, recommend
    from glueball.dataquality.reading import glue_context, read_source

    frame = read_source(glue_context(), info["Spec"]["DataSource"])
    rules = recommend(profile(frame))
    text = ruleset_text(list(rules))
    print(f"recommended {len(rules)} rule(s)", flush=True)
    return text
