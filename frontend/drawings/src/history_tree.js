// The history tree's drawing: a thread's checkpoints as a git graph, one row per checkpoint
// (newest at the top) and one lane per branch, drawn with d3 into the page (a Streamlit custom
// component, v2: no iframe). Python lays the graph out (playground/timetravel/tree_layout.py)
// and sends plain data; this file only draws it and reports a click.
//
// Everything it shows comes from a database the playground did not write: it reaches the page
// as text nodes (d3's .text), never as markup.
//
// A thread of any length is one scrolling list of fixed-height rows, of which only the rows in
// view (and the lines crossing them) are elements: a 10,000-checkpoint thread costs what its
// 22 visible rows do. The strip at the left is the whole thread at once (its shape, lanes and
// kinds); pressing or dragging in it scrolls the list there.
import { select } from "d3-selection";
import { fillCard, legendEntries } from "./parts.js";

const ROW = 24; // px per row: room for 12 px text and a ring
const LANE = 18; // px between lanes
const GAP = 12; // px from the list's left edge to lane 0
const STRIP = 40; // px: the overview strip's width
const OVERSCAN = 6; // rows drawn beyond each edge of the view, so a scroll never shows a gap
const MAX_STRIP_LANES = 6; // lanes past this share the strip's last column
const CARD_GAP = 8; // px between the hover card and what it sits beside

// One row of the data Python sends (see playground/ui/components/history_tree.py, _data).
const F = {
  ordinal: 0, lane: 1, parent: 2, parentLane: 3, kind: 4, line: 5, ring: 6, node: 7,
  tip: 8, id: 9, step: 10, source: 11, time: 12, bytes: 13, branch: 14,
};

export default function historyTree(component) {
  const { data, parentElement, setTriggerValue } = component;
  let root = parentElement.querySelector(":scope > .ht");
  if (!root) root = build(parentElement);
  const view = root.__view;
  view.pick = setTriggerValue;
  show(view, data);
}

// The elements that last across reruns: the list keeps its scroll position while the page
// draws a new selection.
function build(parent) {
  const root = select(parent).append("div").attr("class", "ht");
  const main = root.append("div").attr("class", "ht-main");
  const strip = main.append("svg").attr("class", "ht-strip").attr("aria-hidden", "true");
  strip.append("rect").attr("class", "ht-strip-ground");
  strip.append("g").attr("class", "ht-strip-marks");
  strip.append("rect").attr("class", "ht-strip-window");
  const list = main.append("div").attr("class", "ht-list");
  const spacer = list.append("div").attr("class", "ht-spacer");
  const graph = spacer.append("svg").attr("class", "ht-graph").attr("aria-hidden", "true");
  graph.append("g").attr("class", "ht-lines");
  graph.append("g").attr("class", "ht-points");
  graph.append("g").attr("class", "ht-rings");
  const rows = spacer.append("div").attr("class", "ht-rows").attr("role", "listbox");
  const legend = root.append("div").attr("class", "ht-legend");
  const tooltip = root.append("div").attr("class", "ht-tooltip").attr("role", "tooltip")
    .style("display", "none");
  const view = {
    root, main, strip, list, spacer, graph, rows, legend, tooltip, data: null, frame: 0,
    pick: null,
  };
  root.node().__view = view;
  list.on("scroll", () => {
    hideTooltip(view); // its row moves away under it
    if (!view.frame) view.frame = requestAnimationFrame(() => { view.frame = 0; drawRows(view); });
  });
  // The strip scrolls the list: a press centres the view on the rows under the pointer, and
  // a drag keeps doing so.
  const follow = (event) => {
    const box = view.strip.node().getBoundingClientRect();
    const share = Math.min(Math.max((event.clientY - box.top) / box.height, 0), 1);
    const list = view.list.node();
    list.scrollTop = share * view.data.rows.length * ROW - list.clientHeight / 2;
  };
  strip.on("pointerdown", (event) => {
    event.preventDefault();
    strip.node().setPointerCapture(event.pointerId);
    follow(event);
    strip.on("pointermove", follow);
  });
  strip.on("pointerup pointercancel", (event) => {
    strip.node().releasePointerCapture(event.pointerId);
    strip.on("pointermove", null);
  });
  return root.node();
}

