// A short tour of the REST API touching every documented path, success and error answers, used to
// validate responses through Prism. Each call asserts its status so a broken server fails here too.

/** Runs the tour against `baseUrl` (append /v1) with an all-rights key; resolves the number of requests sent. */
export async function restTour(baseUrl, token) {
  let sent = 0;
  const call = async (method, path, { body, expect, key = token, raw = false } = {}) => {
    sent++;
    const headers = {};
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl}/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== expect) throw new Error(`${method} /v1${path}: expected ${expect}, got ${res.status} ${text.slice(0, 500)}`);
    if (raw || !text) return text;
    return JSON.parse(text);
  };

  await call('GET', '/me', { expect: 200 });
  const users = (await call('GET', '/users', { expect: 200 })).data;
  await call('GET', '/teams', { expect: 200 });
  await call('GET', '/labels', { expect: 200 });

  const key = `C${Date.now().toString(36).slice(-5).toUpperCase()}`;
  const project = (await call('POST', '/projects', { body: { name: 'Contract tour', key, template: 'scrum' }, expect: 201 })).data;
  await call('GET', '/projects', { expect: 200 });
  await call('GET', `/projects/${project.id}`, { expect: 200 });
  await call('PATCH', `/projects/${project.id}`, { body: { description: 'Checked against the OpenAPI document' }, expect: 200 });
  const board = project.boards[0];
  await call('GET', `/boards?projectId=${project.id}`, { expect: 200 });
  await call('GET', `/boards/${board.id}`, { expect: 200 });
  const second = (await call('POST', '/boards', { body: { projectId: project.id, name: 'Bugs', template: 'bugs' }, expect: 201 })).data;
  await call('POST', `/boards/${second.id}/statuses`, { body: { name: 'Verified' }, expect: 201 });

  const task = (
    await call('POST', '/tasks', {
      body: {
        title: 'Check the contract', projectId: project.id, description: '<p>Every response <b>matches</b></p>',
        type: 'bug', priority: 'high', assigneeIds: [users[0].id], labels: ['contract'], dueDate: '2030-01-31',
        checklist: [{ text: 'lint', done: true }, { text: 'prism', done: false }],
      },
      expect: 201,
    })
  ).data;
  const sub = (await call('POST', '/tasks', { body: { title: 'Subtask', boardId: board.id, parentId: task.id }, expect: 201 })).data;
  await call('GET', '/tasks', { expect: 200 });
  await call('GET', `/tasks?projectId=${project.id}&priority=high,medium&label=contract&limit=1`, { expect: 200 });
  await call('GET', `/tasks/${task.key}`, { expect: 200 });
  await call('PATCH', `/tasks/${task.key}`, { body: { priority: 'low', labels: ['contract', 'prism'], timeEstimateSeconds: 3600 }, expect: 200 });
  await call('POST', `/tasks/${task.id}/move`, { body: { statusId: board.statuses[1].id }, expect: 201 });
  const comment = (await call('POST', `/tasks/${task.key}/comments`, { body: { text: `Looks fine @${users[0].login}` }, expect: 201 })).data;
  await call('POST', `/tasks/${task.key}/comments`, { body: { text: 'Agreed', replyTo: comment.id }, expect: 201 });
  await call('GET', `/tasks/${task.key}/comments`, { expect: 200 });
  await call('GET', `/tasks/${task.key}/context`, { expect: 200, raw: true });
  await call('GET', `/tasks/${task.key}/context?format=json`, { expect: 200 });
  await call('POST', `/tasks/${task.key}/time`, { body: { minutes: 45, note: 'review' }, expect: 201 });
  const today = new Date().toISOString().slice(0, 10);
  await call('GET', `/time/entries?from=${today}&to=${today}`, { expect: 200 });
  await call('GET', `/time/report?from=${today}&to=${today}`, { expect: 200 });
  await call('GET', '/doc-spaces', { expect: 200 });
  await call('GET', '/docs', { expect: 200 });
  await call('GET', '/meeting-folders', { expect: 200 });
  await call('GET', '/meetings', { expect: 200 });
  await call('DELETE', `/tasks/${sub.key}`, { expect: 204 });

  // Error answers are part of the contract too.
  await call('POST', '/tasks', { body: { titl: 'typo' }, expect: 400 });
  await call('GET', '/tasks?limit=100000', { expect: 400 });
  await call('GET', '/tasks/NOPE-404', { expect: 404 });
  await call('GET', '/me', { key: 'tt_not_a_real_key', expect: 401 });
  await call('GET', '/me', { key: null, expect: 401 });
  return sent;
}
