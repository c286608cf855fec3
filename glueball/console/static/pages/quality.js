/* Data quality: rulesets; a ruleset's results with rule outcomes; its score over time per evaluation context,
 * with the runs that raised anomaly observations marked. */
"use strict";

(() => {
  const {h, link, table, glue, section, time, state, chart} = Console;

  /** Every result (up to 500), whole (BatchGetDataQualityResult, 100 at a time), oldest first. */
  async function results() {
    const ids = (await Console.all("glue", "ListDataQualityResults", {}, "Results", 500)).map(r => r.ResultId);
    const whole = [];
    for (let i = 0; i < ids.length; i += 100) {
      whole.push(...(await glue("BatchGetDataQualityResult", {ResultIds: ids.slice(i, i + 100)})).Results);
    }
    return whole.sort((a, b) => (a.StartedOn || 0) - (b.StartedOn || 0));
  }

  const anomalous = r => (r.Observations || []).length > 0;
  const score = r => r.Score === undefined ? "" : `${(r.Score * 100).toFixed(1)} %`;

  async function list(el) {
    el.append(h("h2", {}, "Data quality rulesets"));
    const body = h("div");
    el.append(body);
    await section(body, "rulesets", async () => {
      const rulesets = await Console.all("glue", "ListDataQualityRulesets", {}, "Rulesets", 500);
      return table([
        {title: "Ruleset", get: r => link(["quality", r.Name], r.Name)},
        {title: "Target", get: r => r.TargetTable ? `${r.TargetTable.DatabaseName}.${r.TargetTable.TableName}` : ""},
        {title: "Rules", get: r => r.RuleCount ?? ""},
        {title: "Updated", get: r => time(r.LastModifiedOn)},
      ], rulesets, {id: "rulesets"});
    });
  }

  function scoreCharts(found) {
    const contexts = new Map();
    for (const r of found) {
      const key = r.EvaluationContext || "(default)";
      if (!contexts.has(key)) contexts.set(key, []);
      contexts.get(key).push(r);
    }
    return [...contexts].map(([context, runs]) => chart(`score — ${context}`, runs.map(r => r.StartedOn), [
      {label: "score %", values: runs.map(r => r.Score === undefined ? null : r.Score * 100)},
      {label: "anomaly", points: true, colour: "#d73a49",
        values: runs.map(r => anomalous(r) && r.Score !== undefined ? r.Score * 100 : null)},
    ], {yLabel: "%"}));
  }

  async function ruleset(el, name) {
    el.append(h("h2", {}, link(["quality"], "Data quality"), " / ", name));
    const rules = h("div");
    const body = h("div");
    el.append(rules, body);
    section(rules, "ruleset", async () => {
      const r = await glue("GetDataQualityRuleset", {Name: name});
      return [h("pre", {class: "ruleset"}, r.Ruleset)];
    });
    await section(body, "results", async () => {
      const found = (await results()).filter(r => r.RulesetName === name);
      return [h("h3", {}, "Score over time"), h("div", {class: "charts", id: "score-charts"}, scoreCharts(found)),
        h("h3", {}, "Results"), table([
          {title: "Result", get: r => link(["quality", name, r.ResultId], r.ResultId)},
          {title: "Context", get: r => r.EvaluationContext || ""},
          {title: "Score", get: r => score(r)},
          {title: "Started", get: r => time(r.StartedOn)},
          {title: "Job run", get: r => r.JobRunId || ""},
          {title: "Anomalies", get: r => anomalous(r) ? h("span", {class: "anomaly"}, String(r.Observations.length))
            : ""},
        ], [...found].reverse(), {id: "dq-results"})];
    });
  }

  async function result(el, name, id) {
    el.append(h("h2", {}, link(["quality"], "Data quality"), " / ", link(["quality", name], name), " / ", id));
    const body = h("div");
    el.append(body);
    await section(body, "result", async () => {
      const r = await glue("GetDataQualityResult", {ResultId: id});
      return [h("dl", {class: "facts"}, [["Score", score(r)], ["Context", r.EvaluationContext],
        ["Started", time(r.StartedOn)], ["Completed", time(r.CompletedOn)]].filter(([, v]) => v)
        .map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
      h("h3", {}, "Rule outcomes"), table([
        {title: "Rule", get: o => o.Name}, {title: "Outcome", get: o => state(o.Result)},
        {title: "Message", get: o => o.EvaluationMessage || ""},
        {title: "Rule text", get: o => o.Description || ""},
      ], r.RuleResults || [], {id: "rule-outcomes"}),
      (r.Observations || []).length ? [h("h3", {}, "Observations"), table([
        {title: "Observation", get: o => o.Description || ""}], r.Observations)] : null].flat();
    });
  }

  Console.page("quality", {
    render(el, [name, id]) {
      if (id) return result(el, name, id);
      if (name) return ruleset(el, name);
      return list(el);
    },
  });
})();
