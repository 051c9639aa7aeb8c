import { type Actor, type BoardRecord, type Deps, people, type ProjectRecord, projects, type TaskRecord, tasks } from '@tt/domain';

/**
 * The domain's reference resolvers (the same REST uses), with the tool that lists valid values named in errors,
 * so an agent that sent a wrong reference learns where to find the right one.
 */

export const resolveProject = (actor: Actor, ref: string, deps: Deps): Promise<ProjectRecord> =>
  projects.projectByRef(actor, ref, deps.store, 'list_projects shows project keys and ids');

export const resolveBoard = (actor: Actor, ref: string, deps: Deps): Promise<BoardRecord> =>
  projects.boardByRef(actor, ref, deps.store, 'list_projects shows board ids');

export const firstBoard = (actor: Actor, project: ProjectRecord, deps: Deps): Promise<BoardRecord> => projects.firstBoard(actor, project, deps.store);

export const resolveTask = (actor: Actor, ref: string, deps: Deps): Promise<TaskRecord> =>
  tasks.taskByRef(actor, ref, deps.store, 'search_tasks finds tasks by text, project or assignee and shows their keys');

export const resolveColumn = projects.columnByRef;

const PEOPLE_HINT = 'list_users shows logins and names';

export const resolveUsers = (actor: Actor, list: readonly string[], deps: Deps, field: string): Promise<string[]> =>
  people.resolveUsers(actor, list, deps.store, { field, hint: PEOPLE_HINT });

export const resolveUser = (actor: Actor, ref: string, deps: Deps, field: string): Promise<string> =>
  people.resolveUser(actor, ref, deps.store, { field, hint: PEOPLE_HINT });
