/* Query editor: Athena's SQL over the Data Catalog (StartQueryExecution, then GetQueryExecution until it ends,
 * then GetQueryResults), in a workgroup and database, results written under a result location the page remembers.
 * #/query/<database>/<table> is the catalog's "Preview table": SELECT * FROM the table LIMIT 10, run at once. */
"use strict";

(() => {
  const {h, call, table, refusal, section} = Console;
  const athena = (operation, params) => call("athena", operation, params);
  const REMEMBERED = "glueball.query.output";
  const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

  async function run(sql, database, workgroup, output, shown) {
    const started = await athena("StartQueryExecution", {QueryString: sql, WorkGroup: workgroup,
      QueryExecutionContext: {Database: database},
      ...(output ? {ResultConfiguration: {OutputLocation: output}} : {})});
    const id = started.QueryExecutionId;
    let execution;
    for (;;) {
      execution = (await athena("GetQueryExecution", {QueryExecutionId: id})).QueryExecution;
      const state = execution.Status.State;
      shown.replaceChildren(h("p", {id: "query-state", class: "state"}, `${state} · ${id}`));
      if (!["QUEUED", "RUNNING"].includes(state)) break;
      await sleep(400);
    }
    const status = execution.Status;
    const facts = h("p", {id: "query-state", class: "state", dataset: {state: status.State}},
      `${status.State} · ${(execution.Statistics.TotalExecutionTimeInMillis || 0) / 1000} s · ` +
      `${execution.Statistics.DataScannedInBytes || 0} bytes scanned · ${execution.ResultConfiguration.OutputLocation || ""}`);
    if (status.State !== "SUCCEEDED") {
      return [facts, h("div", {class: "refusal", role: "alert", id: "query-error"},
        h("strong", {}, status.State), " ", status.StateChangeReason || "")];
    }
    const answer = await athena("GetQueryResults", {QueryExecutionId: id, MaxResults: 1000});
    const columns = answer.ResultSet.ResultSetMetadata.ColumnInfo;
    let rows = answer.ResultSet.Rows.map(r => r.Data.map(d => d.VarCharValue === undefined ? null : d.VarCharValue));
    const header = columns.length && rows.length && rows[0].every((v, i) => v === columns[i].Name);
    if (header && execution.StatementType === "DML") rows = rows.slice(1);  // Athena's header row of a query
    const more = answer.NextToken ? h("p", {}, "first 1000 rows shown") : null;
    return [facts, columns.length ? table(columns.map((c, i) => ({title: `${c.Name} (${c.Type})`,
      get: r => r[i] === null ? h("span", {class: "null"}, "NULL") : r[i]})), rows, {id: "query-results"})
      : h("p", {id: "query-results"}, `${answer.UpdateCount || 0} rows written`), more];
  }

  async function editor(el, preview) {
    const [database, name] = preview;
    const databases = (await call("glue", "GetDatabases", {})).DatabaseList.map(d => d.Name);
    const pick = h("select", {id: "query-database"}, databases.map(d => {
      const option = h("option", {value: d}, d);
      option.selected = d === (database || "default");
      return option;
    }));
    const workgroup = h("input", {type: "text", id: "query-workgroup", value: "primary", size: 16});
    const output = h("input", {type: "text", id: "query-output", size: 40, placeholder: "s3://bucket/prefix/",
      value: localStorage.getItem(REMEMBERED) || ""});
    const sql = h("textarea", {id: "query-sql", rows: 8, cols: 100, spellcheck: "false"});
    sql.value = name ? `SELECT * FROM "${database}"."${name}" LIMIT 10` : "SELECT 1";
    const shown = h("div", {id: "query-outcome"});
    const go = async () => {
      if (output.value.trim()) localStorage.setItem(REMEMBERED, output.value.trim());
      await section(shown, "query", () => run(sql.value, pick.value, workgroup.value.trim() || "primary",
        output.value.trim(), shown));
    };
    el.append(h("h2", {}, "Query editor"),
      h("form", {class: "filter", id: "query-form", onsubmit: e => { e.preventDefault(); go(); }},
        h("label", {}, "Database ", pick), " ", h("label", {}, "Workgroup ", workgroup), " ",
        h("label", {}, "Result location ", output)),
      sql, h("p", {}, h("button", {type: "button", id: "query-run", onclick: go}, "Run")), shown);
    if (name) go();
  }

  Console.page("query", {
    render(el, args) {
      return editor(el, args).catch(error => el.append(refusal(error, "query editor")));
    },
  });
})();
