// The timeline's drawing: where a branch's time went, one lane per node, drawn with d3 into the
// page (a Streamlit custom component, v2: no iframe). Python decides every bar, colour, fold
// and range (playground/ui/components/timeline_chart.py) and sends plain data; this file only
// draws it and reports two gestures:
//
// - a click on a bar reports its checkpoint ("pick");
// - a drag across the chart reports the range it covered ("zoom"), which the page then shows
//   alone.
//
// Everything it shows comes from a database the playground did not write: it reaches the page
// as text nodes and attributes (d3's .text and .attr), never as markup.
import { axisBottom } from "d3-axis";
import { scaleLinear } from "d3-scale";
import { select } from "d3-selection";
import { fillCard, legendEntries } from "./parts.js";

const LANE = 26; // px per lane
const BAR = 16; // px: a bar's height
const TICK = 22; // px: an instant's (an edit's or a fork's) height
const TOP = 20; // px above the first lane: room for a fold's label
const AXIS = 40; // px below the last lane: the axis and its title
const MIN_LABELS = 56; // px: the narrowest the lane labels' column gets
const MAX_LABELS = 180; // px: the widest (a longer name is cut with "…")
const RIGHT = 12; // px right of the plot
const DRAG = 4; // px: a press that moves less than this is a click

export default function timeline(component) {
  const { data, parentElement, setTriggerValue } = component;
  let root = parentElement.querySelector(":scope > .tl");
  const first = !root;
  if (first) root = build(parentElement);
  const view = root.__view;
  view.report = setTriggerValue;
  view.data = data;
  // The first drawing waits for the browser's next task: the page's other drawings (the
  // history tree above) are set and painted first, and this one follows a moment later.
  if (first) setTimeout(() => draw(view), 0);
  else draw(view);
}

// The elements that last across reruns, and the gestures on them.
function build(parent) {
  const root = select(parent).append("div").attr("class", "tl");
  const svg = root.append("svg").attr("class", "tl-chart");
  const clip = `tl-clip-${Math.random().toString(36).slice(2)}`;
  svg.append("clipPath").attr("id", clip).append("rect");
  svg.append("g").attr("class", "tl-lanes");
  svg.append("g").attr("class", "tl-axis");
  svg.append("text").attr("class", "tl-axis-title");
  const plot = svg.append("g").attr("class", "tl-plot").attr("clip-path", `url(#${clip})`);
  plot.append("rect").attr("class", "tl-ground");
  plot.append("g").attr("class", "tl-folds");
  plot.append("g").attr("class", "tl-marks");
  plot.append("rect").attr("class", "tl-range").style("display", "none");
  const legend = root.append("div").attr("class", "tl-legend");
  const nodes = root.append("div").attr("class", "tl-nodes").append("table");
  nodes.append("thead").append("tr");
  nodes.append("tbody");
  const tooltip = root.append("div").attr("class", "tl-tooltip").attr("role", "tooltip")
    .style("display", "none");
  const view = {
    root, svg, plot, legend, nodes, tooltip, clip, data: null, report: null, width: 0,
  };
  root.node().__view = view;
  // Redrawn when the column changes width (a resized window, a phone turned).
  new ResizeObserver(() => {
    const width = root.node().clientWidth;
    if (view.width && width && width !== view.width) draw(view); // once drawn at another width
  }).observe(root.node());
  gestures(view);
  return root.node();
}

// A press on the plot starts either a click (on a bar: pick its checkpoint) or a drag (a range
// to zoom to), told apart by how far the pointer moved before it was let go.
function gestures(view) {
  const plot = view.plot;
  const range = plot.select(".tl-range");
  let press = null;
  const within = (px) => Math.min(Math.max(px, 0), view.plotWidth);
  plot.on("pointerdown", (event) => {
    if (event.button !== 0) return;
    press = { x: pointerX(view, event), row: event.target.__row ?? null, moved: false };
    plot.node().setPointerCapture(event.pointerId);
  });
  plot.on("pointermove", (event) => {
    if (!press) return;
    const x = pointerX(view, event);
    if (!press.moved && Math.abs(x - press.x) < DRAG) return;
    press.moved = true;
    view.tooltip.style("display", "none");
    const [from, to] = [within(Math.min(x, press.x)), within(Math.max(x, press.x))];
    range.style("display", null).attr("x", from).attr("width", to - from)
      .attr("y", 0).attr("height", view.plotHeight);
  });
  plot.on("pointerup", (event) => {
    if (!press) return;
    const done = press;
    press = null;
    range.style("display", "none");
    if (done.moved) {
      const x = pointerX(view, event);
      const [from, to] = [within(Math.min(x, done.x)), within(Math.max(x, done.x))];
      if (to - from >= DRAG) view.report("zoom", [view.x.invert(from), view.x.invert(to)]);
    } else if (done.row) {
      view.report("pick", done.row.checkpoint);
    }
  });
  plot.on("pointercancel", () => { press = null; range.style("display", "none"); });
  view.pressing = () => press !== null;
}

