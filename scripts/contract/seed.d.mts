export const ALL_SCOPES: string[];

/** Creates a business workspace, an admin user and a key with every right through the operator API. */
export function seedWorkspace(
  apiUrl: string,
  adminToken: string,
  options?: { name?: string; login?: string },
): Promise<{ workspaceId: string; userId: string; login: string; keyId: string; token: string }>;
