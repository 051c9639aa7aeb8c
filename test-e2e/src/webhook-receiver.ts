import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on 127.0.0.1 for the fault tests: the delivery ids (`x-tracker-delivery`) received for each task
 * of a task.created event, so a test can tell a task delivered once from one delivered twice or never.
 */
export async function webhookReceiver() {
  const byTask = new Map<string, Set<string>>();
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { task?: { id: string } } };
      const taskId = body.data.task?.id;
      if (body.type === 'task.created' && taskId) byTask.set(taskId, (byTask.get(taskId) ?? new Set()).add(String(req.headers['x-tracker-delivery'])));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    byTask,
    requests: () => requests,
    /** Tasks of `ids` never delivered, and tasks delivered under more than one delivery id. */
    missingAndDoubled: (ids: readonly string[]) => [ids.filter((id) => !byTask.has(id)).length, [...byTask.values()].filter((d) => d.size > 1).length] as const,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
