import type { McpServer } from '@modelcontextprotocol/server';
import { hasScope } from '@tt/domain';
import { composed } from '../answer/gate.js';
import type { Profile } from '../tool.js';

/*
 * MCP Apps views (extension io.modelcontextprotocol/ui): the board and the task as interactive HTML a host renders
 * beside the tool's answer. show_board and get_task name their view in `_meta.ui.resourceUri` (tools/list, for every
 * client: a client without the extension ignores it and reads the text answer). Each view is one self-contained
 * document bundled at build time (bundle.ts), and acts only through the host's tools/call to the same tools.
 */

/** The views' MIME type, as the MCP Apps specification names it. */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

export const BOARD_VIEW_URI = 'ui://tracker/board';
export const TASK_VIEW_URI = 'ui://tracker/task';

/**
 * The content security the host should enforce: no origin at all. The documents carry their script and style inline
 * and make no request of their own; empty lists say so (no connect, resource, frame or base-uri origin).
 */
const CSP = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

const VIEWS = [
  { name: 'board-view', uri: BOARD_VIEW_URI, title: 'Board view', description: 'Columns and cards of a board, for show_board' },
  { name: 'task-view', uri: TASK_VIEW_URI, title: 'Task view', description: 'A task with its checklist and latest comments, for get_task' },
] as const;

/** The documents the build bundled (tsup.app.ts defines this constant); undefined when run from source. */
declare const __TT_VIEW_DOCUMENTS__: Record<string, string> | undefined;
const BUILT = typeof __TT_VIEW_DOCUMENTS__ === 'undefined' ? undefined : __TT_VIEW_DOCUMENTS__;
/** Bundler of the views from source; a specifier the build cannot follow, so the built app never loads esbuild. */
const BUNDLER = './bundle.js';
const fromSource = new Map<string, Promise<string>>();

/** A view's HTML document by URI: the built one, or (from source: tests, tsx) bundled once on first use. */
export function viewHtml(uri: string): Promise<string> {
  if (BUILT) return Promise.resolve(BUILT[uri]!);
  let doc = fromSource.get(uri);
  if (!doc) {
    doc = (import(/* @vite-ignore */ BUNDLER) as Promise<typeof import('./bundle.js')>).then((b) => b.bundleView(b.VIEW_ENTRIES[uri]!));
    fromSource.set(uri, doc);
  }
  return doc;
}

/**
 * Registers the two views as resources (resources/list and resources/read) for keys that may read tasks in sessions
 * that keep the tasks toolset, the same condition as the tools that name them. The document is the server's own
 * text (marked composed for the answer gate, which still sweeps it); `_meta.ui.csp` sits on the content.
 */
export function registerViews(server: McpServer, profile: Profile): void {
  const toolsets = profile.session?.toolsets ?? null;
  if (!hasScope(profile.actor, 'tasks:read') || (toolsets !== null && !toolsets.includes('tasks'))) return;
  for (const v of VIEWS) {
    server.registerResource(v.name, v.uri, { title: v.title, description: v.description, mimeType: VIEW_MIME_TYPE }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: VIEW_MIME_TYPE, text: composed(await viewHtml(v.uri)), _meta: { ui: { csp: CSP, prefersBorder: true } } }],
    }));
  }
}
