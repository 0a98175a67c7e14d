// The playground's drawings, one ES module for every custom component it registers
// (playground/ui/components/drawings.py). Each component's data names its drawing.
import historyTree from "./history_tree.js";
import timeline from "./timeline.js";

const DRAWINGS = { history_tree: historyTree, timeline };

export default function draw(component) {
  const drawing = DRAWINGS[component.data?.drawing];
  if (!drawing) throw new Error(`no drawing named ${component.data?.drawing}`);
  return drawing(component);
}