// The pointer's distance from the plot's left edge, in px.
function pointerX(view, event) {
  return event.clientX - view.plot.select(".tl-ground").node().getBoundingClientRect().left;
}

function draw(view) {
  const { data } = view;
  const width = view.root.node().clientWidth || 600;
  view.width = width;
  const lanes = data.lanes;
  const labels = Math.min(Math.max(longest(view, lanes) + 12, MIN_LABELS),
    Math.min(MAX_LABELS, width * 0.3));
  const plotWidth = Math.max(width - labels - RIGHT, 60);
  const plotHeight = Math.max(lanes.length, 1) * LANE;
  const height = TOP + plotHeight + AXIS;
  view.plotWidth = plotWidth;
  view.plotHeight = plotHeight;
  const domain = data.span ?? [0, Math.max(data.end, 0.001)];
  const x = scaleLinear().domain(domain).range([0, plotWidth]);
  if (!data.span) x.nice();
  view.x = x;
  view.svg.attr("width", width).attr("height", height);
  view.svg.select(`#${view.clip} rect`).attr("width", plotWidth).attr("height", plotHeight);
  view.plot.attr("transform", `translate(${labels},${TOP})`);
  view.plot.select(".tl-ground").attr("width", plotWidth).attr("height", plotHeight);

  // Lane labels: each node's name, cut with "…" to the column, in full on hover.
  view.svg.select(".tl-lanes").attr("transform", `translate(0,${TOP})`)
    .selectAll("text").data(lanes).join("text")
    .attr("x", labels - 8).attr("y", (_, i) => i * LANE + LANE / 2)
    .attr("dy", "0.35em").attr("text-anchor", "end")
    .text((name) => name)
    .each(function (name) { fit(this, name, labels - 12); })
    .selectAll("title").data((name) => [name]).join("title").text((name) => name);

  const ticks = Math.max(Math.floor(plotWidth / 90), 2);
  view.svg.select(".tl-axis").attr("transform", `translate(${labels},${TOP + plotHeight})`)
    .call(axisBottom(x).ticks(ticks).tickSizeOuter(0));
  view.svg.select(".tl-axis-title").attr("x", labels + plotWidth / 2)
    .attr("y", TOP + plotHeight + AXIS - 6).attr("text-anchor", "middle").text(data.axis);

  // Folds: a dashed rule where a long wait was cut, and how long it really was.
  view.plot.select(".tl-folds").selectAll("g").data(data.folds).join((enter) => {
    const fold = enter.append("g");
    fold.append("line");
    fold.append("text");
    return fold;
  }).call((fold) => fold.select("line").attr("x1", (f) => x(f.at)).attr("x2", (f) => x(f.at))
    .attr("y1", -TOP).attr("y2", plotHeight))
    .call((fold) => fold.select("text").attr("x", (f) => x(f.at) + 3).attr("y", 2)
      .attr("dy", "0.8em").text((f) => f.label));

  const colour = new Map(data.kinds.map(([name, fill]) => [name, fill]));
  const lane = new Map(lanes.map((name, i) => [name, i]));
  view.plot.select(".tl-marks").selectAll("rect").data(data.rows).join("rect")
    .attr("class", (row) => markClass(row, data.selected))
    .attr("x", (row) => (row.kind === data.instant ? x(row.from) - 1.5 : x(row.from)))
    .attr("width", (row) => (row.kind === data.instant ? 3 : Math.max(x(row.to) - x(row.from), 2)))
    .attr("y", (row) => lane.get(row.lane) * LANE
      + (LANE - (row.kind === data.instant ? TICK : BAR)) / 2)
    .attr("height", (row) => (row.kind === data.instant ? TICK : BAR))
    .attr("rx", (row) => (row.kind === data.instant ? 0 : 2))
    .attr("fill", (row) => colour.get(row.what))
    .attr("role", "img")
    .attr("aria-label", (row) => facts(row).map(([key, value]) => `${key}: ${value}`).join("; "))
    .each(function (row) { this.__row = row; })
    .on("mouseenter", (event, row) => { if (!view.pressing()) showTooltip(view, event, row); })
    .on("mouseleave", () => view.tooltip.style("display", "none"));
  drawLegend(view);
  drawNodes(view);
}

