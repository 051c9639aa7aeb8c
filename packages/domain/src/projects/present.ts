import type { BoardRecord, ProjectRecord } from './ports.js';
import type { Board, Project } from './schema.js';

export const presentProject = (p: ProjectRecord): Project => ({
  id: p.id, key: p.key, name: p.name, description: p.description, createdAt: p.createdAt,
});

export const presentBoard = (b: BoardRecord): Board => ({
  id: b.id, projectId: b.projectId, name: b.name, description: b.description,
  statuses: b.statuses.map((s) => ({ id: s.id, name: s.name, category: s.category })),
});
