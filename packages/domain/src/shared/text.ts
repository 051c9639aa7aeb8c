import { convert } from 'html-to-text';
import { marked } from 'marked';
import sanitize from 'sanitize-html';
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'b', 'em', 'i', 'u', 's', 'del', 'ins', 'mark',
  'sub', 'sup', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'img', 'table', 'thead', 'tbody', 'tfoot',
  'tr', 'th', 'td', 'span', 'div', 'input',
];

/** Removes scripts, styles, event attributes and foreign tags from user HTML. */
export function sanitizeHtml(html: string): string {
  return sanitize(html, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: {
      a: ['href', 'title', 'target', 'rel'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      td: ['colspan', 'rowspan'],
      th: ['colspan', 'rowspan'],
      code: ['class'],
      ol: ['start'],
      input: ['type', 'checked', 'disabled'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    disallowedTagsMode: 'discard',
    transformTags: { a: sanitize.simpleTransform('a', { rel: 'noopener noreferrer' }) },
    exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
  }).trim();
}

/** Plain text of sanitized HTML, keeping line structure. */
export function htmlToText(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
      { selector: 'h4', options: { uppercase: false } },
      { selector: 'h5', options: { uppercase: false } },
      { selector: 'h6', options: { uppercase: false } },
      { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ],
  }).trim();
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Plain text to HTML: paragraphs on blank lines, <br> on single line breaks. */
export function textToHtml(text: string): string {
  const trimmed = text.replace(/\r\n/g, '\n').trim();
  if (!trimmed) return '';
  return trimmed
    .split(/\n{2,}/)
    .map((para) => `<p>${escapeHtml(para).replace(/\n/g, '<br />')}</p>`)
    .join('');
}

/** Markdown (as agents write it) to sanitized HTML. */
export function markdownToHtml(markdown: string): string {
  const html = marked.parse(markdown, { async: false, gfm: true, breaks: false });
  return sanitizeHtml(html);
}

/**
 * Escapes in a text node only what Markdown would read as markup, so text costs no more than it was written with
 * (turndown's own escaping marks every `_`, `[`, `]` and `1.`, and a description full of `snake_case` grew by each).
 * A text node's start is taken as a line's start (whitespace is collapsed, so it has no line breaks of its own).
 */
/** Marks that mean markup wherever they stand; brackets only where they could make a link (see escapeMarkdown). */
const ANYWHERE = /\\(?=[!-/:-@[-`{-~])|[*`]|~(?=~)|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|[[\]]/g; // `_` inside a word is never emphasis in GFM
const BRACKETS = /\]\s*[([:]/;
/** Marks that mean markup at a line's start. */
const LINE_START: ReadonlyArray<[RegExp, string]> = [
  [/^(#{1,6})(?=\s|$)/, '\\$1'],
  [/^([-+>])(?=\s|$)/, '\\$1'],
  [/^(=+|-{2,})(?=\s*$)/, '\\$1'], // a setext underline or a thematic break
  [/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2'],
  [/^\[([ xX])\]/, '\\[$1\\]'], // a task list item's box
];

function escapeMarkdown(text: string): string {
  const brackets = BRACKETS.test(text);
  const out = text.replace(ANYWHERE, (c) => ((c === '[' || c === ']') && !brackets ? c : `\\${c}`));
  return LINE_START.reduce((acc, [re, to]) => acc.replace(re, to), out);
}

/** Tags inside a table that a GFM table cannot hold: such a table stays HTML. */
const BLOCKS_IN_CELLS = ['UL', 'OL', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HR', 'BLOCKQUOTE', 'PRE', 'TABLE'];

function makeTurndown(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  service.escape = escapeMarkdown;
  // Tables as GFM tables, ~~strikethrough~~ and task list boxes.
  service.use(gfm);
  service.addRule('tableAsHtml', {
    filter: (node) => node.nodeName === 'TABLE' && BLOCKS_IN_CELLS.some((tag) => node.getElementsByTagName(tag).length > 0),
    replacement: (_content, node) => `\n\n${(node as HTMLElement).outerHTML}\n\n`,
  });
  // A heading's text does not start a line: `## 1. Scope` is a heading, not a list.
  service.addRule('heading', {
    filter: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
    replacement: (content, node) => {
      const text = content.replace(/^(\d{1,9})\\([.)])/, '$1$2').replace(/^\\([-+>])/, '$1');
      return `\n\n${'#'.repeat(Number(node.nodeName.charAt(1)))} ${text}\n\n`;
    },
  });
  // List items with the marker and one space, their lines indented by the marker's width (turndown pads markers to four).
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, node) => {
      const parent = node.parentNode as HTMLElement | null;
      let marker = '- ';
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? 1);
        marker = `${(Number.isFinite(start) ? start : 1) + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const paragraph = /\n$/.test(content);
      // The task list box comes with a space of its own before the item's text.
      const body = content.replace(/^\n+|\n+$/g, '').replace(/^(\[[ x]\]) {2,}/, '$1 ') + (paragraph ? '\n' : '');
      return marker + body.replace(/\n(?=[^\n])/g, `\n${' '.repeat(marker.length)}`) + (node.nextSibling ? '\n' : '');
    },
  });
  return service;
}

const turndown = makeTurndown();

/**
 * Conversions made lately, by their HTML: agents read the same tasks and pages again and again, and a conversion
 * parses the HTML into a whole DOM (about 0.2 ms and a few hundred objects for a short description). Bounded in count
 * and in the size of what it keeps; the oldest conversion goes first.
 */
const converted = new Map<string, string>();
const CONVERTED_MAX = 500;
const CONVERTED_HTML_MAX = 16_000;

/** Stored HTML to Markdown for agents and exports. */
export function htmlToMarkdown(html: string): string {
  if (!html.trim()) return '';
  const kept = converted.get(html);
  if (kept !== undefined) return kept;
  const markdown = turndown.turndown(html).trim();
  if (html.length <= CONVERTED_HTML_MAX) {
    if (converted.size >= CONVERTED_MAX) converted.delete(converted.keys().next().value!);
    converted.set(html, markdown);
  }
  return markdown;
}

/** Resolves the stored pair (html, text) from a write that sends HTML or plain text. */
export function richText(html: string | undefined, text: string | undefined): { html: string; text: string } | undefined {
  if (html !== undefined) {
    const clean = sanitizeHtml(html);
    return { html: clean, text: htmlToText(clean) };
  }
  if (text !== undefined) {
    const clean = textToHtml(text);
    return { html: clean, text: text.replace(/\r\n/g, '\n').trim() };
  }
  return undefined;
}

/** Logins mentioned as @login in comment text. */
export function mentionedLogins(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(^|[^\w@.])@([A-Za-z0-9][A-Za-z0-9._-]{0,62}[A-Za-z0-9]|[A-Za-z0-9])/g)) {
    found.add(m[2]!.toLowerCase());
  }
  return [...found];
}
