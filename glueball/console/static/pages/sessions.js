/* Sessions: interactive sessions with their tags; a session's statements and their output. */
"use strict";

(() => {
  const {h, link, table, glue, section, time, state, every} = Console;

  async function list(el) {
    el.append(h("h2", {}, "Interactive sessions"));
    const body = h("div");
    el.append(body);
    await section(body, "sessions", async () => {
      const answer = await glue("ListSessions", {MaxResults: 100});
      const found = answer.Sessions || [];
      const account = found.length ? (await Console.call("sts", "GetCallerIdentity")).Account : "";
      // a session's tags are the tagging API's (GetTags on its ARN); one that cannot be read shows none
      const tags = await Promise.all(found.map(s => glue("GetTags", {
        ResourceArn: `arn:aws:glue:${Console.config.region}:${account}:session/${s.Id}`}).then(a => a.Tags || {},
        () => ({}))));
      return table([
        {title: "Session", get: s => link(["sessions", s.Id], s.Id)},
        {title: "Status", get: s => state(s.Status)},
        {title: "Created", get: s => time(s.CreatedOn)},
        {title: "Workers", get: s => s.NumberOfWorkers ? `${s.NumberOfWorkers} × ${s.WorkerType}` : ""},
        {title: "Tags", get: s => Object.entries(tags[found.indexOf(s)]).map(([k, v]) => `${k}=${v}`).join(", ")},
      ], found, {id: "sessions"});
    });
  }

  const output = s => {
    const o = s.Output || {};
    if (o.Status === "error" || o.ErrorName) return h("pre", {class: "error"}, `${o.ErrorName || ""}: ${o.ErrorValue || ""}`);
    return h("pre", {}, (o.Data || {}).TextPlain || "");
  };

  async function session(el, id) {
    el.append(h("h2", {}, link(["sessions"], "Sessions"), " / ", id));
    const facts = h("div");
    const body = h("div");
    el.append(facts, body);
    section(facts, "session", async () => {
      const s = (await glue("GetSession", {Id: id})).Session;
      return h("dl", {class: "facts"}, [["Status", state(s.Status)], ["Role", s.Role], ["Created", time(s.CreatedOn)],
        ["Glue version", s.GlueVersion]].filter(([, v]) => v).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
    });
    every(3000, () => section(body, "statements", async () => {
      const found = (await glue("ListStatements", {SessionId: id})).Statements || [];
      return [h("h3", {}, "Statements"), table([
        {title: "#", get: s => s.Id}, {title: "State", get: s => state(s.State)},
        {title: "Code", get: s => h("pre", {}, s.Code || "")}, {title: "Output", get: output},
      ], found, {id: "statements"})];
    }));
  }

  Console.page("sessions", {
    render(el, [id]) {
      return id ? session(el, id) : list(el);
    },
  });
})();
