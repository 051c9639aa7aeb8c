import { Id, z } from '../shared/index.js';

export const TaskContext = z
  .object({ taskId: Id, key: z.string(), markdown: z.string() })
  .openapi('TaskContext');
