import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { build, type Plugin as EsbuildPlugin } from 'esbuild';

/*
 * Build-time bundling of the MCP Apps views. A view's browser code (`board/app.ts`, `task/app.ts`) is imported by the
 * server as `import html from './board/app.ts?view'`: the import becomes a string holding one self-contained HTML
 * document (script and style inline, ext-apps's App class bundled in), made when the app is built (tsup's esbuild
 * plugin below) or when tests load the module (the Vite plugin for vitest). No generated file is written or committed.
 */

const SUFFIX = '?view';

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

const moduleOf = async (path: string): Promise<string> => `export default ${JSON.stringify(await bundleView(path))};`;

/** tsup's (esbuild's) plugin: `*.ts?view` imports become the view's HTML string. */
export function viewEsbuildPlugin(): EsbuildPlugin {
  return {
    name: 'mcp-app-view',
    setup(b) {
      b.onResolve({ filter: /\?view$/ }, (args) => ({ path: resolve(args.resolveDir, args.path.slice(0, -SUFFIX.length)), namespace: 'mcp-app-view' }));
      b.onLoad({ filter: /.*/, namespace: 'mcp-app-view' }, async (args) => ({ contents: await moduleOf(args.path), loader: 'js' }));
    },
  };
}

/** Vite's (vitest's) plugin doing the same for tests. Typed structurally, so this file needs no Vite import. */
export function viewVitePlugin() {
  const PREFIX = '\0mcp-app-view:';
  return {
    name: 'mcp-app-view',
    enforce: 'pre' as const,
    resolveId(id: string, importer?: string) {
      if (!id.endsWith(SUFFIX) || !importer) return null;
      return PREFIX + resolve(dirname(importer), id.slice(0, -SUFFIX.length));
    },
    async load(id: string) {
      return id.startsWith(PREFIX) ? moduleOf(id.slice(PREFIX.length)) : null;
    },
  };
}
