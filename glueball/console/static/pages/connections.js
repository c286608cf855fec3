/* Connections: type, properties (passwords hidden: asked with HidePassword) and the physical network. */
"use strict";

(() => {
  const {h, table, section, time} = Console;
  const SECRET = /PASSWORD|SECRET|KEY/i;

  Console.page("connections", {
    async render(el) {
      el.append(h("h2", {}, "Connections"));
      const body = h("div");
      el.append(body);
      await section(body, "connections", async () => {
        const found = await Console.all("glue", "GetConnections", {HidePassword: true}, "ConnectionList", 500);
        const properties = c => Object.entries(c.ConnectionProperties || {})
          .map(([k, v]) => `${k}=${SECRET.test(k) ? "••••" : v}`).join("  ");
        return table([
          {title: "Name", get: c => c.Name}, {title: "Type", get: c => c.ConnectionType},
          {title: "Properties", get: properties},
          {title: "Subnet", get: c => (c.PhysicalConnectionRequirements || {}).SubnetId || ""},
          {title: "Updated", get: c => time(c.LastUpdatedTime)},
        ], found, {id: "connections"});
      });
    },
  });
})();
