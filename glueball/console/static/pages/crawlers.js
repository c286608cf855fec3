/* Crawlers: state, schedule, the last crawl; a crawler's crawls with tables added, updated and deleted, and
 * a crawl's log. */
"use strict";

(() => {
  const {h, link, table, glue, section, time, duration, state, every} = Console;

  async function list(el) {
    el.append(h("h2", {}, "Crawlers"));
    const body = h("div");
    el.append(body);
    every(5000, () => section(body, "crawlers", async () => {
      const crawlers = await Console.all("glue", "GetCrawlers", {}, "Crawlers", 500);
      return table([
        {title: "Name", get: c => link(["crawlers", c.Name], c.Name)},
        {title: "State", get: c => state(c.State)},
        {title: "Schedule", get: c => c.Schedule ? `${c.Schedule.ScheduleExpression} (${c.Schedule.State})` : ""},
        {title: "Database", get: c => c.DatabaseName || ""},
        {title: "Last crawl", get: c => c.LastCrawl ? state(c.LastCrawl.Status) : "never"},
        {title: "Started", get: c => c.LastCrawl ? time(c.LastCrawl.StartTime) : ""},
      ], crawlers, {id: "crawlers"});
    }));
  }

  const summary = c => {
    try {
      return JSON.parse(c.Summary || "{}");
    } catch (e) {
      return {};
    }
  };

  async function crawler(el, name) {
    el.append(h("h2", {}, link(["crawlers"], "Crawlers"), " / ", name));
    const crawls = h("div");
    const logs = h("div", {id: "crawl-log"});
    el.append(crawls, logs);
    const showLog = id => section(logs, "crawl log", async () => {
      const piece = await Console.api(`crawl-log?crawler=${encodeURIComponent(name)}&crawl=${encodeURIComponent(id)}`);
      return [h("h3", {}, `Log of crawl ${id}`), h("pre", {class: "log"}, piece.Text || "(empty)")];
    });
    every(5000, () => section(crawls, "crawls", async () => {
      const found = (await glue("ListCrawls", {CrawlerName: name, MaxResults: 50})).Crawls || [];
      const counts = (c, change) => {
        const s = summary(c);
        const tables = (s.TABLE || {})[change];
        const parts = (s.PARTITION || {})[change];
        return tables === undefined ? "" : `${tables}` + (parts ? ` (${parts} partitions)` : "");
      };
      return [h("h3", {}, "Crawls"), table([
        {title: "Crawl", get: c => h("button", {class: "linkish", onclick: () => showLog(c.CrawlId)}, c.CrawlId)},
        {title: "State", get: c => state(c.State)},
        {title: "Started", get: c => time(c.StartTime)},
        {title: "Duration", get: c => c.EndTime ? duration(c.EndTime - c.StartTime) : ""},
        {title: "Tables added", get: c => counts(c, "ADD")},
        {title: "Updated", get: c => counts(c, "UPDATE")},
        {title: "Deleted", get: c => counts(c, "DELETE")},
        {title: "Error", get: c => c.ErrorMessage || ""},
      ], found, {id: "crawls"})];
    }));
  }

  Console.page("crawlers", {
    render(el, [name]) {
      return name ? crawler(el, name) : list(el);
    },
  });
})();
