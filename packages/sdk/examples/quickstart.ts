/**
 * A tour of the SDK: who am I, create a project and tasks, list and iterate, move, comment, log time,
 * and handle errors. Run it against a running server (build the SDK first):
 *
 *   TT_BASE_URL=http://127.0.0.1:3000/v1 TT_API_KEY=tt_... npx tsx examples/quickstart.ts
 *
 * The key needs `projects:write`, `tasks:read`, `tasks:write` and `time:write` (the demo key has all rights).
 */
import { ApiError, TaskTrackerClient, TimeoutError } from '@tt/sdk';

/** Runs the tour with a ready client; returns the key of the project it created. */
export async function quickstart(client: TaskTrackerClient, log: (line: string) => void = console.log): Promise<string> {
  const me = await client.me();
  log(`Signed in as ${me.user.name} (${me.user.login}) in ${me.workspace.name}; rights: ${me.key.scopes.join(', ')}`);

  // A project with a board from the `simple` template: columns todo, progress, done.
  const key = `Q${Date.now().toString(36).slice(-6).toUpperCase()}`;
  const project = await client.projects.create({ name: 'SDK quickstart', key, template: 'simple' });
  const board = project.boards[0]!;
  const done = board.statuses.find((s) => s.category === 'done')!;
  log(`Created project ${project.key} with board "${board.name}" (${board.statuses.map((s) => s.name).join(' -> ')})`);

  const first = await client.tasks.create({
    projectId: project.id,
    title: 'Try the SDK',
    descriptionText: 'Create, list, move and comment through @tt/sdk.',
    priority: 'high',
    labels: ['sdk'],
    checklist: [{ text: 'Install' }, { text: 'Read the README', done: true }],
    assigneeIds: [me.user.id],
  });
  for (let i = 2; i <= 5; i++) await client.tasks.create({ projectId: project.id, title: `Task ${i}` });
  log(`Created ${first.key} and four more tasks`);

  // One page at a time ...
  const page = await client.tasks.list({ projectId: project.id, limit: 2 });
  log(`First page: ${page.data.map((t) => t.key).join(', ')} of ${page.total}; next cursor ${page.nextCursor ? 'present' : 'none'}`);
  // ... or every task, the SDK following the cursors.
  const keys: string[] = [];
  for await (const task of client.tasks.iterate({ projectId: project.id, limit: 2 })) keys.push(task.key);
  log(`All tasks: ${keys.join(', ')}`);

  const moved = await client.tasks.move(first.key, { statusId: done.id });
  log(`${moved.key} is now in "${moved.status.name}" (${moved.status.category})`);
  const comment = await client.tasks.addComment(first.key, { text: `Done with the tour, @${me.user.login}.` });
  log(`Commented ${comment.id}`);
  const entry = await client.tasks.logTime(first.key, { minutes: 15, note: 'quickstart' });
  log(`Logged ${entry.seconds / 60} minutes on ${entry.date}`);
  log((await client.tasks.context(first.key)).split('\n')[0]!);

  // Errors carry the spec's code; a per-call timeout and abort signal are available on every method.
  try {
    await client.tasks.get(`${project.key}-999`, { timeoutMs: 5_000 });
  } catch (e) {
    if (e instanceof ApiError) log(`Expected error: ${e.status} ${e.code}: ${e.message} (request ${e.requestId})`);
    else if (e instanceof TimeoutError) log('The server did not answer in 5 s');
    else throw e;
  }
  const rate = client.lastRateLimit;
  if (rate) log(`Rate limit: ${rate.remaining} of ${rate.limit} left, window resets in ${rate.resetSeconds} s`);
  return project.key;
}

const isMain = typeof process !== 'undefined' && process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) {
  const baseUrl = process.env.TT_BASE_URL ?? 'http://127.0.0.1:3000/v1';
  const apiKey = process.env.TT_API_KEY;
  if (!apiKey) {
    console.error('Set TT_API_KEY (and TT_BASE_URL if the server is not on 127.0.0.1:3000)');
    process.exit(1);
  }
  quickstart(new TaskTrackerClient({ baseUrl, apiKey })).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
