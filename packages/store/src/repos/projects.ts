import type { Knex } from 'knex';
import type { BoardRecord, ProjectRecord, Repos, StatusRecord } from '@tt/domain';
import { columnMap } from '../columns.js';
import { compiled } from '../compiled.js';
import { keepAtMost, newId, num, pageById, uniqueAsRejected } from '../util.js';

type Row = Record<string, any>;

const orNull = (v: unknown) => v ?? null;

const PROJECT = columnMap<ProjectRecord>('projects', {
  id: 'id', workspaceId: 'workspace_id', key: 'key', name: 'name', description: 'description', createdAt: { column: 'created_at', read: Number },
  version: { column: 'version', read: Number },
});
/** The boards table; a board's statuses are rows of their own (see withStatuses). */
const BOARD = columnMap<Omit<BoardRecord, 'statuses'>>('boards', {
  id: 'id', workspaceId: 'workspace_id', projectId: 'project_id', name: 'name', description: 'description',
  memberIds: { column: 'member_ids', read: orNull },
});
const STATUS = columnMap<StatusRecord>('statuses', { id: 'id', boardId: 'board_id', name: 'name', category: 'category', position: 'position' });
const project = PROJECT.read;

/** A board's columns as one column of its own row, keyed as STATUS's columns, so a board with its columns is one query. */
const STATUS_LIST = `coalesce((select json_agg(json_build_object('id', s.id, 'board_id', s.board_id, 'name', s.name, 'category', s.category,
  'position', s.position) order by s.position) from statuses s where s.board_id = boards.id), '[]') as status_list`;

/** Boards with their columns: read along in STATUS_LIST, or else in one more query whatever the number of boards. */
async function withStatuses(db: Knex, rows: Row[]): Promise<BoardRecord[]> {
  if (!rows.length) return [];
  const inline = rows.every((r) => r.status_list !== undefined);
  const parse = (v: unknown): Row[] => (typeof v === 'string' ? JSON.parse(v) : (v as Row[]));
  const statuses: Row[] = inline
    ? rows.flatMap((r) => parse(r.status_list))
    : await db('statuses').whereIn('board_id', rows.map((r) => r.id)).orderBy(['board_id', 'position']);
  const byBoard = new Map<string, StatusRecord[]>();
  for (const s of statuses) {
    const list = byBoard.get(s.board_id) ?? [];
    list.push(STATUS.read(s));
    byBoard.set(s.board_id, list);
  }
  return rows.map((r) => ({ ...BOARD.read(r), statuses: byBoard.get(r.id) ?? [] }));
}

const visibleTo = (q: Knex.QueryBuilder, userId: string) =>
  q.where((w) => w.whereNull('boards.member_ids').orWhereRaw('? = any(boards.member_ids)', [userId]));

// Read on every task create and move: compiled (and prepared on PostgreSQL).
const projectById = compiled((db, workspaceId: string, id: string) => db('projects').where({ workspace_id: workspaceId, id }).first());
const boardById = compiled((db, id: string) => db('boards').select('boards.*', db.raw(STATUS_LIST)).where({ id }).first());
/**
 * A digest of all a placement says of board `b` and project `p` (aliases): the board's row, its columns in order, its
 * project's key and name, and whether it has task_created rules. The same expression is read with a placement and
 * checked in the insert of a create planned on it, so any change to those between the two shows.
 */
export const placementStamp = (b: string, p: string): string => `md5(json_build_array(${b}.workspace_id, ${b}.project_id, ${b}.name,
  ${b}.description, ${b}.member_ids, ${p}.key, ${p}.name,
  (select json_agg(json_build_array(s.id, s.name, s.category, s.position) order by s.position, s.id) from statuses s where s.board_id = ${b}.id),
  ${hasCreateRules(b)})::text)`;

/** Whether board `b` (an alias) has task_created automation rules. */
const hasCreateRules = (b: string): string => `exists (select 1 from automations a where a.board_id = ${b}.id and a."trigger" = 'task_created')`;

