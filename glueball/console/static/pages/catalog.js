/* Catalog: databases, tables (search, paging), a table's columns, partitions (Glue partition-filter
 * expressions), versions with a side-by-side schema diff, and column statistics. */
"use strict";

(() => {
  const {h, link, table, glue, section, time, paged} = Console;
  const PAGE = 100;

  function databases(el) {
    el.append(h("h2", {}, "Databases"), paged([
      {title: "Name", get: d => link(["catalog", d.Name], d.Name)},
      {title: "Description", get: d => d.Description || ""},
      {title: "Location", get: d => d.LocationUri || ""},
      {title: "Created", get: d => time(d.CreateTime)},
    ], async token => {
      const answer = await glue("GetDatabases", {MaxResults: PAGE, ...(token ? {NextToken: token} : {})});
      return {rows: answer.DatabaseList, next: answer.NextToken};
    }, {id: "databases"}));
  }

  function tables(el, database) {
    const results = h("div");
    const search = h("input", {type: "search", id: "table-search", placeholder: "table name contains…"});
    const show = () => results.replaceChildren(paged([
      {title: "Name", get: t => link(["catalog", database, t.Name], t.Name)},
      {title: "Type", get: t => t.TableType || ""},
      {title: "Columns", get: t => ((t.StorageDescriptor || {}).Columns || []).length},
      {title: "Partition keys", get: t => (t.PartitionKeys || []).map(k => k.Name).join(", ")},
      {title: "Updated", get: t => time(t.UpdateTime)},
    ], async token => {
      const text = search.value.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const answer = await glue("GetTables", {DatabaseName: database, MaxResults: PAGE,
        ...(text ? {Expression: `.*${text}.*`} : {}), ...(token ? {NextToken: token} : {})});
      return {rows: answer.TableList, next: answer.NextToken};
    }, {id: "tables"}));
    el.append(h("h2", {}, link(["catalog"], "Databases"), " / ", database),
      h("form", {class: "filter", onsubmit: e => { e.preventDefault(); show(); }}, search,
        h("button", {type: "submit"}, "Search")), results);
    show();
  }

  const columnTable = (columns, attrs) => table([
    {title: "Column", get: c => c.Name}, {title: "Type", get: c => c.Type},
    {title: "Comment", get: c => c.Comment || ""}], columns, attrs);

  function partitions(database, name, keys) {
    const results = h("div");
    const filter = h("input", {type: "text", id: "partition-filter", size: 60,
      placeholder: `e.g. ${keys[0].Name} = '…'` + (keys.length > 1 ? ` AND ${keys[1].Name} > …` : "")});
    const show = () => results.replaceChildren(paged([
      ...keys.map((k, i) => ({title: k.Name, get: p => p.Values[i]})),
      {title: "Location", get: p => (p.StorageDescriptor || {}).Location || ""},
      {title: "Created", get: p => time(p.CreationTime)},
    ], async token => {
      const expression = filter.value.trim();
      const answer = await glue("GetPartitions", {DatabaseName: database, TableName: name, MaxResults: PAGE,
        ...(expression ? {Expression: expression} : {}), ...(token ? {NextToken: token} : {})});
      return {rows: answer.Partitions, next: answer.NextToken};
    }, {id: "partitions"}));
    show();
    return [h("h3", {}, "Partitions"),
      h("form", {class: "filter", id: "partition-form", onsubmit: e => { e.preventDefault(); show(); }},
        filter, h("button", {type: "submit"}, "Filter")), results];
  }

  /** The columns of two versions side by side: added, removed and retyped columns marked. */
  function diff(left, right) {
    const cols = v => new Map([...((v.Table.StorageDescriptor || {}).Columns || []), ...(v.Table.PartitionKeys || [])]
      .map(c => [c.Name, c.Type]));
    const a = cols(left);
    const b = cols(right);
    const mark = (mine, other, gone) => ([name, type]) => {
      const kind = !other.has(name) ? gone : other.get(name) !== type ? "changed" : "same";
      return h("tr", {class: kind}, h("td", {}, name), h("td", {}, type), h("td", {}, kind === "same" ? "" : kind));
    };
    const side = (v, mine, other, gone) => h("div", {class: "side"}, h("h4", {}, `version ${v.VersionId}`),
      h("table", {}, h("tbody", {}, [...mine].map(mark(mine, other, gone)))));
    return h("div", {class: "diff", id: "schema-diff"}, side(left, a, b, "removed"), side(right, b, a, "added"));
  }

  async function versions(database, name) {
    const all = await Console.all("glue", "GetTableVersions", {DatabaseName: database, TableName: name},
      "TableVersions", 200);
    all.sort((x, y) => Number(y.VersionId) - Number(x.VersionId));
    if (all.length < 2) return [h("h3", {}, "Versions"), h("p", {}, `${all.length} version`)];
    const pick = (id, chosen) => h("select", {id}, all.map(v => {
      const option = h("option", {value: v.VersionId}, `version ${v.VersionId} (${time(v.Table.UpdateTime)})`);
      option.selected = v.VersionId === chosen;
      return option;
    }));
    const left = pick("diff-left", all[1].VersionId);
    const right = pick("diff-right", all[0].VersionId);
    const shown = h("div");
    const show = () => shown.replaceChildren(diff(all.find(v => v.VersionId === left.value),
      all.find(v => v.VersionId === right.value)));
    left.addEventListener("change", show);
    right.addEventListener("change", show);
    show();
    return [h("h3", {}, "Versions"), h("p", {}, `${all.length} versions; compare `, left, " with ", right), shown];
  }

  async function statistics(database, name, columns) {
    if (!columns.length) return null;
    const answer = await glue("GetColumnStatisticsForTable", {DatabaseName: database, TableName: name,
      ColumnNames: columns.slice(0, 100).map(c => c.Name)});
    const found = answer.ColumnStatisticsList || [];
    const figures = s => {
      const data = s.StatisticsData || {};
      const inner = Object.values(data).find(v => typeof v === "object") || {};
      return Object.entries(inner).map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`)
        .join(", ");
    };
    return [h("h3", {}, "Column statistics"), table([
      {title: "Column", get: s => s.ColumnName}, {title: "Type", get: s => s.StatisticsData.Type},
      {title: "Statistics", get: figures}, {title: "Analyzed", get: s => time(s.AnalyzedTime)},
    ], found, {id: "column-statistics"})];
  }

  async function detail(el, database, name) {
    el.append(h("h2", {}, link(["catalog"], "Databases"), " / ", link(["catalog", database], database), " / ", name),
      Console.config.pages.some(p => p.name === "query")
        ? h("p", {}, h("a", {href: `#/query/${encodeURIComponent(database)}/${encodeURIComponent(name)}`,
          id: "preview-table"}, "Preview table")) : null);
    const body = h("div");
    el.append(body);
    await section(body, "table", async () => {
      const t = (await glue("GetTable", {DatabaseName: database, Name: name})).Table;
      const sd = t.StorageDescriptor || {};
      const facts = h("dl", {class: "facts"}, [["Type", t.TableType], ["Location", sd.Location],
        ["Format", (t.Parameters || {}).classification || sd.InputFormat], ["Version", t.VersionId],
        ["Updated", time(t.UpdateTime)]].filter(([, v]) => v).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
      const parts = h("div");
      const history = h("div");
      const stats = h("div");
      if ((t.PartitionKeys || []).length) parts.append(...partitions(database, name, t.PartitionKeys));
      section(history, "versions", () => versions(database, name));
      section(stats, "column statistics", () => statistics(database, name, sd.Columns || []));
      return [facts, h("h3", {}, "Columns"), columnTable(sd.Columns || [], {id: "columns"}),
        (t.PartitionKeys || []).length ? [h("h3", {}, "Partition keys"), columnTable(t.PartitionKeys)] : null,
        parts, history, stats].flat();
    });
  }

  Console.page("catalog", {
    render(el, [database, name]) {
      if (name) return detail(el, database, name);
      if (database) return tables(el, database);
      return databases(el);
    },
  });
})();
