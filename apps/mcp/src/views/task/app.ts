import type { App } from '@modelcontextprotocol/ext-apps';
import { call, h, markRendered, setStatus, startView } from '../ui.js';

/*
 * The task view (ui://tracker/task). get_task's Markdown answer carries only the task's key in its structured
 * content, so the view reads the parts it shows with get_task in format json (the same tool, the same key): title,
 * properties, checklist and the latest comments. Ticking an item and commenting go through update_task and add_comment.
 */

interface Person { id: string; login: string | null }
interface Item { id: string; text: string; done: boolean }
interface Comment { id: string; author: string | null; createdAt: string; text: string; nextOffset: number | null }
interface TaskData {
  task: {
    key: string; title: string; status: string; type: string; priority: string; assignees: Person[]; reporter: Person;
    labels: string[]; dueDate: string | null; project: { key: string; name: string } | null; board: { name: string } | null;
  };
  checklist: Item[];
  /** False when get_task cut the checklist (too many items, or long ones): then it cannot be written back whole. */
  checklistComplete?: boolean;
  commentList?: Comment[];
}

const COMMENTS = 5;
const root = document.getElementById('root')!;
const status = h('p', 'status');

const load = async (app: App, key: string) =>
  (await call(app, 'get_task', { task: key, format: 'json', sections: ['checklist', 'comments'], comments: COMMENTS })) as unknown as TaskData;

const who = (p: Person) => (p.login ? `@${p.login}` : p.id);

function properties(d: TaskData): HTMLElement {
  const t = d.task;
  const rows: Array<[string, string]> = [
    ['Column', t.status], ['Type', t.type], ['Priority', t.priority],
    ['Assignees', t.assignees.length ? t.assignees.map(who).join(', ') : 'none'], ['Reporter', who(t.reporter)],
    ['Due', t.dueDate ?? 'none'], ['Labels', t.labels.length ? t.labels.join(', ') : 'none'],
    ...(t.project ? [['Project', `${t.project.key} · ${t.project.name}`] as [string, string]] : []),
    ...(t.board ? [['Board', t.board.name] as [string, string]] : []),
  ];
  return h('dl', undefined, ...rows.flatMap(([k, v]) => [h('dt', undefined, k), h('dd', undefined, v)]));
}

function checklist(app: App, d: TaskData): HTMLElement {
  const editable = d.checklistComplete !== false;
  const list = h('ul', 'checklist');
  for (const item of d.checklist) {
    const box = h('input');
    box.type = 'checkbox';
    box.checked = item.done;
    box.disabled = !editable;
    box.addEventListener('change', () => void tick(app, d.task.key, item.id, box.checked));
    list.append(h('li', undefined, h('label', undefined, box, h('span', undefined, item.text))));
  }
  return h('section', undefined, h('h2', undefined, 'Checklist'), d.checklist.length ? list : h('p', 'muted', 'No checklist.'),
    !editable && h('p', 'muted', 'This checklist is too long to edit here.'));
}

function comments(app: App, d: TaskData): HTMLElement {
  const list = (d.commentList ?? []).map((c) => h('div', 'comment',
    h('div', 'muted', `${c.author ? `@${c.author}` : 'someone'} · ${new Date(c.createdAt).toLocaleString()}`),
    h('div', 'text', c.text, c.nextOffset !== null ? ' …' : null)));
  const text = h('textarea');
  text.setAttribute('aria-label', 'New comment');
  text.maxLength = 10_000;
  const send = h('button', undefined, 'Comment');
  send.type = 'submit';
  const form = h('form', undefined, text, send);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (text.value.trim()) void comment(app, d.task.key, text.value);
  });
  return h('section', undefined, h('h2', undefined, 'Latest comments'), ...(list.length ? list : [h('p', 'muted', 'No comments yet.')]), form);
}

function render(app: App, d: TaskData): void {
  current = d;
  root.replaceChildren(h('span', 'key', d.task.key), h('h1', undefined, d.task.title), properties(d), checklist(app, d), comments(app, d), status);
  markRendered();
}

/** Runs a change, then shows the task as it now is; an error leaves the view as it was, with the tool's message. */
async function change(app: App, key: string, doing: string, act: () => Promise<unknown>): Promise<void> {
  root.querySelectorAll<HTMLInputElement | HTMLButtonElement>('input, button').forEach((el) => (el.disabled = true));
  setStatus(status, doing);
  try {
    await act();
    render(app, await load(app, key));
    setStatus(status, 'Saved.');
  } catch (e) {
    render(app, (await load(app, key).catch(() => null)) ?? current!);
    setStatus(status, (e as Error).message, true);
  }
}

let current: TaskData | null = null;

async function tick(app: App, key: string, itemId: string, done: boolean): Promise<void> {
  await change(app, key, 'Saving the checklist…', async () => {
    // update_task replaces the whole checklist: read it fresh so a change made meanwhile is not undone.
    const fresh = await load(app, key);
    // A list get_task cut (too many items, or an item's text shortened) cannot be written back whole.
    if (fresh.checklistComplete === false || fresh.checklist.some((i) => i.text.includes('[cut: '))) throw new Error('This checklist is too long to edit here.');
    if (!fresh.checklist.some((i) => i.id === itemId)) throw new Error('The checklist changed meanwhile; here it is as it is now.');
    const checklist = fresh.checklist.map((i) => ({ text: i.text, done: i.id === itemId ? done : i.done }));
    await call(app, 'update_task', { task: key, checklist });
  });
}

async function comment(app: App, key: string, text: string): Promise<void> {
  await change(app, key, 'Adding the comment…', () => call(app, 'add_comment', { task: key, text }));
}

root.append(h('p', 'muted', 'Loading the task…'));
void startView('tracker-task', (structured, app) => {
  const key = typeof structured.key === 'string' ? structured.key : null;
  if (!key) return;
  void load(app, key).then((d) => render(app, d), (e: unknown) => setStatus(status, (e as Error).message, true));
});
