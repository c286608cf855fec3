/* glueball console: directed graphs (a workflow run's graph, a visual job's nodes) laid out by dagre
 * and drawn as SVG. Graph.draw(nodes, edges): nodes [{id, label, detail, state}], edges [{from, to}].
 * Each node is a <g class="node" data-name=... data-state=...> so pages (and tests) can read them.
 */
"use strict";

const Graph = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const WIDTH = 190;
  const HEIGHT = 58;

  function svg(tag, attrs = {}, text) {
    const el = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
    if (text !== undefined) el.textContent = text;
    return el;
  }

  function draw(nodes, edges, options = {}) {
    const g = new dagre.graphlib.Graph();
    g.setGraph({rankdir: options.direction || "LR", nodesep: 24, ranksep: 48, marginx: 12, marginy: 12});
    g.setDefaultEdgeLabel(() => ({}));
    nodes.forEach(n => g.setNode(n.id, {width: WIDTH, height: HEIGHT}));
    edges.filter(e => g.hasNode(e.from) && g.hasNode(e.to)).forEach(e => g.setEdge(e.from, e.to));
    dagre.layout(g);
    const size = g.graph();
    const root = svg("svg", {class: "graph", width: size.width, height: size.height,
      viewBox: `0 0 ${size.width} ${size.height}`});
    const defs = svg("defs");
    const marker = svg("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7,
      markerHeight: 7, orient: "auto-start-reverse"});
    marker.append(svg("path", {d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead"}));
    defs.append(marker);
    root.append(defs);
    g.edges().forEach(e => {
      const points = g.edge(e).points.map(p => `${p.x},${p.y}`).join(" ");
      root.append(svg("polyline", {points, class: "edge", "marker-end": "url(#arrow)"}));
    });
    nodes.forEach(n => {
      const box = g.node(n.id);
      const group = svg("g", {class: `node state-${String(n.state || "none").toLowerCase()}`,
        "data-name": n.label, "data-state": n.state || "",
        transform: `translate(${box.x - WIDTH / 2},${box.y - HEIGHT / 2})`});
      group.append(svg("rect", {width: WIDTH, height: HEIGHT, rx: 6}));
      group.append(svg("text", {x: 10, y: 18, class: "kind"}, n.kind || ""));
      group.append(svg("text", {x: 10, y: 34, class: "label"}, n.label));
      group.append(svg("text", {x: 10, y: 50, class: "detail"}, [n.state, n.detail].filter(Boolean).join(" · ")));
      if (n.onclick) {
        group.addEventListener("click", n.onclick);
        group.classList.add("clickable");
      }
      root.append(group);
    });
    const holder = document.createElement("div");
    holder.className = "graph-holder";
    holder.append(root);
    return holder;
  }

  return {draw};
})();
