import { z } from 'zod';

/**
 * Parameter and result shapes several tools share, each described once in a few words: tools/list is read by the
 * model on every turn (see docs/mcp.md, "A lean tool list"). Checks are the schemas' own; only the words are short.
 */
/** `format` in an output schema: the value alone. */
export const FormatOut = z.enum(['markdown', 'json']);
/** The read tools' `format`: its values say it (the server instructions say what json gives). */
export const format = FormatOut.default('markdown');
export const cursor = (max = 2000) => z.string().min(1).max(max).optional().describe('nextCursor of the previous answer');
/** What a read tool's annotations say (tools/list shows only readOnlyHint of them; see json-schema.ts). */
export const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
