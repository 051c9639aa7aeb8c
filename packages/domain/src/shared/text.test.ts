import { describe, expect, it } from 'vitest';
import {
  htmlToMarkdown, htmlToText, markdownToHtml, mentionedLogins, richText, sanitizeHtml, textToHtml,
} from './text.js';

describe('sanitizeHtml', () => {
  it('removes <script> and <style> together with their content', () => {
    const out = sanitizeHtml('<p>Hi</p><script>alert("x")</script><style>p { color: red }</style>');
    expect(out).toBe('<p>Hi</p>');
    expect(out).not.toContain('alert');
    expect(out).not.toContain('color');
  });

  it('strips event-handler attributes', () => {
    const out = sanitizeHtml('<p onclick="steal()">Hi</p><img src="https://x.test/a.png" onerror="steal()">');
    expect(out).toBe('<p>Hi</p><img src="https://x.test/a.png" />');
    expect(out).not.toMatch(/on(click|error)/);
  });

  it('drops javascript: hrefs in any spelling but keeps the link text', () => {
    for (const href of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', '&#106;avascript:alert(1)']) {
      const out = sanitizeHtml(`<a href="${href}">click</a>`);
      expect(out, href).toBe('<a rel="noopener noreferrer">click</a>');
    }
  });

  it('keeps http(s) and mailto links and forces rel=noopener', () => {
    expect(sanitizeHtml('<a href="https://x.test" target="_blank" onclick="y()">ok</a>')).toBe(
      '<a href="https://x.test" target="_blank" rel="noopener noreferrer">ok</a>',
    );
    expect(sanitizeHtml('<a href="mailto:a@b.test">m</a>')).toBe('<a href="mailto:a@b.test" rel="noopener noreferrer">m</a>');
  });

  it('discards foreign tags such as iframe, object and embed', () => {
    const out = sanitizeHtml('<p>a</p><iframe src="https://evil.test"></iframe><object data="x.swf"></object><embed src="y">');
    expect(out).toBe('<p>a</p>');
  });

  it('keeps the allowed formatting tags', () => {
    const html = '<p>Hello <strong>bold</strong> <a href="https://x.test" rel="noopener noreferrer">link</a></p><ul><li>one</li><li><code>two</code></li></ul>';
    expect(sanitizeHtml(html)).toBe(html);
    expect(sanitizeHtml('<pre><code class="language-ts">let x</code></pre>')).toBe('<pre><code class="language-ts">let x</code></pre>');
  });

  it('keeps checkbox inputs but drops other inputs', () => {
    expect(sanitizeHtml('<input type="checkbox" checked><input type="text" value="x">')).toBe('<input type="checkbox" checked />');
  });

  it('allows data: images but not javascript: image sources', () => {
    expect(sanitizeHtml('<img src="data:image/png;base64,AA==">')).toBe('<img src="data:image/png;base64,AA==" />');
    expect(sanitizeHtml('<img src="javascript:alert(1)">')).toBe('<img />');
  });

  it('trims surrounding whitespace', () => {
    expect(sanitizeHtml('  <p>x</p>\n')).toBe('<p>x</p>');
  });
});

describe('htmlToText', () => {
  it('keeps line structure, drops link targets and images, keeps heading case', () => {
    const out = htmlToText('<h1>Title</h1><p>Hello <a href="https://x.test">link</a></p><ul><li>one</li><li>two</li></ul><img src="x.png" alt="pic"><p>a<br>b</p>');
    expect(out).toBe('Title\n\nHello link\n\n * one\n * two\n\na\nb');
    expect(out).not.toContain('https://x.test');
    expect(out).not.toContain('pic');
  });

  it('does not wrap long lines', () => {
    const long = 'word '.repeat(60).trim();
    expect(htmlToText(`<p>${long}</p>`)).toBe(long);
  });

  it('decodes entities', () => {
    expect(htmlToText('<p>a &amp; b &lt;c&gt;</p>')).toBe('a & b <c>');
  });
});

describe('textToHtml', () => {
  it('makes paragraphs on blank lines and <br /> on single line breaks', () => {
    expect(textToHtml('one\ntwo\n\nthree')).toBe('<p>one<br />two</p><p>three</p>');
  });

  it('treats several blank lines and CRLF the same way', () => {
    expect(textToHtml('a\r\nb\r\n\r\n\r\nc')).toBe('<p>a<br />b</p><p>c</p>');
  });

  it('escapes HTML special characters', () => {
    expect(textToHtml('<script>alert("x")</script> & co')).toBe('<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co</p>');
  });

  it('returns an empty string for blank input', () => {
    expect(textToHtml('')).toBe('');
    expect(textToHtml('  \n\n \t ')).toBe('');
  });
});

