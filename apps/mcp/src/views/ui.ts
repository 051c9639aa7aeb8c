import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';

/*
 * Browser-side helpers shared by the views (bundled into each view's HTML, see bundle.ts). Every string a person
 * wrote (titles, names, labels, comments) reaches the page through `h`, which makes text nodes: nothing is ever
 * parsed as HTML, so a title like `<img onerror=...>` shows as those characters and runs nothing.
 */

type Child = Node | string | null | undefined | false;

/** An element with a class and children; strings become text nodes, never markup. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

/** What a tool call answered, or an Error with the tool's own message when it answered an error. */
export async function call(app: App, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await app.callServerTool({ name, arguments: args });
  if (result.isError) {
    const first = result.content?.[0];
    throw new Error(first && first.type === 'text' ? first.text : `${name} failed`);
  }
  return (result.structuredContent ?? {}) as Record<string, unknown>;
}

/**
 * The host's theme and style variables (colours, font stacks, radii). Its font CSS is not applied: it may load font
 * files, and a view makes no request of its own; `--font-sans` from the variables still picks the host's family.
 */
function applyContext(ctx: McpUiHostContext | undefined): void {
  if (ctx?.theme) applyDocumentTheme(ctx.theme);
  if (ctx?.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
}

/**
 * Connects the view to its host: follows the host's theme and styles now and when they change, and hands each tool
 * result the host sends (the call that opened the view) to `onResult`.
 */
export async function startView(name: string, onResult: (structured: Record<string, unknown>, app: App) => void): Promise<App> {
  const app = new App({ name, version: '1.0.0' }, {});
  app.onhostcontextchanged = (ctx) => applyContext(ctx);
  app.ontoolresult = (result) => {
    if (!result.isError && result.structuredContent) onResult(result.structuredContent as Record<string, unknown>, app);
  };
  await app.connect();
  applyContext(app.getHostContext());
  return app;
}

/** A one-line status under the view: progress, or the error a tool answered. */
export function setStatus(el: HTMLElement, text: string, error = false): void {
  el.textContent = text;
  el.classList.toggle('error', error);
}

/** Marks the first render, for the render-time figure (tests read it from the Performance API). */
export function markRendered(): void {
  if (!performance.getEntriesByName('view-rendered').length) performance.mark('view-rendered');
}
