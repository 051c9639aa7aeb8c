import { convert } from 'html-to-text';
import { marked } from 'marked';
import sanitize from 'sanitize-html';
import TurndownService from 'turndown';

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

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });

/** Stored HTML to Markdown for agents and exports. */
export function htmlToMarkdown(html: string): string {
  if (!html.trim()) return '';
  return turndown.turndown(html).trim();
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