const placementQuery = (db: Knex, workspaceId: string, userIds: string[]) =>
  db('boards')
    .join('projects', 'projects.id', 'boards.project_id')
    .select('boards.*', db.raw(STATUS_LIST), ...PROJECT.selectAs('p_'))
    .select(db.raw(`${hasCreateRules('boards')} as create_rules`))
    .select(db.raw(`${placementStamp('boards', 'projects')} as stamp`))
    .select(db.raw(
      'array(select u.id from users u where u.workspace_id = boards.workspace_id and u.id = any(?) and u.deleted_at is null) as live_user_ids',
      [userIds],
    ))
    .where({ 'boards.workspace_id': workspaceId });
const placementOf = compiled((db, workspaceId: string, id: string, userIds: string[]) =>
  placementQuery(db, workspaceId, userIds).where({ 'boards.id': id }).first());

/**
 * The first board (by id) of a project open to a user, as `firstOpenBoard` finds it: the board a create by project
 * places its task on.
 */
export const firstOpenBoard = (projectId: string, userId: string, workspace: string): string =>
  `(select o.id from boards o where o.workspace_id = ${workspace} and o.project_id = ${projectId}
     and (o.member_ids is null or ${userId} = any(o.member_ids)) order by o.id limit 1)`;
const firstPlacementOf = compiled((db, workspaceId: string, projectId: string, userId: string, userIds: string[]) =>
  placementQuery(db, workspaceId, userIds).whereRaw(`boards.id = ${firstOpenBoard('?', '?', 'boards.workspace_id')}`, [projectId, userId]).first());
const boardInWorkspace = compiled((db, workspaceId: string, id: string) =>
  db('boards').select('boards.*', db.raw(STATUS_LIST)).where({ id, workspace_id: workspaceId }).first());

export function projectRepo(db: Knex): Repos['projects'] {
  return {
    async create(input) {
      try {
        const [row] = await db('projects')
          .insert(PROJECT.write({ ...input, id: newId('prj') }))
          .returning('*');
        return project(row);
      } catch (e) {
        return uniqueAsRejected(e, `A project with key ${input.key} already exists`);
      }
    },
    async get(workspaceId, id) {
      const [row] = await projectById(db, workspaceId, id);
      return row ? project(row) : undefined;
    },
    async byKey(workspaceId, key) {
      const row = await db('projects').where({ workspace_id: workspaceId, key: key.toUpperCase() }).first();
      return row ? project(row) : undefined;
    },
    async byIds(workspaceId, ids) {
      if (!ids.length) return [];
      return (await db('projects').where({ workspace_id: workspaceId }).whereIn('id', ids).orderBy('id')).map(project);
    },
    list(workspaceId, onlyIds, page) {
      const base = db('projects').where({ workspace_id: workspaceId });
      if (onlyIds) base.whereIn('id', onlyIds);
      return pageById<Row, ProjectRecord>(base, 'projects.id', page, project);
    },
    async update(id, patch) {
      const data = PROJECT.write(patch);
      // A change moves the version (the ETag) in the same statement; an empty patch changes nothing.
      const [row] = Object.keys(data).length
        ? await db('projects').where({ id }).update({ ...data, version: db.raw('version + 1') }).returning('*')
        : await db('projects').where({ id });
      return row ? project(row) : undefined;
    },
    async count(workspaceId) {
      const row = await db('projects').where({ workspace_id: workspaceId }).count({ n: '*' }).first();
      return num(row?.n);
    },
  };
}

/** At most this many boards' placements are kept per database, the oldest forgotten first. */
const PLACEMENTS_KEPT = 2_000;

interface KeptPlacement {
  place: { board: BoardRecord; project: ProjectRecord; createRules: boolean };
  stamp: string;
}

/**
 * The placements this process last read, per database (so a test's databases never share one). Nothing here is
 * trusted: a create planned on one writes only if the insert finds the same stamp (see placementStamp).
 */
const keptPlacements = new WeakMap<object, Map<string, KeptPlacement>>();

function placementsOf(db: Knex): Map<string, KeptPlacement> {
  let kept = keptPlacements.get(db.client);
  if (!kept) keptPlacements.set(db.client, (kept = new Map()));
  return kept;
}