function show(view, data) {
  const first = view.data === null;
  view.data = data;
  const total = data.rows.length;
  const height = Math.min(total, data.visible) * ROW;
  const whole = total > data.visible;
  view.graphWidth = GAP + Math.max(data.lanes - 1, 0) * LANE + GAP;
  view.root.classed("ht-pickable", data.pickable);
  view.list.style("height", `${height}px`);
  view.spacer.style("height", `${total * ROW}px`);
  view.graph.attr("width", view.graphWidth);
  view.strip.style("display", whole ? null : "none").attr("width", STRIP).attr("height", height);
  drawStrip(view, height);
  drawLegend(view);
  // Keep what the person looks at: scroll only when the row to show is out of view (on the
  // first drawing, or when Older/Newer or Go to moved the selection past an edge).
  const list = view.list.node();
  const at = total - data.at; // the row's index from the top
  const top = list.scrollTop / ROW;
  const inView = at >= top + 1 && at <= top + data.visible - 2;
  if (first || !inView) {
    list.scrollTop = Math.max(at - data.visible / 2 + 0.5, 0) * ROW;
  }
  drawRows(view);
}

const x = (lane) => GAP + lane * LANE;

// The rows in view: their points, rings and labels, and every line that crosses the view.
function drawRows(view) {
  const { data } = view;
  const rows = data.rows;
  const total = rows.length;
  const list = view.list.node();
  const first = Math.max(Math.floor(list.scrollTop / ROW) - OVERSCAN, 0);
  const last = Math.min(Math.ceil((list.scrollTop + list.clientHeight) / ROW) + OVERSCAN,
    total - 1);
  const index = (ordinal) => total - ordinal;
  const y = (i) => (i - first) * ROW + ROW / 2;
  const shown = [];
  for (let i = first; i <= last; i++) shown.push(rows[total - 1 - i]);
  // A line runs from a checkpoint down its own lane to just above its parent, then across
  // to the parent's lane; it is drawn when any of it crosses the view.
  const lines = [];
  for (const row of rows) {
    const parent = row[F.parent];
    if (parent === null) continue;
    const from = index(row[F.ordinal]);
    const to = index(parent);
    if (from > last || to < first) continue;
    lines.push(row);
  }
  lines.sort((a, b) => (a[F.line] > 0) - (b[F.line] > 0)); // highlighted lines on top
  view.graph.style("top", `${first * ROW}px`).attr("height", (last - first + 1) * ROW);
  view.graph.select(".ht-lines").selectAll("path")
    .data(lines, (row) => row[F.id])
    .join("path")
    .attr("d", (row) => {
      const from = index(row[F.ordinal]);
      const to = index(row[F.parent]);
      const bend = row[F.parentLane] === row[F.lane] ? y(to) : y(to) - ROW / 2;
      return `M${x(row[F.lane])},${y(from)}V${bend}L${x(row[F.parentLane])},${y(to)}`;
    })
    .attr("stroke", (row) => data.lines[row[F.line]][1]);
  view.graph.select(".ht-points").selectAll("circle")
    .data(shown, (row) => row[F.id])
    .join("circle")
    .attr("data-id", (row) => row[F.id])
    .attr("cx", (row) => x(row[F.lane]))
    .attr("cy", (row) => y(index(row[F.ordinal])))
    .attr("r", 5.5)
    .attr("fill", (row) => data.kinds[row[F.kind]][1]);
  view.graph.select(".ht-rings").selectAll("path")
    .data(shown.filter((row) => row[F.ring] !== null), (row) => row[F.id])
    .join("path")
    .attr("d", (row) => ringPath(data.rings[row[F.ring]][1], x(row[F.lane]),
      y(index(row[F.ordinal]))))
    .attr("stroke", (row) => data.rings[row[F.ring]][2]);
  view.rows.selectAll("div.ht-row")
    .data(shown, (row) => row[F.id])
    .join((enter) => {
      const div = enter.append("div").attr("class", "ht-row");
      div.append("span").attr("class", "ht-name");
      div.append("span").attr("class", "ht-tip");
      return div;
    })
    .style("top", (row) => `${index(row[F.ordinal]) * ROW}px`)
    .style("padding-left", `${view.graphWidth}px`)
    .attr("role", "option")
    .attr("aria-label", (row) => label(row))
    .attr("aria-selected", (row) => String(row[F.id] === data.selected))
    .attr("data-id", (row) => row[F.id])
    .classed("ht-selected", (row) => row[F.id] === data.selected)
    .call((div) => div.select(".ht-name").text((row) => label(row)))
    .call((div) => div.select(".ht-tip").text((row) => row[F.tip] ?? ""))
    .on("click", (event, row) => { if (data.pickable) view.pick("pick", row[F.id]); })
    // a pointer that hovers; a finger's tap opens the checkpoint, whose inspector says it all
    .on("pointerenter", (event, row) => {
      if (event.pointerType !== "touch") showTooltip(view, event.currentTarget, row);
    })
    .on("pointerleave", () => hideTooltip(view));
  moveWindow(view);
}

