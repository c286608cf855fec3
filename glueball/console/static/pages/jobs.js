/* Jobs: the list with each job's last run; a job's runs (state, duration, DPU-seconds, error) with start and
 * stop; a visual job's graph (CodeGenConfigurationNodes); a run's logs (tailing while it runs) and metrics. */
"use strict";

(() => {
  const {h, link, table, glue, call, section, time, duration, state, every, chart} = Console;
  const ENDED = ["STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR", "EXPIRED"];

  async function list(el) {
    el.append(h("h2", {}, "Jobs"));
    const body = h("div");
    el.append(body);
    await section(body, "jobs", async () => {
      const jobs = await Console.all("glue", "GetJobs", {}, "Jobs", 500);
      const last = await Promise.all(jobs.map(j => glue("GetJobRuns", {JobName: j.Name, MaxResults: 1})
        .then(a => (a.JobRuns || [])[0], () => undefined)));
      const rows = jobs.map((j, i) => ({job: j, run: last[i]}));
      return table([
        {title: "Name", get: r => link(["jobs", r.job.Name], r.job.Name)},
        {title: "Type", get: r => r.job.Command.Name},
        {title: "Workers", get: r => r.job.NumberOfWorkers ? `${r.job.NumberOfWorkers} × ${r.job.WorkerType}` :
          r.job.MaxCapacity ? `${r.job.MaxCapacity} DPU` : ""},
        {title: "Last run", get: r => r.run ? state(r.run.JobRunState) : "never"},
        {title: "Started", get: r => r.run ? time(r.run.StartedOn) : ""},
        {title: "Duration", get: r => r.run ? duration(r.run.ExecutionTime) : ""},
      ], rows, {id: "jobs"});
    });
  }

  /** A visual job's nodes (CodeGenConfigurationNodes: id -> {NodeType: {Name, Inputs}}) as a graph. */
  function visualGraph(nodes) {
    const drawn = Object.entries(nodes).map(([id, node]) => {
      const [kind, spec] = Object.entries(node)[0] || ["", {}];
      return {id, label: (spec && spec.Name) || id, kind, inputs: (spec && spec.Inputs) || []};
    });
    const edges = drawn.flatMap(n => n.inputs.map(from => ({from, to: n.id})));
    return [h("h3", {}, "Visual job graph"), h("div", {id: "job-graph"}, Graph.draw(drawn, edges))];
  }

  async function job(el, name) {
    el.append(h("h2", {}, link(["jobs"], "Jobs"), " / ", name));
    const facts = h("div");
    const runs = h("div", {id: "job-runs"});
    const message = h("div", {id: "start-message"});
    el.append(facts, h("div", {class: "actions"},
      h("button", {id: "start-run", onclick: async () => {
        try {
          const started = await glue("StartJobRun", {JobName: name});
          location.hash = `#/jobs/${encodeURIComponent(name)}/${encodeURIComponent(started.JobRunId)}`;
        } catch (error) {
          message.replaceChildren(Console.refusal(error, "StartJobRun"));
        }
      }}, "Start run")), message, runs);
    section(facts, "job", async () => {
      const j = (await glue("GetJob", {JobName: name})).Job;
      const args = Object.entries(j.DefaultArguments || {});
      return [h("dl", {class: "facts"}, [["Type", j.Command.Name], ["Script", j.Command.ScriptLocation],
        ["Role", j.Role], ["Glue version", j.GlueVersion], ["Timeout", j.Timeout && `${j.Timeout} min`],
        ["Arguments", args.map(([k, v]) => `${k} ${v}`).join("  ")]]
        .filter(([, v]) => v).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
      j.CodeGenConfigurationNodes ? visualGraph(j.CodeGenConfigurationNodes) : null].flat();
    });
    let shown = "";
    every(3000, async () => {
      const found = (await glue("GetJobRuns", {JobName: name, MaxResults: 50})).JobRuns || [];
      const now = JSON.stringify(found.map(r => [r.Id, r.JobRunState, r.ExecutionTime]));
      if (now === shown) return;  // redrawn only when a run changed
      shown = now;
      const ended = found.filter(r => ENDED.includes(r.JobRunState)).reverse();
      runs.replaceChildren(h("h3", {}, "Runs"), h("div", {class: "charts", id: "run-charts"},
        chart("duration per run (s)", ended.map(r => r.StartedOn), [{label: "duration", values: ended.map(
          r => r.ExecutionTime ?? null)}]),
        chart("DPU-seconds per run", ended.map(r => r.StartedOn), [{label: "DPU-seconds", values: ended.map(
          r => r.DPUSeconds ?? null)}])), table([
          {title: "Run", get: r => link(["jobs", name, r.Id], r.Id)},
          {title: "State", get: r => state(r.JobRunState)},
          {title: "Started", get: r => time(r.StartedOn)},
          {title: "Duration", get: r => duration(r.ExecutionTime)},
          {title: "DPU-seconds", get: r => r.DPUSeconds !== undefined ? r.DPUSeconds.toFixed(0) : ""},
          {title: "Trigger", get: r => r.TriggerName || ""},
          {title: "Error", get: r => r.ErrorMessage || ""},
          {title: "", get: r => ENDED.includes(r.JobRunState) ? "" : h("button", {class: "stop", onclick: () =>
            glue("BatchStopJobRun", {JobName: name, JobRunIds: [r.Id]}).catch(e => message.replaceChildren(
              Console.refusal(e, "BatchStopJobRun")))}, "Stop")},
        ], found));
    }, runs);
  }

  /** A log stream that grows (CloudWatch Logs): asks for what follows the last token while the run has not
   * ended, or while lines still come. */
  function tail(name, runId, which, holder) {
    const pre = h("pre", {class: "log", id: `log-${which}`});
    holder.append(h("h3", {}, which === "output" ? "Output log" : "Error log"), pre);
    let token = "";
    every(2000, async () => {
      const piece = await Console.api(`job-log?job=${encodeURIComponent(name)}&run=${encodeURIComponent(runId)}` +
        `&log=${which}&token=${encodeURIComponent(token)}`);
      if (piece.Text) pre.append(piece.Text);
      token = piece.Next;
      return !ENDED.includes(piece.JobRunState) || piece.Text.length > 0;
    }, pre);
  }

  async function run(el, name, runId) {
    el.append(h("h2", {}, link(["jobs"], "Jobs"), " / ", link(["jobs", name], name), " / ", runId));
    const summary = h("div", {id: "run-summary"});
    const metrics = h("div", {id: "run-metrics"});
    const logs = h("div", {class: "logs"});
    el.append(summary, metrics, logs);
    every(2000, async () => {
      let ended = false;
      await section(summary, "run", async () => {
        const r = (await glue("GetJobRun", {JobName: name, RunId: runId})).JobRun;
        ended = ENDED.includes(r.JobRunState);
        return h("dl", {class: "facts"}, [["State", state(r.JobRunState)], ["Started", time(r.StartedOn)],
          ["Ended", time(r.CompletedOn)], ["Duration", duration(r.ExecutionTime)],
          ["DPU-seconds", r.DPUSeconds !== undefined ? r.DPUSeconds.toFixed(1) : ""],
          ["Attempt", r.Attempt], ["Error", r.ErrorMessage]].filter(([, v]) => v !== undefined && v !== "")
          .map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
      });
      await section(metrics, "metrics", async () => {
        const m = await call("glueball", "GetJobRunMetrics", {JobName: name, RunId: runId});
        const figures = Object.entries(m.Metrics || {});
        return [h("h3", {}, "Metrics"), figures.length ? h("dl", {class: "facts"},
          figures.map(([k, v]) => [h("dt", {}, k.replace(/_/g, " ")), h("dd", {}, Number(v).toLocaleString())]))
          : h("p", {class: "empty"}, "no metrics yet"),
        m.StreamingMetrics ? h("p", {}, link(["streaming", name, runId], "streaming batch charts")) : null];
      });
      return !ended;
    });
    tail(name, runId, "output", logs);
    tail(name, runId, "error", logs);
  }

  Console.page("jobs", {
    render(el, [name, runId]) {
      if (runId) return run(el, name, runId);
      if (name) return job(el, name);
      return list(el);
    },
  });
})();
