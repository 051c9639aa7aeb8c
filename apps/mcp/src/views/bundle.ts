import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin as EsbuildPlugin } from 'esbuild';

/*
 * Bundling of the MCP Apps views. A view's browser code (`board/app.ts`, `task/app.ts`) becomes one self-contained
 * HTML document (script and style inline, ext-apps's App class bundled in). The build puts the documents into the app
 * as a constant (tsup.app.ts, `viewDocuments`); run from source (tests, tsx) the server bundles a view the first time
 * it is read (views/index.ts). No generated file is written or committed.
 */

const HERE = dirname(fileURLToPath(import.meta.url));

/** Each view's browser entry, by its resource URI. */
export const VIEW_ENTRIES: Readonly<Record<string, string>> = {
  'ui://tracker/board': join(HERE, 'board', 'app.ts'),
  'ui://tracker/task': join(HERE, 'task', 'app.ts'),
};

/**
 * zod (which ext-apps validates messages with) re-exports its error messages in every language as `locales`, and a
 * namespace re-export cannot be tree-shaken: some 260 kB of a view. The views use the English default only, so the
 * locales module is replaced by one that has only English.
 */
const englishOnly: EsbuildPlugin = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      (/[\\/]zod[\\/]/.test(args.importer) ? { path: resolve(args.resolveDir, '../locales/en.js'), namespace: 'zod-locales' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.path)};`, loader: 'js', resolveDir: dirname(args.path) }));
  },
};

/** One browser script of `entry` and everything it imports, minified, as a string (tests bundle their host with it too). */
export async function bundleScript(entry: string): Promise<string> {
  const out = await build({
    entryPoints: [entry], bundle: true, write: false, format: 'iife', platform: 'browser', target: 'chrome120',
    minify: true, legalComments: 'none', charset: 'ascii', plugins: [englishOnly],
  });
  return out.outputFiles[0]!.text;
}

/** The view of `entry` as one HTML document: its `style.css` neighbour (and the shared one) and its script inline. */
export async function bundleView(entry: string): Promise<string> {
  const [script, shared, own] = await Promise.all([
    bundleScript(entry),
    readFile(resolve(dirname(entry), '../view.css'), 'utf8'),
    readFile(resolve(dirname(entry), 'style.css'), 'utf8').catch(() => ''),
  ]);
  // Inline script text ends at the first `</script`; esbuild writes none outside strings, and in a string `<\/` is the same.
  const js = script.replace(/<\/(script)/gi, '<\\/$1');
  const css = `${shared}\n${own}`.replace(/<\/(style)/gi, '<\\/$1');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<style>${css}</style></head><body><main id="root" aria-live="polite"></main><script>${js}</script></body></html>`;
}

/** Every view's document by URI: what the build puts into the app (tsup.app.ts). */
export async function viewDocuments(): Promise<Record<string, string>> {
  const entries = Object.entries(VIEW_ENTRIES);
  const docs = await Promise.all(entries.map(([, entry]) => bundleView(entry)));
  return Object.fromEntries(entries.map(([uri], i) => [uri, docs[i]!]));
}