describe('richText', () => {
  it('prefers html when given, sanitizing it and deriving the text', () => {
    expect(richText('<p onclick="x()">Hi <b>there</b></p><script>1</script>', 'ignored')).toEqual({
      html: '<p>Hi <b>there</b></p>',
      text: 'Hi there',
    });
  });

  it('uses html even when it is empty', () => {
    expect(richText('', 'text')).toEqual({ html: '', text: '' });
  });

  it('builds html from plain text when no html is given', () => {
    expect(richText(undefined, '  a\r\nb\n\n<c>  ')).toEqual({ html: '<p>a<br />b</p><p>&lt;c&gt;</p>', text: 'a\nb\n\n<c>' });
  });

  it('returns undefined when neither is given', () => {
    expect(richText(undefined, undefined)).toBeUndefined();
  });
});

describe('markdownToHtml', () => {
  it('renders headings, lists and inline formatting', () => {
    const out = markdownToHtml('# Title\n\n## Sub\n\n- one\n- two\n\n1. first\n\n**b** `c`');
    expect(out).toBe(
      '<h1>Title</h1>\n<h2>Sub</h2>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<ol>\n<li>first</li>\n</ol>\n<p><strong>b</strong> <code>c</code></p>',
    );
  });

  it('strips raw <script> and dangerous links written inside markdown', () => {
    const out = markdownToHtml('Hello\n\n<script>alert(1)</script>\n\n<p onclick="x()">p</p>\n\n[x](javascript:alert(1))');
    expect(out).toContain('<p>Hello</p>');
    expect(out).not.toContain('<script');
    expect(out).not.toContain('alert');
    expect(out).not.toContain('onclick');
    expect(out).toContain('<a rel="noopener noreferrer">x</a>');
  });

  it('keeps GFM task-list checkboxes', () => {
    const out = markdownToHtml('- [x] done\n- [ ] todo');
    expect(out).toContain('<li><input checked disabled type="checkbox" /> done</li>');
    expect(out).toContain('<li><input disabled type="checkbox" /> todo</li>');
  });
});

