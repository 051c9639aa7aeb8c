import type { Knex } from 'knex';
import type { DocFilter, DocLogRecord, DocRecord, DocSpaceRecord, DocVersionRecord, Repos } from '@tt/domain';
import { columnMap } from '../columns.js';
import { newId, pageById } from '../util.js';

type Row = Record<string, any>;

const orNull = (v: unknown) => v ?? null;
const text = (v: unknown) => (v ?? '') as string;

const SPACE = columnMap<DocSpaceRecord>('doc_spaces', {
  id: 'id', workspaceId: 'workspace_id', name: 'name', description: 'description', memberIds: { column: 'member_ids', read: orNull },
});
/** The docs table; the tree path is a column of its own, not part of the record. */
const DOC = columnMap<DocRecord>('docs', {
  id: 'id', workspaceId: 'workspace_id', spaceId: 'space_id', parentId: { column: 'parent_id', read: orNull }, title: 'title',
  contentHtml: { column: 'content_html', read: text }, text: { column: 'text', read: text },
  taskIds: { column: 'task_ids', readOnly: true, read: (v) => v ?? [] }, authorId: 'author_id',
  createdAt: { column: 'created_at', read: Number }, updatedAt: { column: 'updated_at', read: Number }, version: { column: 'version', read: Number },
});
const VERSION = columnMap<DocVersionRecord>('doc_versions', {
  id: 'id', docId: 'doc_id', title: 'title', contentHtml: 'content_html', text: 'text', createdAt: { column: 'created_at', read: Number },
});
const LOG = columnMap<DocLogRecord>('doc_log', {
  id: 'id', docId: 'doc_id', userId: 'user_id', action: 'action', changes: 'changes', createdAt: { column: 'created_at', read: Number },
});

const TASK_IDS = `coalesce((select array_agg(dt.task_id order by dt.task_id) from doc_tasks dt where dt.doc_id = docs.id), '{}') as task_ids`;
/** List rows leave out the content, which lists never show; the path is the page's position. */
const SUMMARY = [...DOC.select(DOC.fields.filter((f) => f !== 'contentHtml' && f !== 'text')), 'docs.path'];

/** Spaces open to the workspace, or naming the user as a member. */
const readableSpace = (w: Knex.QueryBuilder, userId: string) =>
  w.whereNull('doc_spaces.member_ids').orWhereRaw('? = any(doc_spaces.member_ids)', [userId]);

export function docSpaceRepo(db: Knex): Repos['docSpaces'] {
  return {
    async create(input) {
      const [row] = await db('doc_spaces')
        .insert({ ...SPACE.write({ ...input, id: newId('space') }), created_at: Date.now() })
        .returning('*');
      return SPACE.read(row);
    },
    async get(workspaceId, id) {
      const row = await db('doc_spaces').where({ workspace_id: workspaceId, id }).first();
      return row ? SPACE.read(row) : undefined;
    },
    async listVisible(workspaceId, userId) {
      const rows = await db('doc_spaces').where({ workspace_id: workspaceId }).where((w) => readableSpace(w, userId)).orderBy('id');
      return rows.map(SPACE.read);
    },
  };
}

export function docRepo(db: Knex): Repos['docs'] {
  const select = (columns: string[] = ['docs.*']) => db('docs').select([...columns, db.raw(TASK_IDS)]);
  return {
    async insert(input, path) {
      const id = path.split('/').pop()!;
      await db('docs').insert({ ...DOC.write({ ...input, id }), path });
      return DOC.read(await select().where('docs.id', id).first());
    },
    async get(workspaceId, id) {
      const row = await select().where({ 'docs.workspace_id': workspaceId, 'docs.id': id }).first();
      return row ? { ...DOC.read(row), path: row.path as string } : undefined;
    },
    async byIds(workspaceId, ids) {
      if (!ids.length) return [];
      return (await select().where('docs.workspace_id', workspaceId).whereIn('docs.id', ids).orderBy('docs.path')).map(DOC.read);
    },
    async update(id, p) {
      const data = DOC.write(p);
      // Every change moves the version (the ETag), in the same statement as the change.
      if (Object.keys(data).length) await db('docs').where({ id }).update({ ...data, version: db.raw('version + 1') });
    },
    async setTasks(docId, taskIds) {
      await db('doc_tasks').where({ doc_id: docId }).delete();
      if (taskIds.length) await db('doc_tasks').insert(taskIds.map((taskId) => ({ doc_id: docId, task_id: taskId })));
    },
    list(f: DocFilter, page) {
      const base = db('docs')
        .join('doc_spaces', 'doc_spaces.id', 'docs.space_id')
        .where('docs.workspace_id', f.workspaceId)
        .where((w) => readableSpace(w, f.userId));
      if (f.spaceId) base.where('docs.space_id', f.spaceId);
      if (f.parentId === 'none') base.whereNull('docs.parent_id');
      else if (f.parentId) base.where('docs.parent_id', f.parentId);
      if (f.taskId) base.whereIn('docs.id', db('doc_tasks').select('doc_id').where('task_id', f.taskId));
      if (f.updatedSince !== undefined) base.where('docs.updated_at', '>', f.updatedSince);
      if (f.q) {
        base.whereRaw(
          "docs.search @@ (websearch_to_tsquery('simple', ?) || websearch_to_tsquery('english', ?) || websearch_to_tsquery('russian', ?))",
          [f.q, f.q, f.q],
        );
      }
      return pageById<Row, DocRecord>(base, 'docs.path', page, DOC.read, (q) => q.select([...SUMMARY, db.raw(TASK_IDS)]));
    },
    async linkedToTask(taskId, userId) {
      const rows = db('doc_tasks')
        .join('docs', 'docs.id', 'doc_tasks.doc_id')
        .join('doc_spaces', 'doc_spaces.id', 'docs.space_id')
        .where('doc_tasks.task_id', taskId)
        .orderBy('docs.path')
        .select('docs.id');
      if (userId !== null) rows.where((w) => readableSpace(w, userId));
      return (await rows).map((r: Row) => r.id as string);
    },
    async latestVersion(docId) {
      const row = await db('doc_versions').where({ doc_id: docId }).orderBy('created_at', 'desc').first();
      return row ? VERSION.read(row) : undefined;
    },
    async addVersion(v) {
      await db('doc_versions').insert(VERSION.write({ ...v, id: newId('ver') }));
    },
    async versions(docId) {
      return (await db('doc_versions').where({ doc_id: docId }).orderBy('created_at', 'desc')).map(VERSION.read);
    },
    async addLog(l) {
      await db('doc_log').insert(LOG.write({ ...l, id: newId('dlog') }));
    },
    async log(docId) {
      return (await db('doc_log').where({ doc_id: docId }).orderBy('id')).map(LOG.read);
    },
  };
}
