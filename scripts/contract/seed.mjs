// Seeds a business workspace with an admin user and a key holding every right, through the operator API.
// Shared by the contract checks (Prism, conformance) and usable by end-to-end tests.

/** Every key right of the spec. */
export const ALL_SCOPES = [
  'tasks:read', 'tasks:write', 'projects:write', 'time:read', 'time:write', 'docs:read', 'docs:write', 'meetings:read',
];

async function admin(apiUrl, adminToken, method, path, body) {
  const res = await fetch(`${apiUrl}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} /admin/v1${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text).data : undefined;
}

/**
 * Creates a workspace (plan business), an admin user and a key with all rights; returns
 * {workspaceId, userId, login, keyId, token}. `apiUrl` is the server's base URL (without /v1).
 */
export async function seedWorkspace(apiUrl, adminToken, { name = 'Contract checks', login = 'contract-bot' } = {}) {
  const workspace = await admin(apiUrl, adminToken, 'POST', '/workspaces', { name, plan: 'business' });
  const user = await admin(apiUrl, adminToken, 'POST', `/workspaces/${workspace.id}/users`, {
    name: 'Contract Bot', login, role: 'QA', isAdmin: true,
  });
  const key = await admin(apiUrl, adminToken, 'POST', `/users/${user.id}/keys`, { scopes: ALL_SCOPES });
  return { workspaceId: workspace.id, userId: user.id, login, keyId: key.id, token: key.token };
}
