// The timeline's drawing: where a branch's time went, one lane per node, drawn with d3 into the
// page (a Streamlit custom component, v2: no iframe). Python decides every bar, colour, fold
// and range (playground/ui/components/timeline_chart.py) and sends plain data; this file only
// draws it and reports three gestures:
//
// - a click on a bar reports its checkpoint ("pick");
// - a drag across the chart reports the range it covered ("zoom"), which the page then shows
//   alone;
// - a click on a fold's break (or its label) asks for the long waits at real length ("unfold").
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
const TITLE_LINE = 15; // px: a second line of the axis' title, where one line does not fit
const MIN_LABELS = 56; // px: the narrowest the lane labels' column gets
const MAX_LABELS = 180; // px: the widest (a longer name is cut with "…")
const RIGHT = 16; // px right of the plot: room for half the last tick's label
const DRAG = 4; // px: a press that moves less than this is a click
const EDGE = 10; // px left of the plot where a press still starts a drag (its edge is thin)
const TICK_SPACE = 40; // px per tick, at most: the first try of how many the axis gets
const TICK_GAP = 16; // px: the least room between two tick labels
const BREAK = 3; // px: half a fold's break
// The axis' units: [its seconds, its name, the least range shown that is counted in it].
const UNITS = [[0.001, "ms", 0], [1, "s", 0.2], [60, "min", 120], [3600, "h", 7200],
  [86400, "days", 172800]];

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
  // Where a press starts a drag: the plot, its thin left edge and the axis under it. Under
  // the plot, so that a press on a bar still lands on the bar.
  svg.append("rect").attr("class", "tl-grab");
  const plot = svg.append("g").attr("class", "tl-plot").attr("clip-path", `url(#${clip})`);
  plot.append("rect").attr("class", "tl-ground");
  plot.append("g").attr("class", "tl-marks");
  plot.append("rect").attr("class", "tl-range").style("display", "none");
  // The folds' breaks: over the bars (a break cuts through them) and outside the clip (each
  // one's label stands above the first lane).
  svg.append("g").attr("class", "tl-breaks");
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

// A press on the chart starts either a click (on a bar: pick its checkpoint; on a fold's break:
// unfold) or a drag (a range to zoom to), told apart by how far the pointer moved before it was
// let go. A press anywhere over the plot counts, its left edge, the bars and the breaks
// included: the drag is clamped to the plot.
function gestures(view) {
  const svg = view.svg;
  const range = view.plot.select(".tl-range");
  let press = null;
  const within = (px) => Math.min(Math.max(px, 0), view.plotWidth);
  svg.on("pointerdown", (event) => {
    if (event.button !== 0) return;
    const [x, y] = pointerAt(view, event);
    if (!onPlot(view, x, y)) return;
    const fold = event.target.closest?.(".tl-break")?.__fold ?? null;
    press = { x: within(x), row: event.target.__row ?? null, fold, moved: false };
    svg.node().setPointerCapture(event.pointerId);
  });
  svg.on("pointermove", (event) => {
    if (!press) return;
    const x = within(pointerAt(view, event)[0]);
    if (!press.moved && Math.abs(x - press.x) < DRAG) return;
    press.moved = true;
    view.tooltip.style("display", "none");
    const [from, to] = [Math.min(x, press.x), Math.max(x, press.x)];
    range.style("display", null).attr("x", from).attr("width", to - from)
      .attr("y", 0).attr("height", view.plotHeight);
  });
  svg.on("pointerup", (event) => {
    if (!press) return;
    const done = press;
    press = null;
    range.style("display", "none");
    if (done.moved) {
      const x = within(pointerAt(view, event)[0]);
      const [from, to] = [Math.min(x, done.x), Math.max(x, done.x)];
      if (to - from >= DRAG) view.report("zoom", [view.x.invert(from), view.x.invert(to)]);
    } else if (done.row) {
      view.report("pick", done.row.checkpoint);
    } else if (done.fold) {
      view.report("unfold", true);
    }
  });
  svg.on("pointercancel", () => { press = null; range.style("display", "none"); });
  view.pressing = () => press !== null;
}

// The pointer's place from the plot's top left corner, in px.
function pointerAt(view, event) {
  const box = view.plot.select(".tl-ground").node().getBoundingClientRect();
  return [event.clientX - box.left, event.clientY - box.top];
}

// Whether a press at (x, y) from the plot's corner is on the plot, counting its left edge, the
// fold labels above it and the axis under it.
function onPlot(view, x, y) {
  return x >= -EDGE && x <= view.plotWidth + RIGHT && y >= -TOP && y <= view.plotHeight + 24;
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
  view.plotWidth = plotWidth;
  view.plotHeight = plotHeight;
  const domain = data.span ?? [0, Math.max(data.end, 0.001)];
  const x = scaleLinear().domain(domain).range([0, plotWidth]);
  if (!data.span) x.nice();
  view.x = x;
  const title = titleLines(view, data.axis, width);
  const height = TOP + plotHeight + AXIS + (title.length - 1) * TITLE_LINE;
  view.svg.attr("width", width).attr("height", height);
  view.svg.select(`#${view.clip} rect`).attr("width", plotWidth).attr("height", plotHeight);
  view.svg.select(".tl-grab").attr("x", labels - EDGE).attr("y", 0)
    .attr("width", plotWidth + EDGE + RIGHT).attr("height", TOP + plotHeight + 24);
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

  drawAxis(view, labels, title);
  drawMarks(view);
  drawBreaks(view, labels);
  drawLegend(view);
  drawNodes(view);
}