// The table per node under the chart: whole cells (a narrow screen scrolls it sideways), the
// numbers aligned right.
function drawNodes(view) {
  const { columns, numeric, rows } = view.data.nodes;
  const align = (_, i) => (numeric[i] ? "tl-number" : null);
  view.nodes.select("thead tr").selectAll("th").data(columns).join("th")
    .attr("class", align).text((name) => name);
  view.nodes.select("tbody").selectAll("tr").data(rows).join("tr")
    .selectAll("td").data((row) => row).join("td")
    .attr("class", align).text((value) => String(value));
}

function markClass(row, selected) {
  const names = ["tl-mark"];
  if (row.slowest) names.push("tl-slowest");
  else if (row.dashed) names.push("tl-dashed");
  if (row.checkpoint === selected) names.push("tl-selected");
  return names.join(" ");
}

// What a bar says of its step, in the order the tooltip lists it (its aria-label too).
function facts(row) {
  return [["checkpoint", row.at], ["node", row.lane], ["what", row.what],
    ["seconds", row.seconds.toFixed(3)], ["note", row.note],
    ["tokens in", row.tokens_in], ["tokens out", row.tokens_out]];
}

function showTooltip(view, event, row) {
  fillCard(view.tooltip, facts(row).filter(([, value]) => value !== ""), "tl-tooltip-key");
  const box = event.currentTarget.getBoundingClientRect();
  const home = view.root.node().getBoundingClientRect();
  const left = Math.min(Math.max(box.left - home.left, 0), Math.max(home.width - 320, 0));
  view.tooltip.style("display", null).style("left", `${left}px`)
    .style("top", `${box.bottom - home.top + 4}px`);
}

// The widest lane name, in px, as the page draws it.
function longest(view, lanes) {
  const probe = view.svg.append("text").attr("class", "tl-probe");
  let widest = 0;
  for (const name of lanes) {
    probe.text(name);
    widest = Math.max(widest, probe.node().getComputedTextLength());
  }
  probe.remove();
  return widest;
}

// Cut an SVG text to ``room`` px, ending it with "…" when it was cut.
function fit(node, name, room) {
  if (node.getComputedTextLength() <= room) return;
  let keep = name.length;
  while (keep > 1) {
    keep -= 1;
    node.textContent = `${name.slice(0, keep)}…`;
    if (node.getComputedTextLength() <= room) return;
  }
}

// Every colour and outline the chart uses, with its meaning.
function drawLegend(view) {
  const { data } = view;
  const entries = [
    ...data.kinds.map(([name, fill, dashed, instant]) => ({ name, fill, dashed, instant })),
    { name: "slowest steps", fill: "none", outline: "tl-slowest" },
    { name: "selected checkpoint", fill: "none", outline: "tl-selected" },
  ];
  if (data.folds.length) entries.push({ name: "a long wait folded", fold: true });
  legendEntries(view.legend, entries, "tl-legend-entry", [18, 14], (swatch, entry) => {
    if (entry.fold) {
      swatch.append("line").attr("class", "tl-fold-swatch").attr("x1", 9).attr("x2", 9)
        .attr("y1", 0).attr("y2", 14);
    } else if (entry.instant) {
      swatch.append("rect").attr("x", 7.5).attr("y", 0).attr("width", 3).attr("height", 14)
        .attr("fill", entry.fill);
    } else {
      swatch.append("rect").attr("x", 1).attr("y", 2).attr("width", 16).attr("height", 10)
        .attr("rx", 2).attr("fill", entry.fill)
        .attr("class", entry.outline ?? (entry.dashed ? "tl-dashed" : null));
    }
  });
}
