import { DomainError } from '@tt/domain';

/**
 * What one MCP request may use beyond the key's rights, chosen by the client: read-only mode (header
 * X-MCP-Readonly: true, or the /mcp/readonly endpoint) and toolsets (header X-MCP-Toolsets: tasks,docs). Both only
 * narrow: a tool must pass the key's rights first.
 */
export const TOOLSETS = ['tasks', 'docs', 'meetings', 'time', 'people'] as const;
export type Toolset = (typeof TOOLSETS)[number];

export interface Session {
  readOnly: boolean;
  /** null = every toolset. */
  toolsets: Toolset[] | null;
}

export const FULL_SESSION: Session = { readOnly: false, toolsets: null };

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['', '0', 'false', 'no', 'off']);

/** Parses the session headers; a value that is neither is a 400 naming the header and its allowed values. */
export function parseSession(headers: { readonly?: string | undefined; toolsets?: string | undefined }, readOnlyPath: boolean): Session {
  const ro = (headers.readonly ?? '').trim().toLowerCase();
  if (!TRUE.has(ro) && !FALSE.has(ro)) throw new DomainError('invalid_request', `X-MCP-Readonly: must be true or false, not "${headers.readonly}"`);
  let toolsets: Toolset[] | null = null;
  if (headers.toolsets !== undefined && headers.toolsets.trim() !== '') {
    const names = headers.toolsets.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
    const bad = names.filter((n) => !(TOOLSETS as readonly string[]).includes(n));
    if (bad.length) throw new DomainError('invalid_request', `X-MCP-Toolsets: unknown toolset ${bad.join(', ')}; toolsets: ${TOOLSETS.join(', ')}`);
    toolsets = [...new Set(names)] as Toolset[];
  }
  return { readOnly: readOnlyPath || TRUE.has(ro), toolsets };
}
