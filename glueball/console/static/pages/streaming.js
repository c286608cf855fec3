/* Streaming: per-batch charts of a gluestreaming run (input rate vs process rate, batch duration, consumer
 * lag) and the capacity reading: a process rate close to the input rate means the job is at capacity. */
"use strict";

(() => {
  const {h, link, table, glue, call, section, time, state, every, chart} = Console;
  const RECENT = 5;  // batches the capacity reading looks at

  /** What the recent batches say: headroom, at capacity, or falling behind (with the two mean rates). */
  function capacity(batches) {
    const recent = batches.slice(-RECENT).filter(b => b.inputRowsPerSecond > 0 && b.processedRowsPerSecond > 0);
    if (!recent.length) return {reading: "not enough batches with records yet"};
    const mean = key => recent.reduce((sum, b) => sum + b[key], 0) / recent.length;
    const input = mean("inputRowsPerSecond");
    const processed = mean("processedRowsPerSecond");
    const ratio = processed / input;
    const reading = ratio < 1 ? "falling behind: records arrive faster than batches process them" :
      ratio < 1.5 ? "at capacity: the process rate is close to the input rate" :
        "headroom: batches process records faster than they arrive";
    return {reading, input, processed, ratio};
  }

  async function list(el) {
    el.append(h("h2", {}, "Streaming jobs"));
    const body = h("div");
    el.append(body);
    await section(body, "streaming jobs", async () => {
      const jobs = (await Console.all("glue", "GetJobs", {}, "Jobs", 500)).filter(j => j.Command.Name === "gluestreaming");
      const runs = await Promise.all(jobs.map(j => glue("GetJobRuns", {JobName: j.Name, MaxResults: 10})
        .then(a => a.JobRuns || [], () => [])));
      const rows = jobs.flatMap((j, i) => runs[i].map(r => ({job: j.Name, run: r})));
      return table([
        {title: "Job", get: r => link(["jobs", r.job], r.job)},
        {title: "Run", get: r => link(["streaming", r.job, r.run.Id], r.run.Id)},
        {title: "State", get: r => state(r.run.JobRunState)},
        {title: "Started", get: r => time(r.run.StartedOn)},
      ], rows, {id: "streaming-runs"});
    });
  }

  function charts(batches) {
    const x = batches.map(b => Date.parse(b.timestamp) / 1000);
    const series = key => batches.map(b => b[key] ?? null);
    return [
      chart("input rate vs process rate (records/s)", x, [{label: "input rate", values: series("inputRowsPerSecond")},
        {label: "process rate", values: series("processedRowsPerSecond")}]),
      chart("batch duration (ms)", x, [{label: "batch duration", values: series("batchDurationMs")}]),
      chart("consumer lag (records)", x, [{label: "consumer lag", values: series("consumerLag")}]),
    ];
  }

  async function run(el, name, runId) {
    el.append(h("h2", {}, link(["streaming"], "Streaming"), " / ", link(["jobs", name, runId], `${name} ${runId}`)));
    const body = h("div");
    el.append(body);
    every(5000, async () => {
      let running = false;
      await section(body, "batches", async () => {
        const m = await call("glueball", "GetJobRunMetrics", {JobName: name, RunId: runId});
        running = m.JobRunState === "RUNNING";
        const s = m.StreamingMetrics || {};
        const batches = s.RecentBatches || [];
        const reading = capacity(batches);
        return [h("dl", {class: "facts"}, [["State", state(m.JobRunState)], ["Batches", s.Batches || 0],
          ["Records", s.InputRows || 0], ["Capacity", reading.reading],
          ["Mean rates", reading.ratio ? `input ${reading.input.toFixed(1)}/s, process ${reading.processed.toFixed(1)}/s`
            : ""]].filter(([, v]) => v !== "").map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
        h("div", {class: "charts", id: "stream-charts"}, charts(batches))];
      });
      return running;
    });
  }

  Console.page("streaming", {
    render(el, [name, runId]) {
      return runId ? run(el, name, runId) : list(el);
    },
  });
})();
