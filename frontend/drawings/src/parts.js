// What both drawings draw the same way: a hover card's lines and a legend's entries. Every text
// comes from the data and reaches the page through d3's .text, never as markup.
import { select } from "d3-selection";

// The hover card's lines, one per [key, value] fact; ``keyClass`` styles the key.
export function fillCard(card, facts, keyClass) {
  card.selectAll("div").data(facts).join((enter) => {
    const line = enter.append("div");
    line.append("span").attr("class", keyClass);
    line.append("span");
    return line;
  }).call((line) => line.select(`.${keyClass}`).text(([key]) => key))
    .call((line) => line.select("span:last-child").text(([, value]) => String(value)));
}

// One legend entry (``span.<entryClass>``: a ``width`` x ``height`` swatch, then the entry's
// name) per entry under ``parent``; ``drawSwatch(swatch, entry)`` draws into the emptied swatch.
export function legendEntries(parent, entries, entryClass, [width, height], drawSwatch) {
  parent.selectAll(`span.${entryClass}`).data(entries).join((enter) => {
    const entry = enter.append("span").attr("class", entryClass);
    entry.append("svg").attr("width", width).attr("height", height).attr("aria-hidden", "true");
    entry.append("span");
    return entry;
  }).each(function (entry) {
    const swatch = select(this).select("svg");
    swatch.selectAll("*").remove();
    drawSwatch(swatch, entry);
    select(this).select("span").text(entry.name);
  });
}