export function boardRepo(db: Knex): Repos['boards'] {
  return {
    async create(input, statuses) {
      const id = newId('brd');
      const [row] = await db('boards')
        .insert(BOARD.write({ ...input, id }))
        .returning('*');
      if (statuses.length) {
        await db('statuses').insert(statuses.map((s, i) => STATUS.write({ id: newId('col'), boardId: id, name: s.name, category: s.category, position: i })));
      }
      return (await withStatuses(db, [row]))[0]!;
    },
    async get(workspaceId, id) {
      const [row] = workspaceId === null ? await boardById(db, id) : await boardInWorkspace(db, workspaceId, id);
      return row ? (await withStatuses(db, [row]))[0] : undefined;
    },
    async placement(workspaceId, id, userIds, kept = false) {
      const cache = db.isTransaction ? undefined : placementsOf(db);
      // A project's first board open to a user is remembered by its id; the insert checks that it is still the first.
      const first = typeof id === 'string' ? undefined : id;
      const firstKey = first && `${workspaceId}/${first.projectId}/${first.userId}`;
      const boardId = typeof id === 'string' ? id : cache?.get(firstKey!)?.place.board.id;
      const known = kept && boardId !== undefined ? cache?.get(`${workspaceId}/${boardId}`) : undefined;
      if (known && boardId !== undefined) {
        // From memory: every assignee is taken for live, and the insert checks that too.
        return { ...known.place, liveUserIds: userIds, check: { workspaceId, boardId, stamp: known.stamp, userIds, first } };
      }
      const [row] = first ? await firstPlacementOf(db, workspaceId, first.projectId, first.userId, userIds) : await placementOf(db, workspaceId, id as string, userIds);
      if (!row) return undefined;
      const place = { board: (await withStatuses(db, [row]))[0]!, project: PROJECT.readAs(row, 'p_'), createRules: Boolean(row.create_rules) };
      if (cache) {
        keepAtMost(cache, PLACEMENTS_KEPT, `${workspaceId}/${place.board.id}`, { place, stamp: row.stamp });
        if (firstKey) keepAtMost(cache, PLACEMENTS_KEPT, firstKey, { place, stamp: row.stamp });
      }
      return { ...place, liveUserIds: row.live_user_ids ?? [] };
    },
    async list(workspaceId, filter, page) {
      const base = visibleTo(db('boards').where({ workspace_id: workspaceId }), filter.userId);
      if (filter.projectId) base.where({ project_id: filter.projectId });
      if (filter.onlyProjectIds) base.whereIn('project_id', filter.onlyProjectIds);
      const result = await pageById<Row, Row>(base, 'boards.id', page, (r) => r);
      return { ...result, rows: await withStatuses(db, result.rows) };
    },
    async byProjects(workspaceId, projectIds, userId) {
      if (!projectIds.length) return [];
      const rows = await visibleTo(db('boards').select('boards.*', db.raw(STATUS_LIST)).where({ workspace_id: workspaceId }).whereIn('project_id', projectIds), userId).orderBy('id');
      return withStatuses(db, rows);
    },
    async countInProject(projectId) {
      const row = await db('boards').where({ project_id: projectId }).count({ n: '*' }).first();
      return num(row?.n);
    },
    async addStatus(boardId, s) {
      const row = await db('statuses').where({ board_id: boardId }).max({ p: 'position' }).first();
      const position = row?.p === null || row?.p === undefined ? 0 : Number(row.p) + 1;
      await db('statuses').insert(STATUS.write({ id: newId('col'), boardId, name: s.name, category: s.category, position }));
    },
    async setMembers(boardId, memberIds) {
      await db('boards').where({ id: boardId }).update(BOARD.write({ memberIds }));
    },
    async status(workspaceId, statusId) {
      const row = await db('statuses').join('boards', 'boards.id', 'statuses.board_id').where({ 'statuses.id': statusId, 'boards.workspace_id': workspaceId }).first('statuses.*');
      return row ? STATUS.read(row) : undefined;
    },
  };
}
