// Builds src/history_tree.js and d3 into one ES module the playground passes to Streamlit
// (st.components.v2.component(js=...)). The output is committed: `pip install` needs no Node.
// Its first line names the sha256 of the source it was built from, so a test can tell a
// stale build (tests/playground/ui/test_history_tree_build.py).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { defineConfig } from "vite";

const entry = resolve(import.meta.dirname, "src/history_tree.js");
const source = createHash("sha256").update(readFileSync(entry)).digest("hex");

export default defineConfig({
  build: {
    outDir: resolve(import.meta.dirname, "../../playground/ui/components/assets"),
    emptyOutDir: false,
    minify: true,
    lib: { entry, formats: ["es"], fileName: () => "history_tree.js" },
    rollupOptions: { output: { banner: `// built from src/history_tree.js sha256:${source}` } },
  },
});
