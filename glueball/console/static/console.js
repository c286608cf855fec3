/* glueball console: the core every page module uses.
 *
 * Pages register with Console.page(name, {render(el, args)}) and are reached by the hash route
 * #/<name>/<arg>/<arg>... Data comes from Console.call(service, operation, params): one API operation
 * made by the server as the signed-in principal. A refusal (AccessDenied, ...) is shown in the page
 * with the API's own code and message (Console.refusal). Timers made with Console.every stop when the
 * route changes.
 */
"use strict";

const Console = (() => {
  const config = JSON.parse(document.getElementById("console-config").textContent);
  const pages = {};
  let timers = [];
  let generation = 0;

  class ApiError extends Error {
    constructor(code, message, status) {
      super(message);
      this.code = code;
      this.status = status;
    }
  }

  async function api(path, options = {}) {
    const init = {credentials: "same-origin", headers: {}};
    if (options.body !== undefined) {
      init.method = "POST";
      init.headers = {"content-type": "application/json", "x-glueball-console": "1"};
      init.body = JSON.stringify(options.body);
    }
    const response = await fetch("api/" + path, init);
    let answer = {};
    try {
      answer = await response.json();
    } catch (e) {
      throw new ApiError("BadAnswer", `The console answered ${response.status} without JSON`, response.status);
    }
    if (!response.ok || answer.error) {
      const error = answer.error || {code: String(response.status), message: response.statusText};
      if (error.code === "NotSignedIn") {
        showSignIn();
      }
      throw new ApiError(error.code, error.message, response.status);
    }
    return answer;
  }

  /** One API operation as the signed-in principal. */
  function call(service, operation, params = {}) {
    return api("call", {body: {Service: service, Operation: operation, Params: params}});
  }

  const glue = (operation, params) => call("glue", operation, params);

  /** Every page of a paginated listing (up to `limit` items) of `member`. */
  async function all(service, operation, params, member, limit = 1000) {
    const items = [];
    let token;
    do {
      const page = await call(service, operation, token ? {...params, NextToken: token} : params);
      items.push(...(page[member] || []));
      token = page.NextToken;
    } while (token && items.length < limit);
    return items;
  }

  /** A DOM element: h("a", {href: "#/x", class: "c"}, "text", child...). Strings are text, never HTML. */
  function h(tag, attrs = {}, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else if (key === "dataset") Object.assign(el.dataset, value);
      else el.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  const link = (route, text) => h("a", {href: "#/" + route.map(encodeURIComponent).join("/")}, text);

  /** A table: columns [{title, get(row)}]; a cell is text or a node. */
  function table(columns, rows, attrs = {}) {
    return h("table", attrs,
      h("thead", {}, h("tr", {}, columns.map(c => h("th", {}, c.title)))),
      h("tbody", {}, rows.length ? rows.map(row => h("tr", {}, columns.map(c => h("td", {}, c.get(row)))))
        : h("tr", {}, h("td", {colspan: columns.length, class: "empty"}, "none"))));
  }

  /** A list shown a page at a time: load(token) -> {rows, next}; Next / Previous keep the tokens. */
  function paged(columns, load, attrs = {}) {
    const holder = h("div", {class: "paged"});
    const tokens = [undefined];
    let index = 0;
    const show = async () => {
      await section(holder, "list", async () => {
        const {rows, next} = await load(tokens[index]);
        tokens[index + 1] = next;
        return [table(columns, rows, attrs), h("div", {class: "pager"},
          h("button", {class: "prev", disabled: index === 0, onclick: () => { index -= 1; show(); }}, "Previous"),
          h("span", {class: "page-number"}, `page ${index + 1}`),
          h("button", {class: "next", disabled: !next, onclick: () => { index += 1; show(); }}, "Next"))];
      });
    };
    show();
    return holder;
  }

  /** A refusal or error shown in the page: the API's code and message (the reason of an AccessDenied). */
  function refusal(error, what) {
    return h("div", {class: "refusal", role: "alert"},
      h("strong", {}, (what ? what + ": " : "") + (error.code || "Error")), " ", error.message || String(error));
  }

  /** Run `load` and show what it returns into `el`, or the refusal in its place. */
  async function section(el, what, load) {
    if (!el.childNodes.length) el.replaceChildren(h("p", {class: "loading"}, "loading " + what + "…"));
    try {
      const content = await load();
      el.replaceChildren(...[content].flat().filter(Boolean));
    } catch (error) {
      el.replaceChildren(refusal(error, what));
    }
  }

  const time = epoch => epoch ? new Date(epoch * 1000).toISOString().replace("T", " ").slice(0, 19) : "";
  const duration = seconds => {
    if (seconds === undefined || seconds === null) return "";
    const s = Math.round(seconds);
    return s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.floor(s % 3600 / 60)} min` :
      s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
  };
  const state = value => h("span", {class: "state state-" + String(value || "").toLowerCase()}, value || "");

  /** Call `fn` now and every `ms` until the route changes (or `fn` returns false); an error is shown in
   * `where` (and stops the polling). */
  function every(ms, fn, where) {
    const mine = generation;
    let handle;
    const tick = async () => {
      if (mine !== generation) return;
      let again = true;
      try {
        again = await fn();
      } catch (error) {
        if (where) where.replaceChildren(refusal(error));
        again = false;
      }
      if (again !== false && mine === generation) {
        handle = setTimeout(tick, ms);
        timers.push(handle);
      }
    };
    tick();
  }

  /** A line chart (uPlot): x epoch seconds, series [{label, values, points}]; data-points says how many x. */
  function chart(title, x, series, options = {}) {
    const box = h("div", {class: "chart", dataset: {points: String(x.length), title}});
    box.append(h("h4", {}, title));
    if (!x.length) {
      box.append(h("p", {class: "empty"}, "no data yet"));
      return box;
    }
    const colours = ["#1f6feb", "#d73a49", "#2da44e", "#bf8700", "#8250df", "#0a7ea4"];
    const opts = {
      width: options.width || 640, height: options.height || 220,
      scales: {x: {time: options.time !== false}},
      series: [{label: options.xLabel || "time"}, ...series.map((s, i) => ({
        label: s.label, stroke: s.colour || colours[i % colours.length], width: s.points ? 0 : 2,
        points: {show: true, size: s.points ? 10 : 5}, spanGaps: !s.points,
      }))],
      axes: [{}, {label: options.yLabel || ""}],
    };
    queueMicrotask(() => {
      box.uplot = new uPlot(opts, [x, ...series.map(s => s.values)], box);
    });
    return box;
  }

  /** Download `rows` (arrays) as a CSV file named `name`. */
  function downloadCsv(name, rows) {
    const quote = v => {
      const text = v === undefined || v === null ? "" : String(v);
      return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    };
    const blob = new Blob([rows.map(r => r.map(quote).join(",")).join("\n") + "\n"], {type: "text/csv"});
    const a = h("a", {href: URL.createObjectURL(blob), download: name});
    document.body.append(a);
    a.click();
    a.remove();
  }

  function page(name, spec) {
    pages[name] = spec;
  }

  async function route() {
    generation += 1;
    timers.forEach(clearTimeout);
    timers = [];
    const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
    const name = parts[0] || (config.pages[0] && config.pages[0].name);
    const main = document.getElementById("page");
    document.querySelectorAll("#menu a").forEach(a => a.classList.toggle("active", a.dataset.page === name));
    const spec = pages[name];
    if (!spec) {
      main.replaceChildren(h("p", {class: "refusal"}, `No console page ${name}`));
      return;
    }
    main.replaceChildren();
    main.dataset.page = name;
    try {
      await spec.render(main, parts.slice(1));
    } catch (error) {
      main.append(refusal(error));
    }
  }

  function showSignIn() {
    const main = document.getElementById("page");
    if (main.querySelector("#signin")) return;
    generation += 1;
    const message = h("p", {class: "signin-message"});
    const key = h("input", {name: "AccessKeyId", id: "access-key", autocomplete: "username", required: true});
    const secret = h("input", {name: "SecretAccessKey", id: "secret-key", type: "password",
      autocomplete: "current-password", required: true});
    const token = h("input", {name: "SessionToken", id: "session-token", type: "password"});
    const form = h("form", {id: "signin", onsubmit: async event => {
      event.preventDefault();
      try {
        const who = await api("signin", {body: {AccessKeyId: key.value, SecretAccessKey: secret.value,
          SessionToken: token.value || undefined}});
        showWho(who.arn);
        route();
      } catch (error) {
        message.replaceChildren(refusal(error));
      }
    }},
    h("h2", {}, "Sign in"),
    h("p", {}, "Identity is enforced on this server: sign in with an access key. The console acts with it, " +
      "so you see what its policies allow."),
    h("label", {}, "Access key ID", key), h("label", {}, "Secret access key", secret),
    h("label", {}, "Session token (temporary credentials)", token),
    h("button", {type: "submit"}, "Sign in"), message);
    main.replaceChildren(form);
  }

  function showWho(arn) {
    const who = document.getElementById("who");
    if (!config.enforced) {
      who.replaceChildren("identity not enforced (--auth off)");
      return;
    }
    who.replaceChildren(arn ? arn : "not signed in", arn ? h("button", {id: "signout", onclick: async () => {
      await api("signout", {body: {}});
      showWho(null);
      showSignIn();
    }}, "Sign out") : "");
  }

  async function start() {
    const menu = document.getElementById("menu");
    menu.replaceChildren(...config.pages.map(p => h("a", {href: "#/" + p.name, dataset: {page: p.name}}, p.title)));
    window.addEventListener("hashchange", route);
    const who = await api("whoami");
    showWho(who.arn);
    if (config.enforced && !who.arn) {
      showSignIn();
      return;
    }
    route();
  }

  return {api, call, glue, all, h, link, table, paged, refusal, section, time, duration, state, every, chart, downloadCsv,
    page, start, route, config, ApiError};
})();
