// Preloaded (node --import) into the MCP conformance suite, which sends no Authorization header: adds a real
// test key to the suite's requests to the server under test, and to nothing else. The server keeps full
// authentication; this is a client-side credential, like any MCP client configured with a header.
//   MCP_CONFORMANCE_URL    the MCP endpoint under test (only its origin gets the header)
//   MCP_CONFORMANCE_TOKEN  the API key
/* global Headers, Request */
import { realpathSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';

const token = process.env.MCP_CONFORMANCE_TOKEN;
const target = process.env.MCP_CONFORMANCE_URL;
const entry = (() => {
  try {
    return process.argv[1] ? realpathSync(process.argv[1]) : '';
  } catch {
    return '';
  }
})();

// NODE_OPTIONS reaches every node process npx starts; act only inside the suite itself.
if (token && target && entry.includes('@modelcontextprotocol/conformance')) {
  const origin = new URL(target).origin;
  const auth = `Bearer ${token}`;
  const sameOrigin = (url) => {
    try {
      return new URL(String(url)).origin === origin;
    } catch {
      return false;
    }
  };

  // 1. Global fetch: the MCP SDK client transport the scenarios connect with.
  const originalFetch = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const url = typeof input === 'string' || input instanceof URL ? input : input.url;
    if (!sameOrigin(url)) return originalFetch(input, init);
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!headers.has('authorization')) headers.set('authorization', auth);
    return originalFetch(input, { ...init, headers });
  };

  // 2. undici.request: the DNS-rebinding scenario sends raw requests with the suite's own undici, which go
  // through undici's global dispatcher rather than fetch. Install a dispatcher from that same undici copy.
  const undici = createRequire(entry)('undici');
  class AuthAgent extends undici.Agent {
    dispatch(opts, handler) {
      const h = opts.headers;
      const plain = h && typeof h === 'object' && !Array.isArray(h) && !(Symbol.iterator in h);
      if (plain && sameOrigin(opts.origin) && !Object.keys(h).some((k) => k.toLowerCase() === 'authorization')) {
        return super.dispatch({ ...opts, headers: { ...h, authorization: auth } }, handler);
      }
      return super.dispatch(opts, handler);
    }
  }
  undici.setGlobalDispatcher(new AuthAgent());

  // 3. node:http: the 2026-07-28 header-validation scenarios post raw requests with http.request(options, cb).
  const originalRequest = http.request;
  http.request = function request(options, ...rest) {
    if (options && typeof options === 'object' && !(options instanceof URL) && options.hostname) {
      const at = `${options.protocol ?? 'http:'}//${options.hostname}${options.port ? `:${options.port}` : ''}`;
      const headers = { ...(options.headers ?? {}) };
      if (sameOrigin(at) && !Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) {
        return originalRequest.call(this, { ...options, headers: { ...headers, authorization: auth } }, ...rest);
      }
    }
    return originalRequest.call(this, options, ...rest);
  };
}