// The bars and instants, one per row, with the facts a hover card (and a screen reader) gives.
function drawMarks(view) {
  const { data, x } = view;
  const colour = new Map(data.kinds.map(([name, fill]) => [name, fill]));
  const lane = new Map(data.lanes.map((name, i) => [name, i]));
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
}

// The axis: as many ticks as fit the plot's width with their labels apart, each with its unit,
// reading real time after a fold (the seconds the fold cut are added back).
function drawAxis(view, labels, title) {
  const { x, plotWidth, plotHeight } = view;
  const ticks = axisTicks(view, x, view.data.folds);
  view.svg.select(".tl-axis").attr("transform", `translate(${labels},${TOP + plotHeight})`)
    .call(axisBottom(x).tickValues(ticks.map((tick) => tick.at))
      .tickFormat((_, i) => ticks[i].label).tickSizeOuter(0));
  const widest = Math.max(...title.map((line) => textWidth(view, line)));
  const middle = Math.min(Math.max(labels + plotWidth / 2, widest / 2), view.width - widest / 2);
  view.svg.select(".tl-axis-title").attr("x", middle)
    .attr("y", TOP + plotHeight + AXIS - 6).attr("text-anchor", "middle")
    .selectAll("tspan").data(title).join("tspan")
    .attr("x", middle).attr("dy", (_, i) => (i ? TITLE_LINE : 0)).text((line) => line);
}

// The axis' title as lines: one, or two where one does not fit the chart's width (a phone's),
// cut before its parenthesis.
function titleLines(view, text, width) {
  const cut = text.indexOf(" (");
  if (cut < 0 || textWidth(view, text) <= width - 8) return [text];
  return [text.slice(0, cut), text.slice(cut + 1)];
}

// The ticks the axis shows, as {at, label}: placed at round values of real time in each stretch
// between folds, in the unit the range shown is best counted in, as many as fit the plot's width
// without two labels touching. ``at`` is where the tick is drawn (folded time). Each stretch
// takes the finest step its own labels allow: after a long fold they are longer ("98.5 s"), and
// need not thin the ticks before it.
function axisTicks(view, x, folds) {
  const [low, high] = x.domain();
  const unit = UNITS.reduce((best, each) => (high - low >= each[2] ? each : best));
  const steps = [];
  for (let count = Math.max(Math.floor(view.plotWidth / TICK_SPACE), 2); count >= 1; count -= 1) {
    steps.push(niceStep((high - low) / unit[0], count) * unit[0]);
  }
  const widths = new Map(); // a label's width, measured once
  const widthOf = (label) => {
    if (!widths.has(label)) widths.set(label, textWidth(view, label));
    return widths.get(label);
  };
  const placed = (stretch, step) => stretchTicks(stretch, step, unit)
    .map((tick) => ({ ...tick, px: x(tick.at), width: widthOf(tick.label) }))
    // The last label may stick out past the plot by its right margin, no more.
    .filter((tick) => tick.px + tick.width / 2 <= view.plotWidth + RIGHT);
  const found = between(low, high, folds).flatMap((stretch) => {
    let ticks = [];
    for (const step of steps) {
      ticks = placed(stretch, step);
      if (!crowded(ticks)) break;
    }
    return ticks;
  });
  // Across a break, the later of two touching labels gives way.
  const kept = [];
  for (const tick of found) {
    if (!kept.length || !crowded([kept[kept.length - 1], tick])) kept.push(tick);
  }
  return kept;
}

// The ticks of one stretch: each multiple of ``step`` seconds of real time in it, said in
// ``unit`` (in seconds, not milliseconds, once the real time passes a second: "18.126 s" reads
// better than "18,126 ms" after a long fold).
function stretchTicks([from, to, cut], step, unit) {
  const [size, name] = unit[1] === "ms" && from + cut >= 1 ? UNITS[1] : unit;
  const digits = Math.max(0, -Math.floor(Math.log10(step / size) + 1e-9));
  const say = new Intl.NumberFormat("en-US", {
    minimumFractionDigits: digits, maximumFractionDigits: digits,
  });
  const ticks = [];
  const last = Math.floor((to + cut) / step + 1e-9);
  for (let k = Math.ceil((from + cut) / step - 1e-9); k <= last; k += 1) {
    const real = k * step;
    ticks.push({ at: real - cut, label: `${say.format(real / size || 0)} ${name}` });
  }
  return ticks;
}

