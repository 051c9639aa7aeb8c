import { Cursor, Id, Limit, Moment, oneLine, Ts, z } from '../shared/index.js';

export const DocSpace = z.object({ id: Id, name: z.string(), description: z.string() }).openapi('DocSpace');
export type DocSpace = z.infer<typeof DocSpace>;

export const DocSummary = z
  .object({
    id: Id,
    spaceId: Id,
    parentId: Id.nullable(),
    title: z.string(),
    taskIds: z.array(Id).openapi({ description: 'Tasks the page is linked to' }),
    authorId: Id,
    createdAt: Ts,
    updatedAt: Ts,
  })
  .openapi('DocSummary');
export type DocSummary = z.infer<typeof DocSummary>;

export const Doc = DocSummary.extend({
  content: z.string().openapi({ description: 'Sanitized HTML' }),
  text: z.string().openapi({ description: 'Plain text derived from the content' }),
  attachments: z.array(z.object({ id: Id, name: z.string(), size: z.number().int(), type: z.string() })),
}).openapi('Doc');

export type Doc = z.infer<typeof Doc>;

const title = oneLine(500);
const content = z.string().max(1_000_000, 'must be at most 1000000 characters');
const taskIds = z
  .array(Id)
  .max(100, 'at most 100 tasks')
  .openapi({ description: 'Task ids or keys to link the page to' });

export const CreateDocInput = z
  .strictObject({
    spaceId: Id,
    title,
    parentId: Id.nullable().optional().openapi({ description: 'Parent page in the same space; omitted = top level' }),
    content: content.optional().openapi({ description: 'HTML; sanitized on write' }),
    text: content.optional().openapi({ description: 'Plain text instead of HTML' }),
    taskIds: taskIds.optional(),
  })
  .openapi('CreateDocInput');
export type CreateDocInput = z.infer<typeof CreateDocInput>;

export const UpdateDocInput = z
  .strictObject({
    title: title.optional(),
    content: content.optional().openapi({ description: 'The new content in full, HTML; sanitized on write' }),
    text: content.optional().openapi({ description: 'The new content in full, plain text' }),
    taskIds: taskIds.optional().openapi({ description: 'Replaces the linked tasks (ids or keys)' }),
  })
  .openapi('UpdateDocInput');
export type UpdateDocInput = z.infer<typeof UpdateDocInput>;

export const ListDocsQuery = z
  .strictObject({
    spaceId: Id.optional(),
    parentId: Id.optional().openapi({ description: 'Children of that page; `none` = top-level pages' }),
    taskId: Id.optional().openapi({ description: 'Pages linked to the task (id or key)' }),
    q: z.string().trim().min(1).max(200).optional().openapi({ description: 'Search in title and text' }),
    updatedSince: Moment.optional(),
    limit: Limit,
    cursor: Cursor.optional(),
  })
  .openapi('ListDocsQuery');
export type ListDocsQuery = z.infer<typeof ListDocsQuery>;

export const DocFormatQuery = z
  .strictObject({ format: z.enum(['json', 'markdown']).default('json') })
  .openapi('DocFormatQuery');

const name = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const CreateDocSpaceInput = z
  .strictObject({
    name,
    description: z.string().max(20_000).default(''),
    memberIds: z.array(Id).max(1000).nullable().default(null).openapi({ description: 'null = open to the workspace' }),
  })
  .openapi('CreateDocSpaceInput');
export type CreateDocSpaceInput = z.infer<typeof CreateDocSpaceInput>;
