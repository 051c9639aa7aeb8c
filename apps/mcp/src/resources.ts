import { ResourceNotFoundError, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { context, docs, DomainError, hasScope, ListTasksQuery, tasks } from '@tt/domain';
import { bound } from './answer/answer.js';
import { fitCuts, renderTaskView } from './answer/context-view.js';
import type { Profile } from './tool.js';
import { contextOf } from './edge/context.js';
import { cutPoint, echo, fence, fenceInline } from './answer/untrusted.js';

/**
 * Resources: `task://{key}` and `doc://{id}`, read with the same use cases and visibility as get_task and get_doc
 * (an invisible task or page is "not found", as everywhere), and offered only when the key's rights and the
 * session's toolsets allow those tools.
 */
export function registerResources(server: McpServer, profile: Profile): void {
  const toolsets = profile.session?.toolsets ?? null;
  const offers = (set: 'tasks' | 'docs') => toolsets === null || toolsets.includes(set);
  // completion/complete on the templates' variables is answered with the prompts' completions (prompts/prompt.ts).
  if (hasScope(profile.actor, 'tasks:read') && offers('tasks')) {
    server.registerResource(
      'task',
      new ResourceTemplate('task://{key}', {
        // Listing offers the user's open tasks, newest first: a starting point, not the whole tracker.
        list: async (extra) => {
          const { actor, deps } = contextOf(extra);
          const page = await tasks.listTasks(actor, ListTasksQuery.parse({ assigneeId: actor.user.id, category: 'todo,progress', orderBy: 'updated', limit: 50 }), deps);
          return { resources: page.data.map((t) => ({ uri: `task://${t.key}`, name: t.key, title: `${t.key} ${echo(t.title)}`, mimeType: 'text/markdown' })) };
        },
      }),
      { title: 'Task', description: 'A task by key (task://WEB-12) or id, as get_task shows it', mimeType: 'text/markdown' },
      async (uri, vars, extra) => {
        const { actor, deps } = contextOf(extra);
        const ref = decodeURIComponent(String(vars.key ?? ''));
        const view = await context.taskView(actor, ref, { sections: context.TASK_SECTIONS, comments: 10, excerpt: 300 }, deps).catch((e: unknown) => {
          throw e instanceof DomainError && e.code === 'not_found' ? new ResourceNotFoundError(uri.href, `Task ${echo(ref)} not found; search_tasks finds task keys`) : e;
        });
        // The same cuts and notes as get_task: a cut text names the get_task call that reads on.
        const cuts = fitCuts((c) => renderTaskView(view, c).text.length);
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: bound(renderTaskView(view, cuts).text) }] };
      },
    );
  }
  if (hasScope(profile.actor, 'docs:read') && offers('docs')) {
    server.registerResource(
      'doc',
      new ResourceTemplate('doc://{id}', {
        list: async (extra) => {
          const { actor, deps } = contextOf(extra);
          const page = await docs.listDocs(actor, { limit: 50 }, deps);
          return { resources: page.data.map((d) => ({ uri: `doc://${d.id}`, name: d.id, title: echo(d.title), mimeType: 'text/markdown' })) };
        },
      }),
      { title: 'Documentation page', description: 'A documentation page by id (doc://<id>), first 15000 characters', mimeType: 'text/markdown' },
      async (uri, vars, extra) => {
        const { actor, deps } = contextOf(extra);
        const id = decodeURIComponent(String(vars.id ?? ''));
        const page = await docs.getDoc(actor, id, deps).catch((e: unknown) => {
          throw e instanceof DomainError && e.code === 'not_found' ? new ResourceNotFoundError(uri.href, `Page ${echo(id)} not found; list_docs finds page ids`) : e;
        });
        const md = docs.pageMarkdown({ title: '', content: page.content }).replace(/^#\s*\n+/, '');
        const end = cutPoint(md, 15_000);
        const text = [
          `# Page ${page.id}`, '', `Title: ${fenceInline('doc-title', page.title, { id: page.id })}`, '', fence('page', md.slice(0, end), { id: page.id }),
          ...(end < md.length ? ['', `[… ${md.length - end} more characters cut here; read on with get_doc {doc: "${page.id}", offset: ${end}}]`] : []),
        ].join('\n');
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: bound(text) }] };
      },
    );
  }
}