// The stretches of the range shown that no fold cut, as [from, to, seconds cut before it] (from
// and to in folded time).
function between(low, high, folds) {
  const stretches = [];
  let from = low;
  let cut = 0;
  for (const fold of [...folds].sort((a, b) => a.from - b.from)) {
    if (fold.from > from && from < high) {
      stretches.push([from, Math.min(fold.from, high), cut]);
    }
    from = Math.max(from, fold.to);
    cut += fold.cut;
  }
  if (from < high) stretches.push([from, high, cut]);
  return stretches;
}

// Whether two neighbouring ticks have labels closer than TICK_GAP.
function crowded(ticks) {
  for (let i = 1; i < ticks.length; i += 1) {
    const [a, b] = [ticks[i - 1], ticks[i]];
    if (b.px - a.px < (a.width + b.width) / 2 + TICK_GAP) return true;
  }
  return false;
}

// A round step (1, 2 or 5 times a power of ten) that cuts ``span`` into about ``count`` parts.
function niceStep(span, count) {
  const raw = Math.max(span, 1e-9) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const error = raw / power;
  const factor = error >= Math.sqrt(50) ? 10 : error >= Math.sqrt(10) ? 5
    : error >= Math.sqrt(2) ? 2 : 1;
  return factor * power;
}

// Each fold in the range shown: a break through the lanes and the axis where the wait was cut,
// and above it how long the wait really was. A click on either unfolds.
function drawBreaks(view, labels) {
  const { x, plotWidth, plotHeight } = view;
  const shown = view.data.folds.filter((fold) => x(fold.at) >= 0 && x(fold.at) <= plotWidth);
  const breaks = view.svg.select(".tl-breaks").attr("transform", `translate(${labels},${TOP})`)
    .selectAll("g.tl-break").data(shown).join((enter) => {
      const mark = enter.append("g").attr("class", "tl-break").attr("role", "button")
        .attr("tabindex", 0);
      mark.append("path").attr("class", "tl-break-fill");
      mark.append("path").attr("class", "tl-break-edge tl-break-left");
      mark.append("path").attr("class", "tl-break-edge tl-break-right");
      mark.append("text").attr("class", "tl-break-label");
      mark.append("title");
      return mark;
    })
    .each(function (fold) { this.__fold = fold; })
    .attr("aria-label", (fold) => `${fold.label}: click to draw it at its real length`)
    .on("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        view.report("unfold", true);
      }
    });
  const bottom = plotHeight + 6; // through the axis' line
  breaks.each(function (fold) {
    const mark = select(this);
    const at = x(fold.at);
    const left = zigzag(at - BREAK, 0, bottom);
    const right = zigzag(at + BREAK, 0, bottom);
    mark.select(".tl-break-left").attr("d", `M${left.join("L")}`);
    mark.select(".tl-break-right").attr("d", `M${right.join("L")}`);
    mark.select(".tl-break-fill").attr("d", band(left, right));
    mark.select("title").text(`${fold.label}: click to draw it at its real length`);
  });
  placeBreakLabels(view, breaks);
}

// The points of a zigzag line from (x, top) down to (x, bottom): one edge of a break.
function zigzag(x, top, bottom) {
  const points = [];
  for (let y = top, i = 0; y < bottom + 4; y += 4, i += 1) {
    points.push([x + (i % 2 ? 2 : -2), Math.min(y, bottom)]);
  }
  return points;
}

// The path of the band between a break's two edges (it hides what the break cuts through).
function band(left, right) {
  return `M${[...left, ...[...right].reverse()].join("L")}Z`;
}

// Each break's label above the lanes, centred on it but kept inside the plot; a label that
// would touch the one before it says the length alone, or nothing (its break's hover says it).
function placeBreakLabels(view, breaks) {
  let end = -Infinity;
  breaks.select(".tl-break-label").each(function (fold) {
    const label = select(this);
    const room = view.plotWidth + RIGHT;
    for (const text of [fold.label, fold.label.replace(/ (idle|wait) folded$/, ""), ""]) {
      label.text(text);
      const width = this.getComputedTextLength();
      const from = Math.min(Math.max(view.x(fold.at) - width / 2, 0), room - width);
      if (!text || from >= end + TICK_GAP) {
        label.attr("x", from).attr("y", -6);
        end = text ? from + width : end;
        break;
      }
    }
  });
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
  return Math.max(0, ...lanes.map((name) => textWidth(view, name)));
}

// A text's width in px, as the chart draws it (12px, the page's font).
function textWidth(view, text) {
  const probe = view.svg.append("text").attr("class", "tl-probe").text(text);
  const width = probe.node().getComputedTextLength();
  probe.remove();
  return width;
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
  if (data.folds.length) entries.push({ name: "a long wait folded (click to unfold)", fold: true });
  legendEntries(view.legend, entries, "tl-legend-entry", [18, 14], (swatch, entry) => {
    if (entry.fold) {
      const [left, right] = [zigzag(6, 0, 14), zigzag(12, 0, 14)];
      swatch.append("path").attr("class", "tl-break-fill").attr("d", band(left, right));
      for (const edge of [left, right]) {
        swatch.append("path").attr("class", "tl-break-edge").attr("d", `M${edge.join("L")}`);
      }
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