const label = (row) => `#${row[F.ordinal]} ${row[F.node]}`;

function ringPath(shape, cx, cy) {
  if (shape === "diamond") {
    const r = 9;
    return `M${cx},${cy - r}L${cx + r},${cy}L${cx},${cy + r}L${cx - r},${cy}Z`;
  }
  const r = 8.5;
  return `M${cx - r},${cy}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
}

// What hovering a row says of its checkpoint, every field on a line of its own.
function showTooltip(view, target, row) {
  const data = view.data;
  const facts = [
    ["checkpoint", label(row)], ["id", row[F.id]], ["node", row[F.node]],
    ["step", row[F.step] ?? "?"], ["source", row[F.source]], ["time", row[F.time]],
    ["stored bytes", row[F.bytes].toLocaleString("en-US")],
    ["its branch", data.branches[row[F.branch]]],
  ];
  fillCard(view.tooltip, facts, "ht-tooltip-key");
  view.tooltip.style("display", null);
  placeCard(view, target);
}

function hideTooltip(view) {
  view.tooltip.style("display", "none");
}

// Where a card can be seen: the page's main area (Streamlit's sidebar lies over the window's
// left part when it is open), within the window.
function pageArea(node) {
  const main = node.closest('[data-testid="stMain"]');
  const box = main ? main.getBoundingClientRect() : { left: 0, right: Infinity };
  return {
    left: Math.max(box.left, 0),
    right: Math.min(box.right, document.documentElement.clientWidth),
  };
}

// The card sits beside the hovered row, outside the drawing: to its right where the window
// has room, else to its left, its top level with the row's. Over the drawing it would hide the
// rows below the row and the legend, which a person reads next. A window too narrow for either
// side (a phone held upright) gets it above the row, or, with no room there either, under the
// legend.
function placeCard(view, target) {
  const card = view.tooltip.node();
  const home = view.root.node().getBoundingClientRect();
  const row = target.getBoundingClientRect();
  const width = card.offsetWidth;
  const height = card.offsetHeight;
  const shown = pageArea(view.root.node());
  const rowTop = row.top - home.top;
  // level with the row, moved up only as far as keeps it in the window
  const beside = Math.max(Math.min(rowTop, window.innerHeight - home.top - height - CARD_GAP),
    rowTop + row.height - height);
  let left;
  let top = beside;
  if (home.right + CARD_GAP + width <= shown.right) {
    left = home.width + CARD_GAP;
  } else if (home.left - CARD_GAP - width >= shown.left) {
    left = -width - CARD_GAP;
  } else {
    left = Math.max(Math.min(view.graphWidth, shown.right - home.left - width - CARD_GAP),
      shown.left - home.left, 0);
    top = row.top - height - CARD_GAP >= 0 ? rowTop - height - CARD_GAP : home.height + CARD_GAP;
  }
  view.tooltip.style("left", `${left}px`).style("top", `${top}px`);
}

// The strip: every checkpoint of the thread in one column per lane, a pixel row holding the
// rows that fall on it (drawn in the colour of the rarest kind among them, so a lone failure
// among thousands of steps still shows), consecutive pixels of one colour merged.
function drawStrip(view, height) {
  const { data } = view;
  const total = data.rows.length;
  const marks = [];
  if (total > data.visible) {
    const cells = new Map(); // lane -> pixel -> kind
    for (const row of data.rows) {
      const lane = Math.min(row[F.lane], MAX_STRIP_LANES - 1);
      const pixel = Math.floor(((total - row[F.ordinal]) / total) * height);
      if (!cells.has(lane)) cells.set(lane, new Map());
      const column = cells.get(lane);
      const kind = row[F.kind];
      const held = column.get(pixel);
      if (held === undefined || data.kinds[kind][2] < data.kinds[held][2]) column.set(pixel, kind);
    }
    for (const [lane, column] of cells) {
      const pixels = [...column.keys()].sort((a, b) => a - b);
      let start = null;
      let end = null;
      let kind = null;
      for (const pixel of pixels) {
        const here = column.get(pixel);
        if (start !== null && pixel === end + 1 && here === kind) { end = pixel; continue; }
        if (start !== null) marks.push({ lane, start, end, kind });
        start = pixel; end = pixel; kind = here;
      }
      if (start !== null) marks.push({ lane, start, end, kind });
    }
  }
  view.strip.select(".ht-strip-ground").attr("x", 2).attr("y", 0)
    .attr("width", STRIP - 4).attr("height", height).attr("rx", 3);
  view.strip.select(".ht-strip-marks").selectAll("rect").data(marks).join("rect")
    .attr("x", (mark) => 7 + mark.lane * 5).attr("width", 4)
    .attr("y", (mark) => mark.start).attr("height", (mark) => mark.end - mark.start + 1)
    .attr("fill", (mark) => data.kinds[mark.kind][1]);
}

// The strip's frame around the rows the list shows.
function moveWindow(view) {
  const total = view.data.rows.length;
  if (total <= view.data.visible) return;
  const list = view.list.node();
  const height = list.clientHeight;
  const top = (list.scrollTop / ROW / total) * height;
  const size = Math.max((height / ROW / total) * height, 3);
  view.strip.select(".ht-strip-window").attr("x", 1).attr("width", STRIP - 2)
    .attr("y", Math.min(top, height - size)).attr("height", size);
}

// Every colour and shape the picture uses, with its meaning, as small drawn swatches.
function drawLegend(view) {
  const { data } = view;
  const groups = [
    ["checkpoints", data.kinds.map(([name, colour]) => ({ name, colour, shape: "dot" }))],
    // the highlighted lines first, then the other branches' (index 0)
    ["lines", [...data.lines.slice(1), data.lines[0]].filter(([, , used]) => used)
      .map(([name, colour]) => ({ name, colour, shape: "line" }))],
    ["marks", data.rings.filter(([, , , used]) => used)
      .map(([name, shape, colour]) => ({ name, colour, shape }))],
  ].filter(([, entries]) => entries.length);
  view.legend.selectAll("div.ht-legend-group").data(groups).join((enter) => {
    const group = enter.append("div").attr("class", "ht-legend-group");
    group.append("span").attr("class", "ht-legend-title");
    return group;
  }).call((group) => group.select(".ht-legend-title").text(([title]) => title))
    .each(function ([, entries]) {
      legendEntries(select(this), entries, "ht-legend-entry", [16, 16], (swatch, entry) => {
        if (entry.shape === "dot") {
          swatch.append("circle").attr("cx", 8).attr("cy", 8).attr("r", 5.5)
            .attr("fill", entry.colour);
        } else if (entry.shape === "line") {
          swatch.append("path").attr("d", "M1,8H15").attr("stroke", entry.colour)
            .attr("stroke-width", 2);
        } else {
          swatch.append("path").attr("class", "ht-ring").attr("stroke", entry.colour)
            .attr("d", entry.shape === "diamond"
              ? "M8,1.5L14.5,8L8,14.5L1.5,8Z" : "M2,8a6,6 0 1,0 12,0a6,6 0 1,0 -12,0");
        }
      });
    });
}
