/* Workflows: the list with each one's last run; a workflow's runs; a run's graph drawn as a DAG of its jobs
 * and crawlers with their states and times (triggers become the edges), updating while it runs; run
 * properties; resume a run whose nodes failed. */
"use strict";

(() => {
  const {h, link, table, glue, section, time, duration, state, every} = Console;
  const FAILED = ["FAILED", "TIMEOUT", "ERROR", "STOPPED", "CANCELLED"];

  async function list(el) {
    el.append(h("h2", {}, "Workflows"));
    const body = h("div");
    el.append(body);
    await section(body, "workflows", async () => {
      const names = await Console.all("glue", "ListWorkflows", {}, "Workflows", 500);
      const found = names.length ? (await glue("BatchGetWorkflows", {Names: names.slice(0, 25)})).Workflows : [];
      return table([
        {title: "Name", get: w => link(["workflows", w.Name], w.Name)},
        {title: "Description", get: w => w.Description || ""},
        {title: "Last run", get: w => w.LastRun ? state(w.LastRun.Status) : "never"},
        {title: "Started", get: w => w.LastRun ? time(w.LastRun.StartedOn) : ""},
      ], found, {id: "workflows"});
    });
  }

  /** A node's latest run: {state, started, ended, id}. */
  function latest(node) {
    const job = ((node.JobDetails || {}).JobRuns || [])[0];
    if (job) return {state: job.JobRunState, started: job.StartedOn, ended: job.CompletedOn, error: job.ErrorMessage};
    const crawl = ((node.CrawlerDetails || {}).Crawls || [])[0];
    if (crawl) return {state: crawl.State, started: crawl.StartedOn, ended: crawl.CompletedOn,
      error: crawl.ErrorMessage};
    return {};
  }

  /** The run graph as jobs and crawlers; an edge action -> trigger -> action becomes action -> action. */
  function draw(graph) {
    const nodes = graph.Nodes || [];
    const byId = Object.fromEntries(nodes.map(n => [n.UniqueId, n]));
    const edges = graph.Edges || [];
    const actions = nodes.filter(n => n.Type !== "TRIGGER");
    const joined = [];
    for (const e of edges) {
      const source = byId[e.SourceId];
      if (!source || source.Type === "TRIGGER") continue;
      for (const out of edges.filter(x => x.SourceId === e.DestinationId)) {
        if (byId[e.DestinationId] && byId[e.DestinationId].Type === "TRIGGER") {
          joined.push({from: e.SourceId, to: out.DestinationId});
        }
      }
      if (byId[e.DestinationId] && byId[e.DestinationId].Type !== "TRIGGER") {
        joined.push({from: e.SourceId, to: e.DestinationId});
      }
    }
    return Graph.draw(actions.map(n => {
      const run = latest(n);
      const took = run.started ? duration((run.ended || Date.now() / 1000) - run.started) : "";
      return {id: n.UniqueId, label: n.Name, kind: n.Type.toLowerCase(), state: run.state || "NOT STARTED",
        detail: took};
    }), joined);
  }

  async function workflow(el, name) {
    el.append(h("h2", {}, link(["workflows"], "Workflows"), " / ", name));
    const body = h("div");
    el.append(body);
    every(3000, () => section(body, "runs", async () => {
      const runs = (await glue("GetWorkflowRuns", {Name: name, MaxResults: 50})).Runs || [];
      return table([
        {title: "Run", get: r => link(["workflows", name, r.WorkflowRunId], r.WorkflowRunId)},
        {title: "Status", get: r => state(r.Status)},
        {title: "Started", get: r => time(r.StartedOn)},
        {title: "Ended", get: r => time(r.CompletedOn)},
        {title: "Actions", get: r => {
          const s = r.Statistics || {};
          return `${s.SucceededActions || 0} succeeded, ${s.FailedActions || 0} failed, ` +
            `${s.RunningActions || 0} running of ${s.TotalActions || 0}`;
        }},
      ], runs, {id: "workflow-runs"});
    }));
  }

  async function run(el, name, runId) {
    el.append(h("h2", {}, link(["workflows"], "Workflows"), " / ", link(["workflows", name], name), " / ", runId));
    const graph = h("div", {id: "run-graph"});
    const facts = h("div");
    const message = h("div", {id: "resume-message"});
    const props = h("div");
    el.append(facts, graph, message, props);
    section(props, "run properties", async () => {
      const found = (await glue("GetWorkflowRunProperties", {Name: name, RunId: runId})).RunProperties || {};
      return [h("h3", {}, "Run properties"), table([{title: "Property", get: p => p[0]},
        {title: "Value", get: p => p[1]}], Object.entries(found), {id: "run-properties"})];
    });
    every(2000, async () => {
      const r = (await glue("GetWorkflowRun", {Name: name, RunId: runId, IncludeGraph: true})).Run;
      const failed = (r.Graph.Nodes || []).filter(n => n.Type !== "TRIGGER" && FAILED.includes(latest(n).state));
      facts.replaceChildren(h("dl", {class: "facts"}, [["Status", state(r.Status)], ["Started", time(r.StartedOn)],
        ["Ended", time(r.CompletedOn)], ["Error", r.ErrorMessage]].filter(([, v]) => v)
        .map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
      failed.length && r.Status !== "RUNNING" ? h("button", {id: "resume", onclick: async () => {
        try {
          const resumed = await glue("ResumeWorkflowRun", {Name: name, RunId: runId,
            NodeIds: failed.map(n => n.UniqueId)});
          location.hash = `#/workflows/${encodeURIComponent(name)}/${encodeURIComponent(resumed.RunId)}`;
        } catch (error) {
          message.replaceChildren(Console.refusal(error, "ResumeWorkflowRun"));
        }
      }}, `Resume ${failed.length} failed node(s)`) : "");
      graph.replaceChildren(draw(r.Graph || {}));
      return r.Status === "RUNNING" || r.Status === "STOPPING";
    }, graph);
  }

  Console.page("workflows", {
    render(el, [name, runId]) {
      if (runId) return run(el, name, runId);
      if (name) return workflow(el, name);
      return list(el);
    },
  });
})();
