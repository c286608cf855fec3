/* Spend: DPU-seconds and estimated cost grouped by tag, job (resource), kind or user, per day over a range:
 * a chart of the daily cost of the largest groups, the totals, and a CSV download of the daily figures. */
"use strict";

(() => {
  const {h, table, call, section, chart, downloadCsv} = Console;
  const DAY = 86400;
  const TOP = 6;

  Console.page("spend", {
    async render(el) {
      const by = h("select", {id: "spend-group"}, ["resource", "kind", "user", "tag:"].map(v =>
        h("option", {value: v}, v === "tag:" ? "tag…" : v)));
      const tag = h("input", {id: "spend-tag", placeholder: "tag key", size: 12});
      const days = h("select", {id: "spend-days"}, ["7", "14", "30"].map(v => h("option", {value: v}, `${v} days`)));
      const body = h("div");
      const show = () => section(body, "usage", async () => {
        const key = by.value === "tag:" ? `tag:${tag.value.trim()}` : by.value;
        const today = Math.floor(Date.now() / 1000 / DAY) * DAY;
        const starts = [...Array(Number(days.value)).keys()].reverse().map(i => today - i * DAY);
        const daily = await Promise.all(starts.map(s => call("glueball", "GetUsage",
          {GroupBy: [key], Since: s, Until: s + DAY})));
        const label = g => Object.values(g.Keys || {}).join(" / ") || "(all)";
        const totals = new Map();
        daily.forEach(d => d.Groups.forEach(g => {
          const t = totals.get(label(g)) || {group: label(g), runs: 0, dpu: 0, cost: 0};
          t.runs += g.Runs;
          t.dpu += g.DpuSeconds;
          t.cost += g.EstimatedCost;
          totals.set(t.group, t);
        }));
        const ranked = [...totals.values()].sort((a, b) => b.cost - a.cost);
        const currency = (daily[0] || {}).Currency || "USD";
        const rows = daily.flatMap((d, i) => d.Groups.map(g => [new Date(starts[i] * 1000).toISOString().slice(0, 10),
          label(g), g.Runs, g.DpuSeconds, g.EstimatedCost]));
        return [
          chart(`estimated cost per day (${currency})`, starts, ranked.slice(0, TOP).map(t => ({label: t.group,
            values: daily.map(d => (d.Groups.find(g => label(g) === t.group) || {}).EstimatedCost ?? 0)}))),
          h("button", {id: "spend-csv", onclick: () => downloadCsv(`glueball-usage-${key}.csv`,
            [["day", key, "runs", "dpu_seconds", `estimated_cost_${currency}`], ...rows])}, "Download CSV"),
          table([{title: key, get: t => t.group}, {title: "Runs", get: t => t.runs},
            {title: "DPU-seconds", get: t => t.dpu.toFixed(0)},
            {title: `Estimated cost (${currency})`, get: t => t.cost.toFixed(4)}], ranked, {id: "spend-totals"}),
        ];
      });
      el.append(h("h2", {}, "Spend"), h("form", {class: "filter", onsubmit: e => { e.preventDefault(); show(); }},
        "group by ", by, tag, " over ", days, h("button", {type: "submit"}, "Show")), body);
      show();
    },
  });
})();
