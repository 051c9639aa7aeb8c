import type { Knex } from 'knex';
import type { DocFilter, DocRecord, DocSpaceRecord, DocVersionRecord, Repos } from '@tt/domain';
import { newId, pageById } from '../util.js';

type Row = Record<string, any>;

const space = (r: Row): DocSpaceRecord => ({
  id: r.id, workspaceId: r.workspace_id, name: r.name, description: r.description, memberIds: r.member_ids ?? null,
});
const doc = (r: Row): DocRecord => ({
  id: r.id, workspaceId: r.workspace_id, spaceId: r.space_id, parentId: r.parent_id ?? null, title: r.title,
  contentHtml: r.content_html ?? '', text: r.text ?? '', taskIds: r.task_ids ?? [], authorId: r.author_id,
  createdAt: Number(r.created_at), updatedAt: Number(r.updated_at), version: Number(r.version),
});
const version = (r: Row): DocVersionRecord => ({
  id: r.id, docId: r.doc_id, title: r.title, contentHtml: r.content_html, text: r.text, createdAt: Number(r.created_at),
});

const TASK_IDS = `coalesce((select array_agg(dt.task_id order by dt.task_id) from doc_tasks dt where dt.doc_id = docs.id), '{}') as task_ids`;
const SUMMARY = ['docs.id', 'docs.workspace_id', 'docs.space_id', 'docs.parent_id', 'docs.path', 'docs.title', 'docs.author_id', 'docs.created_at', 'docs.updated_at', 'docs.version'];

/** Spaces open to the workspace, or naming the user as a member. */
const readableSpace = (w: Knex.QueryBuilder, userId: string) =>
  w.whereNull('doc_spaces.member_ids').orWhereRaw('? = any(doc_spaces.member_ids)', [userId]);

export function docSpaceRepo(db: Knex): Repos['docSpaces'] {
  return {
    async create(input) {
      const [row] = await db('doc_spaces')
        .insert({ id: newId('space'), workspace_id: input.workspaceId, name: input.name, description: input.description, member_ids: input.memberIds, created_at: Date.now() })
        .returning('*');
      return space(row);
    },
    async get(workspaceId, id) {
      const row = await db('doc_spaces').where({ workspace_id: workspaceId, id }).first();
      return row ? space(row) : undefined;
    },
    async listVisible(workspaceId, userId) {
      const rows = await db('doc_spaces').where({ workspace_id: workspaceId }).where((w) => readableSpace(w, userId)).orderBy('id');
      return rows.map(space);
    },
  };
}

export function docRepo(db: Knex): Repos['docs'] {
  const select = (columns: string[] = ['docs.*']) => db('docs').select([...columns, db.raw(TASK_IDS)]);
  return {
    async insert(input, path) {
      const id = path.split('/').pop()!;
      await db('docs').insert({
        id, workspace_id: input.workspaceId, space_id: input.spaceId, parent_id: input.parentId, path, title: input.title,
        content_html: input.contentHtml, text: input.text, author_id: input.authorId, created_at: input.createdAt, updated_at: input.updatedAt,
      });
      return doc(await select().where('docs.id', id).first());
    },
    async get(workspaceId, id) {
      const row = await select().where({ 'docs.workspace_id': workspaceId, 'docs.id': id }).first();
      return row ? { ...doc(row), path: row.path as string } : undefined;
    },
    async byIds(workspaceId, ids) {
      if (!ids.length) return [];
      return (await select().where('docs.workspace_id', workspaceId).whereIn('docs.id', ids).orderBy('docs.path')).map(doc);
    },
    async update(id, p) {
      const data: Row = {};
      if (p.title !== undefined) data.title = p.title;
      if (p.contentHtml !== undefined) data.content_html = p.contentHtml;
      if (p.text !== undefined) data.text = p.text;
      if (p.updatedAt !== undefined) data.updated_at = p.updatedAt;
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
      return pageById<Row, DocRecord>(base, 'docs.path', page, doc, (q) => q.select([...SUMMARY, db.raw(TASK_IDS)]));
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
      return row ? version(row) : undefined;
    },
    async addVersion(v) {
      await db('doc_versions').insert({ id: newId('ver'), doc_id: v.docId, title: v.title, content_html: v.contentHtml, text: v.text, created_at: v.createdAt });
    },
    async versions(docId) {
      return (await db('doc_versions').where({ doc_id: docId }).orderBy('created_at', 'desc')).map(version);
    },
    async addLog(l) {
      await db('doc_log').insert({ id: newId('dlog'), doc_id: l.docId, user_id: l.userId, action: l.action, changes: l.changes, created_at: l.createdAt });
    },
    async log(docId) {
      const rows = await db('doc_log').where({ doc_id: docId }).orderBy('id');
      return rows.map((r: Row) => ({ id: r.id, docId: r.doc_id, userId: r.user_id, action: r.action, changes: r.changes, createdAt: Number(r.created_at) }));
    },
  };
}
