// Builds src/ and the d3 modules it uses into one ES module the playground passes to Streamlit
// for each of its custom components (st.components.v2.component(js=...)). The output is
// committed: `pip install` needs no Node. Its first line names the sha256 of the sources it was
// built from, so a test can tell a stale build (tests/playground/ui/test_drawings_build.py).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { defineConfig } from "vite";

const src = resolve(import.meta.dirname, "src");
const hash = createHash("sha256");
for (const name of readdirSync(src).filter((n) => n.endsWith(".js")).sort()) {
  hash.update(name).update("\0").update(readFileSync(resolve(src, name))).update("\0");
}
const source = hash.digest("hex");

export default defineConfig({
  build: {
    outDir: resolve(import.meta.dirname, "../../playground/ui/components/assets"),
    emptyOutDir: false,
    minify: true,
    lib: { entry: resolve(src, "index.js"), formats: ["es"], fileName: () => "drawings.js" },
    rollupOptions: { output: { banner: `// built from src/*.js sha256:${source}` } },
  },
});
