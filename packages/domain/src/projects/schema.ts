import { Id, oneLine, Ts, z } from '../shared/index.js';

export const CATEGORIES = ['todo', 'progress', 'done'] as const;
export const Category = z.enum(CATEGORIES);
export type Category = z.infer<typeof Category>;

export const TEMPLATES = ['scrum', 'simple', 'bugs'] as const;
export const Template = z.enum(TEMPLATES);
export type Template = z.infer<typeof Template>;

export const Status = z.object({ id: Id, name: z.string(), category: Category }).openapi('Status');
export type Status = z.infer<typeof Status>;

export const Board = z
  .object({
    id: Id,
    projectId: Id,
    name: z.string(),
    description: z.string(),
    statuses: z.array(Status).openapi({ description: 'Columns, in order' }),
  })
  .openapi('Board');
export type Board = z.infer<typeof Board>;

export const Project = z
  .object({
    id: Id,
    key: z.string(),
    name: z.string(),
    description: z.string(),
    createdAt: Ts,
  })
  .openapi('Project');
export type Project = z.infer<typeof Project>;

export const ProjectWithBoards = Project.extend({ boards: z.array(Board) }).openapi('ProjectWithBoards');
export type ProjectWithBoards = z.infer<typeof ProjectWithBoards>;

const name = oneLine(200);
const description = z.string().max(20_000, 'must be at most 20000 characters');

export const ProjectKey = z
  .string()
  .min(1, 'must not be empty')
  .max(10, 'must be at most 10 characters')
  .regex(/^[A-Za-z][A-Za-z0-9]*$/, 'must start with a letter and hold only Latin letters and digits')
  .transform((s) => s.toUpperCase())
  .openapi({ type: 'string', description: 'Task-key prefix: a letter then letters or digits, up to 10; stored upper-case', example: 'WEB' });

export const CreateProjectInput = z
  .strictObject({
    name,
    key: ProjectKey,
    description: description.optional(),
    template: Template.nullable().optional().openapi({ description: 'Default simple; null = no board' }),
  })
  .openapi('CreateProjectInput');
export type CreateProjectInput = z.infer<typeof CreateProjectInput>;

export const UpdateProjectInput = z
  .strictObject({ name: name.optional(), description: description.optional() })
  .openapi('UpdateProjectInput');
export type UpdateProjectInput = z.infer<typeof UpdateProjectInput>;

export const CreateBoardInput = z
  .strictObject({
    projectId: Id,
    name,
    description: description.optional(),
    template: Template.optional().openapi({ description: 'Default simple' }),
  })
  .openapi('CreateBoardInput');
export type CreateBoardInput = z.infer<typeof CreateBoardInput>;

export const AddStatusInput = z
  .strictObject({
    name: oneLine(100),
    category: Category.optional().openapi({ description: 'Default progress' }),
  })
  .openapi('AddStatusInput');
export type AddStatusInput = z.infer<typeof AddStatusInput>;

export const BoardAccessInput = z
  .strictObject({ memberIds: z.array(Id).max(1000).nullable() })
  .openapi('BoardAccessInput');
export type BoardAccessInput = z.infer<typeof BoardAccessInput>;