describe('htmlToMarkdown', () => {
  it('gives the same Markdown for the same HTML, kept or not, however many conversions came between', () => {
    const html = '<p>Kept <strong>once</strong></p><ul><li>a</li></ul>';
    const first = htmlToMarkdown(html);
    expect(first).toBe('Kept **once**\n\n- a');
    for (let i = 0; i < 600; i++) htmlToMarkdown(`<p>other ${i}</p>`);
    expect(htmlToMarkdown(html)).toBe(first);
    const long = `<p>${'x'.repeat(20_000)}</p>`;
    expect(htmlToMarkdown(long)).toBe('x'.repeat(20_000));
    expect(htmlToMarkdown(long)).toBe('x'.repeat(20_000));
  });

  it('converts headings, emphasis, lists, code and links', () => {
    const md = htmlToMarkdown(
      '<h1>T</h1><p>Hello <strong>b</strong> <em>i</em></p><ul><li>one</li><li>two</li></ul><pre><code class="language-js">let x = 1;</code></pre><p><a href="https://x.test">l</a></p>',
    );
    expect(md).toBe('# T\n\nHello **b** *i*\n\n- one\n- two\n\n```js\nlet x = 1;\n```\n\n[l](https://x.test)');
  });

  it('turns a table into a GFM table, its header row first', () => {
    const html =
      '<table><thead><tr><th>Field</th><th>Type</th></tr></thead><tbody><tr><td>amount</td><td>integer</td></tr>' +
      '<tr><td>note | memo</td><td><strong>string</strong></td></tr></tbody></table>';
    expect(htmlToMarkdown(`<p>Fields:</p>${html}`)).toBe(
      'Fields:\n\n| Field | Type |\n| --- | --- |\n| amount | integer |\n| note \\| memo | **string** |',
    );
  });

  it('gives a table without a header row an empty one, so it is still a table', () => {
    expect(htmlToMarkdown('<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>')).toBe(
      '|     |     |\n| --- | --- |\n| a   | b   |\n| c   | d   |',
    );
  });

  it('keeps a table whose cells hold lists as HTML, which a GFM table cannot hold', () => {
    const html = '<table><tbody><tr><th>Step</th></tr><tr><td><ul><li>one</li></ul></td></tr></tbody></table>';
    expect(htmlToMarkdown(html)).toBe(html);
  });

  it('writes the table Markdown makes back as the same table', () => {
    const md = '| Field | Type | Required |\n| --- | --- | --- |\n| amount | integer | yes |\n| currency | string | yes |';
    expect(htmlToMarkdown(markdownToHtml(md))).toBe(md);
  });

  it('keeps strikethrough and task list boxes', () => {
    expect(htmlToMarkdown(markdownToHtml('~~old~~ new\n\n- [x] done\n- [ ] todo'))).toBe('~~old~~ new\n\n- [x] done\n- [ ] todo');
  });

  it('escapes only what Markdown would read as markup', () => {
    expect(htmlToMarkdown('<p>customer_id and snake_case_name [WIP] 1.5 #3 a-b</p>')).toBe('customer_id and snake_case_name [WIP] 1.5 #3 a-b');
    expect(htmlToMarkdown('<p>*not bold* _x_ `y` [t](u) ~~z~~ a\\*b</p>')).toBe('\\*not bold\\* \\_x\\_ \\`y\\` \\[t\\](u) \\~~z\\~~ a\\\\\\*b');
    expect(htmlToMarkdown('<p># not a heading</p><p>- not a list</p><p>2. not a list</p><p>&gt; not a quote</p>')).toBe(
      '\\# not a heading\n\n\\- not a list\n\n2\\. not a list\n\n\\> not a quote',
    );
    expect(htmlToMarkdown('<h2>1. Scope</h2>')).toBe('## 1. Scope');
  });

  it('reads back what it wrote: the escaped text renders as the same text', () => {
    const html = '<p>*a* _b_ `c` [d](e) # f 1. g snake_case</p>';
    expect(markdownToHtml(htmlToMarkdown(html))).toBe(html);
  });

  it('writes nested and numbered lists with markers of one space, indented by their width', () => {
    const md = '- one\n  - inner\n- two\n\n3. three\n4. four\n   - under four';
    expect(htmlToMarkdown(markdownToHtml(md))).toBe(md);
  });

  it('costs at most 2 % more characters than the Markdown a large description was written in', () => {
    const md = largeDescription();
    expect(md.length).toBeGreaterThan(30_000);
    const back = htmlToMarkdown(markdownToHtml(md));
    expect(back.length / md.length).toBeLessThanOrEqual(1.02);
    // Its shape stays: every heading, table row, list item and fence line is there as written (table cells may be padded).
    const shape = (s: string) => s.split('\n').filter((l) => /^(#{1,6} |\||\s*(- |\d+\. )|```)/.test(l)).map((l) => l.replace(/ +/g, ' '));
    expect(shape(back)).toEqual(shape(md));
  });

  it('returns an empty string for blank html', () => {
    expect(htmlToMarkdown('')).toBe('');
    expect(htmlToMarkdown('  \n ')).toBe('');
  });

  it('round-trips simple markdown', () => {
    const md = '## Plan\n\n- step **one**\n- step two';
    expect(htmlToMarkdown(markdownToHtml(md))).toBe(md);
  });
});

describe('mentionedLogins', () => {
  it('finds @logins but not e-mail addresses', () => {
    expect(mentionedLogins('@ann and @bob.smith, email a@b.com not a mention')).toEqual(['ann', 'bob.smith']);
  });

  it('lower-cases and dedupes, keeping first-seen order', () => {
    expect(mentionedLogins('@Bob hi @ann, @ANN and @bob again')).toEqual(['bob', 'ann']);
  });

  it('drops trailing punctuation from a login', () => {
    expect(mentionedLogins('thanks @bob.smith.')).toEqual(['bob.smith']);
    expect(mentionedLogins('(@carol) @dave!')).toEqual(['carol', 'dave']);
    expect(mentionedLogins('@x- done')).toEqual(['x']);
  });

  it('keeps dots, underscores and dashes inside a login', () => {
    expect(mentionedLogins('hi @bob_smith-2!')).toEqual(['bob_smith-2']);
  });

  it('ignores lone @, @@ and logins that start with punctuation', () => {
    expect(mentionedLogins('@ alone, @@double, @-dash, @.dot')).toEqual([]);
  });

  it('returns an empty list when there are no mentions', () => {
    expect(mentionedLogins('')).toEqual([]);
    expect(mentionedLogins('mail me: me@example.com')).toEqual([]);
  });
});

/** A long task description as agents and people write them: headings, paragraphs, lists, tables, code, links, quotes. */
function largeDescription(): string {
  const section = (i: number) => `## ${i}. Checkout step ${i}: the payment provider

The **payment** step calls the provider's \`/v2/charges\` endpoint; see [the provider docs](https://docs.example.com/payments/charges?version=2#create)
and *keep* the idempotency key. Retries must not double-charge a customer (issue #${i}), and amounts are in cents: 1_000 means 10.00.
Fields such as customer_id and order_total_cents are read from the cart [v${i}]; ~~the old flow~~ is gone.

- Validate the cart total against the server's price list
- Send the charge with an \`Idempotency-Key\` header
  - on 409, read the existing charge
  - on 5xx, retry with backoff (1 s, 2 s, 4 s)
- Store the charge id on the order

1. Open the order
2. Charge the card
3. Mark the order paid

| Field | Type | Required | Notes |
| --- | --- | --- | --- |
| amount | integer | yes | cents, > 0 |
| currency | string | yes | ISO 4217, e.g. EUR |
| customer_id | string | no | from /v1/customers |

\`\`\`ts
const charge = await provider.charges.create({ amount: order.total, currency: 'EUR' }, { idempotencyKey: order.id });
if (charge.status !== 'succeeded') throw new PaymentError(charge.failure_code ?? 'unknown');
\`\`\`

> Note: the sandbox answers with test cards only (4242 4242 4242 4242).

- [ ] Write the retry test
- [x] Agree on the error codes
`;
  let md = '# Checkout rewrite\n\nThe plan for the new checkout, step by step.\n\n';
  for (let i = 1; md.length < 30_000; i++) md += `${section(i)}\n`;
  return md.trim();
}
