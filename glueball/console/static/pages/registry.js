/* Schema registry: registries, their schemas, a schema's versions with two versions' definitions side by side
 * and Glue's diff between them. Listed only where the server answers glue:ListRegistries. */
"use strict";

(() => {
  const {h, link, table, glue, section, time, state} = Console;

  async function registries(el) {
    el.append(h("h2", {}, "Schema registries"));
    const body = h("div");
    el.append(body);
    await section(body, "registries", async () => {
      const found = await Console.all("glue", "ListRegistries", {}, "Registries", 500);
      return table([
        {title: "Registry", get: r => link(["registry", r.RegistryName], r.RegistryName)},
        {title: "Description", get: r => r.Description || ""},
        {title: "Status", get: r => state(r.Status)},
        {title: "Updated", get: r => r.UpdatedTime || ""},
      ], found, {id: "registries"});
    });
  }

  async function schemas(el, registry) {
    el.append(h("h2", {}, link(["registry"], "Registries"), " / ", registry));
    const body = h("div");
    el.append(body);
    await section(body, "schemas", async () => {
      const found = await Console.all("glue", "ListSchemas", {RegistryId: {RegistryName: registry}}, "Schemas", 1000);
      return table([
        {title: "Schema", get: s => link(["registry", registry, s.SchemaName], s.SchemaName)},
        {title: "Description", get: s => s.Description || ""},
        {title: "Status", get: s => state(s.SchemaStatus)},
        {title: "Updated", get: s => s.UpdatedTime || ""},
      ], found, {id: "schemas"});
    });
  }

  async function schema(el, registry, name) {
    el.append(h("h2", {}, link(["registry"], "Registries"), " / ", link(["registry", registry], registry), " / ", name));
    const body = h("div");
    el.append(body);
    const id = {RegistryName: registry, SchemaName: name};
    await section(body, "schema", async () => {
      const s = await glue("GetSchema", {SchemaId: id});
      const versions = (await Console.all("glue", "ListSchemaVersions", {SchemaId: id}, "Schemas", 1000))
        .sort((a, b) => b.VersionNumber - a.VersionNumber);
      const facts = h("dl", {class: "facts"}, [["Format", s.DataFormat], ["Compatibility", s.Compatibility],
        ["Latest version", s.LatestSchemaVersion], ["Status", s.SchemaStatus]].filter(([, v]) => v !== undefined)
        .map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
      const list = table([
        {title: "Version", get: v => v.VersionNumber}, {title: "Id", get: v => v.SchemaVersionId},
        {title: "Status", get: v => state(v.Status)}, {title: "Created", get: v => v.CreatedTime || ""},
      ], versions, {id: "schema-versions"});
      if (versions.length < 2) return [facts, list, h("div", {id: "schema-diff"}, versions.length ? definitions(id,
        versions[0].VersionNumber) : null)];
      const pick = (selectId, chosen) => h("select", {id: selectId}, versions.map(v => {
        const option = h("option", {value: v.VersionNumber}, `version ${v.VersionNumber}`);
        option.selected = v.VersionNumber === chosen;
        return option;
      }));
      const left = pick("schema-left", versions[1].VersionNumber);
      const right = pick("schema-right", versions[0].VersionNumber);
      const shown = h("div", {id: "schema-diff"});
      const show = () => section(shown, "diff", () => diff(id, Number(left.value), Number(right.value)));
      left.addEventListener("change", show);
      right.addEventListener("change", show);
      show();
      return [facts, list, h("h3", {}, "Compare versions"), h("p", {}, left, " with ", right), shown];
    });
  }

  /** One version's definition. */
  async function definitions(id, number) {
    const v = await glue("GetSchemaVersion", {SchemaId: id, SchemaVersionNumber: {VersionNumber: number}});
    return h("pre", {class: "definition"}, v.SchemaDefinition);
  }

  /** Two versions' definitions side by side and Glue's diff between them. */
  async function diff(id, first, second) {
    const [a, b, d] = await Promise.all([
      glue("GetSchemaVersion", {SchemaId: id, SchemaVersionNumber: {VersionNumber: first}}),
      glue("GetSchemaVersion", {SchemaId: id, SchemaVersionNumber: {VersionNumber: second}}),
      glue("GetSchemaVersionsDiff", {SchemaId: id, FirstSchemaVersionNumber: {VersionNumber: first},
        SecondSchemaVersionNumber: {VersionNumber: second}, SchemaDiffType: "SYNTAX_DIFF"}),
    ]);
    const pretty = text => {
      try {
        return JSON.stringify(JSON.parse(text), null, 2);
      } catch (e) {
        return text;
      }
    };
    return [h("div", {class: "diff"},
      h("div", {class: "side"}, h("h4", {}, `version ${first}`), h("pre", {class: "definition"}, pretty(a.SchemaDefinition))),
      h("div", {class: "side"}, h("h4", {}, `version ${second}`), h("pre", {class: "definition"}, pretty(b.SchemaDefinition)))),
    h("h4", {}, "Diff"), h("pre", {class: "schema-diff-text"}, d.Diff || "(no difference)")];
  }

  Console.page("registry", {
    render(el, [registry, name]) {
      if (name) return schema(el, registry, name);
      if (registry) return schemas(el, registry);
      return registries(el);
    },
  });
})();
