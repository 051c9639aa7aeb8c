import {
  decodeCursor, type Deps, DomainError, encodeCursor, notFound, type Page, PLAN_LIMITS, rejected,
} from '../shared/index.js';
import { type Actor, canSeeBoard, canSeeProject, requireScope } from '../keys/index.js';
import { checkVersion, type Versioned, withoutVersion, type WriteOptions } from '../versions/index.js';
import type { BoardRecord, ProjectRecord } from './ports.js';
import { presentBoard, presentProject } from './present.js';
import type {
  AddStatusInput, Board, CreateBoardInput, CreateProjectInput, Project, ProjectWithBoards, UpdateProjectInput,
} from './schema.js';
import { BOARD_TEMPLATES } from './templates.js';

/** A project the actor may see, or 404. */
export async function visibleProject(actor: Actor, id: string, deps: Deps): Promise<ProjectRecord> {
  const project = await deps.store.projects.get(actor.workspace.id, id);
  if (!project || !canSeeProject(actor, project.id)) throw notFound('Project');
  return project;
}

/** A board the actor may see, or 404. */
export async function visibleBoard(actor: Actor, id: string, deps: Deps): Promise<BoardRecord> {
  const board = await deps.store.boards.get(actor.workspace.id, id);
  if (!board || !canSeeBoard(actor, board)) throw notFound('Board');
  return board;
}

/**
 * The boards (with their columns) of `projectIds` the actor may see: none of a project hidden from the key, a closed
 * board only to its members. One query however many projects.
 */
export async function visibleBoards(actor: Actor, projectIds: Iterable<string>, repos: Pick<Deps['store'], 'boards'>): Promise<BoardRecord[]> {
  const ids = [...new Set(projectIds)].filter((p) => canSeeProject(actor, p));
  const boards = ids.length ? await repos.boards.byProjects(actor.workspace.id, ids, actor.user.id) : [];
  return boards.filter((b) => canSeeBoard(actor, b));
}

/** The ids of visibleBoards. */
export async function visibleBoardIds(actor: Actor, projectIds: Iterable<string>, repos: Pick<Deps['store'], 'boards'>): Promise<Set<string>> {
  return new Set((await visibleBoards(actor, projectIds, repos)).map((b) => b.id));
}

export async function listProjects(actor: Actor, input: { limit: number; cursor?: string | undefined }, deps: Deps): Promise<Page<Project>> {
  const page = await deps.store.projects.list(actor.workspace.id, actor.key.projectIds, { limit: input.limit, after: decodeCursor(input.cursor) });
  return { data: page.rows.map(presentProject), nextCursor: encodeCursor(page.next), total: page.total };
}

/** The project with the boards the actor may see, and its version (raised by board and column changes too). */
async function withBoards(actor: Actor, project: ProjectRecord, deps: Deps): Promise<Versioned<ProjectWithBoards>> {
  const boards = await deps.store.boards.byProjects(actor.workspace.id, [project.id], actor.user.id);
  return { data: { ...presentProject(project), boards: boards.map(presentBoard) }, version: project.version };
}

export async function getProjectVersioned(actor: Actor, id: string, deps: Deps): Promise<Versioned<ProjectWithBoards>> {
  return withBoards(actor, await visibleProject(actor, id, deps), deps);
}

export const getProject = withoutVersion(getProjectVersioned);

