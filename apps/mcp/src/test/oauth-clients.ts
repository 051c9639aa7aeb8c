import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, Page } from 'playwright-core';

/*
 * The harness of the OAuth test with real clients: the embedded service as a child process, a self-signed
 * certificate for 127.0.0.1, an HTTPS server for client-id metadata documents, a loopback redirect receiver, an
 * in-memory OAuthClientProvider for the MCP SDK and a Chromium driver for the consent page.
 */

export const REPO_ROOT = resolve(import.meta.dirname, '../../../..');

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createNetServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => done(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A self-signed certificate for 127.0.0.1 and localhost, made with the openssl CLI in `dir`. */
export function selfSignedCert(dir: string): { certFile: string; keyFile: string; cert: Buffer; key: Buffer } {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'pipe' });
  return { certFile, keyFile, cert: readFileSync(certFile), key: readFileSync(keyFile) };
}

async function listenLocal(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections?.();
  return new Promise((done) => server.close(() => done()));
}

/** An HTTPS server on 127.0.0.1 serving JSON documents by path (client-id metadata documents); counts fetches. */
export interface DocumentServer {
  origin: string;
  /** Serves `doc` at `path` from now on. */
  set(path: string, doc: unknown): string;
  fetches(path: string): number;
  close(): Promise<void>;
}

export async function startDocumentServer(tls: { cert: Buffer; key: Buffer }): Promise<DocumentServer> {
  const docs = new Map<string, unknown>();
  const counts = new Map<string, number>();
  const server = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    if (!docs.has(path)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(docs.get(path)));
  });
  const port = await listenLocal(server);
  const origin = `https://127.0.0.1:${port}`;
  return {
    origin,
    set(path, doc) {
      docs.set(path, doc);
      return origin + path;
    },
    fetches: (path) => counts.get(path) ?? 0,
    close: () => closeServer(server),
  };
}

/**
 * A loopback redirect URI that records every request made to it (the browser's landing after consent); its origin
 * also serves a blank page at `/` for a client app in the browser.
 */
export interface RedirectReceiver {
  /** `http://127.0.0.1:<port>/callback` */
  url: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every query string received, in order. */
  received: URLSearchParams[];
  /** The next request's query (one received before the call counts if not yet taken). */
  next(timeoutMs?: number): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export async function startRedirectReceiver(): Promise<RedirectReceiver> {
  const received: URLSearchParams[] = [];
  let taken = 0;
  const waiters: Array<() => void> = [];
  const server = createHttpServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // `/`: a blank page of this origin, for a client app that runs in the browser.
    if (url.pathname === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>client app</title>');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    received.push(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>signed in</title><p>You can close this window.</p>');
    waiters.splice(0).forEach((w) => w());
  });
  const port = await listenLocal(server);
  return {
    url: `http://127.0.0.1:${port}/callback`,
    origin: `http://127.0.0.1:${port}`,
    received,
    async next(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (taken >= received.length) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no request reached the redirect URI within ${timeoutMs} ms`);
        await Promise.race([new Promise<void>((r) => waiters.push(r)), sleep(Math.min(left, 500))]);
      }
      return received[taken++]!;
    },
    close: () => closeServer(server),
  };
}

/**
 * The OAuthClientProvider an MCP client app implements, kept in memory. `redirectToAuthorization` hands the URL to
 * `onRedirect` (the test's browser) and records it.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier: string | undefined;
  readonly authorizationUrls: URL[] = [];

  constructor(
    private readonly o: {
      redirectUrl: string;
      clientName: string;
      /** An https URL used as client_id when the authorization server supports client-id metadata documents. */
      clientMetadataUrl?: string;
      onRedirect: (url: URL) => Promise<void> | void;
    },
  ) {}

  get redirectUrl(): string {
    return this.o.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.o.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.o.clientName,
      redirect_uris: [this.o.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    await this.o.onRedirect(url);
  }

  /** A fresh state per authorization request; the redirect must bring it back. */
  state(): string {
    return randomBytes(16).toString('base64url');
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
}

/**
 * The consent page in a new browser tab: fills the key, presses a button and waits for the form's POST to be
 * answered and the page it leads to (the redirect URI, or the form again) to load. Returns the tab for further
 * checks and the status of the POST.
 */
export async function consent(browser: Browser, url: URL | string, o: { apiKey?: string; decision: 'approve' | 'deny' }): Promise<{ page: Page; postStatus: number }> {
  const page = await browser.newPage();
  const res = await page.goto(String(url), { waitUntil: 'load' });
  if (!res || res.status() !== 200) {
    const said = await page.locator('body').innerText().catch(() => '');
    await page.close();
    throw new Error(`the consent page answered ${res?.status()}: ${said.slice(0, 500)}`);
  }
  if (o.apiKey !== undefined) await page.locator('input[name="api_key"]').fill(o.apiKey);
  const [post] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && r.request().isNavigationRequest()),
    page.waitForNavigation({ waitUntil: 'load' }),
    page.locator(`button[name="decision"][value="${o.decision}"]`).click(),
  ]);
  return { page, postStatus: post.status() };
}

/** The embedded service (what `npm start` runs) in a child process through tsx, on free ports and a temp DATA_DIR. */
export interface EmbeddedService {
  proc: ChildProcess;
  apiUrl: string;
  mcpUrl: string;
  adminToken: string;
  demoKey: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startEmbedded(env: Record<string, string>): Promise<EmbeddedService> {
  const [port, mcpPort] = [await freePort(), await freePort()];
  const adminToken = env.ADMIN_TOKEN ?? 'oauth-test-operator-token';
  const proc = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'apps/api/src/embedded.ts')], {
    cwd: REPO_ROOT,
    env: {
      ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), MCP_PORT: String(mcpPort),
      ADMIN_TOKEN: adminToken, RATE_LIMIT_PER_MINUTE: '100000',
      // The suite runs beside a browser launch and every other suite's forks on two cores: a new PostgreSQL
      // connection once took longer than the 3 s default there, and the start-up gave up (exit 1) on its first.
      DATABASE_CONNECT_TIMEOUT_MS: '30000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((done) => proc.once('exit', () => done()));
  const deadline = Date.now() + 120_000;
  while (!/Demo API key: +(tt_\S+)/.test(out)) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`embedded service exited (${proc.exitCode ?? proc.signalCode}):\n${out.slice(-3000)}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`embedded service not up after 120 s:\n${out.slice(-3000)}`);
    }
    await sleep(100);
  }
  return {
    proc,
    apiUrl: `http://127.0.0.1:${port}`,
    mcpUrl: `http://127.0.0.1:${mcpPort}`,
    adminToken,
    demoKey: /Demo API key: +(tt_\S+)/.exec(out)![1]!,
    output: () => out,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