export async function createProjectVersioned(actor: Actor, input: CreateProjectInput, deps: Deps): Promise<Versioned<ProjectWithBoards>> {
  requireScope(actor, 'projects:write');
  if (actor.key.projectIds !== null) {
    throw new DomainError('forbidden', 'A key restricted to projects cannot create projects');
  }
  const limits = PLAN_LIMITS[actor.workspace.plan];
  const project = await deps.store.transaction(async (repos) => {
    if ((await repos.projects.count(actor.workspace.id)) >= limits.projects) {
      throw rejected(`The ${actor.workspace.plan} plan allows at most ${limits.projects} projects`);
    }
    if (await repos.projects.byKey(actor.workspace.id, input.key)) {
      throw rejected(`A project with key ${input.key} already exists`);
    }
    const created = await repos.projects.create({
      workspaceId: actor.workspace.id,
      key: input.key,
      name: input.name,
      description: input.description ?? '',
      createdAt: deps.now(),
    });
    const template = input.template === undefined ? 'simple' : input.template;
    if (template !== null) {
      await repos.boards.create(
        { workspaceId: actor.workspace.id, projectId: created.id, name: input.name, description: '', memberIds: null },
        [...BOARD_TEMPLATES[template]],
      );
    }
    return created;
  });
  return withBoards(actor, project, deps);
}

export const createProject = withoutVersion(createProjectVersioned);

export async function updateProjectVersioned(
  actor: Actor, id: string, input: UpdateProjectInput, deps: Deps, opts?: WriteOptions,
): Promise<Versioned<Project>> {
  requireScope(actor, 'projects:write');
  const project = await visibleProject(actor, id, deps);
  const updated = await deps.store.transaction(async (repos) => {
    await checkVersion(repos, 'project', project, `Project ${project.key}`, opts);
    return repos.projects.update(id, input);
  });
  if (!updated) throw notFound('Project');
  return { data: presentProject(updated), version: updated.version };
}

export const updateProject = withoutVersion(updateProjectVersioned);

export async function listBoards(
  actor: Actor,
  input: { projectId?: string | undefined; limit: number; cursor?: string | undefined },
  deps: Deps,
): Promise<Page<Board>> {
  const page = await deps.store.boards.list(
    actor.workspace.id,
    { projectId: input.projectId, onlyProjectIds: actor.key.projectIds, userId: actor.user.id },
    { limit: input.limit, after: decodeCursor(input.cursor) },
  );
  return { data: page.rows.map(presentBoard), nextCursor: encodeCursor(page.next), total: page.total };
}

export async function getBoard(actor: Actor, id: string, deps: Deps): Promise<Board> {
  return presentBoard(await visibleBoard(actor, id, deps));
}

export async function createBoard(actor: Actor, input: CreateBoardInput, deps: Deps): Promise<Board> {
  requireScope(actor, 'projects:write');
  const project = await visibleProject(actor, input.projectId, deps);
  const limit = PLAN_LIMITS[actor.workspace.plan].boardsPerProject;
  const board = await deps.store.transaction(async (repos) => {
    if ((await repos.boards.countInProject(project.id)) >= limit) {
      throw rejected(`The ${actor.workspace.plan} plan allows at most ${limit} boards per project`);
    }
    await repos.versions.bump('project', [project.id]); // GET /projects/{id} shows its boards
    return repos.boards.create(
      { workspaceId: actor.workspace.id, projectId: project.id, name: input.name, description: input.description ?? '', memberIds: null },
      [...BOARD_TEMPLATES[input.template ?? 'simple']],
    );
  });
  return presentBoard(board);
}

export async function addStatus(actor: Actor, boardId: string, input: AddStatusInput, deps: Deps): Promise<Board> {
  requireScope(actor, 'projects:write');
  const board = await visibleBoard(actor, boardId, deps);
  const limit = PLAN_LIMITS[actor.workspace.plan].columnsPerBoard;
  if (board.statuses.length >= limit) throw rejected(`The ${actor.workspace.plan} plan allows at most ${limit} columns per board`);
  if (board.statuses.some((s) => s.name.toLowerCase() === input.name.toLowerCase())) {
    throw rejected(`The board already has a column named ${input.name}`);
  }
  await deps.store.transaction(async (repos) => {
    await repos.boards.addStatus(board.id, { name: input.name, category: input.category ?? 'progress' });
    await repos.versions.bump('project', [board.projectId]); // GET /projects/{id} shows the columns of its boards
  });
  return presentBoard(await visibleBoard(actor, boardId, deps));
}
