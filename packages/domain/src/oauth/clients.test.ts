import { describe, expect, it } from 'vitest';
import type { Deps } from '../shared/index.js';
import { clientFromDocument, clientIdUrlProblem, parseClientMetadata } from './client-metadata.js';
import { createClientDirectory } from './clients.js';
import type { ClientDocumentPorts } from './ports.js';

const URL_ID = 'https://client.example/oauth/client.json';
const doc = (over: Record<string, unknown> = {}) => JSON.stringify({ client_id: URL_ID, client_name: 'Example', redirect_uris: ['https://client.example/cb'], ...over });

describe('parseClientMetadata (DCR)', () => {
  it('keeps the metadata of a good registration', () => {
    expect(parseClientMetadata({ redirect_uris: ['http://127.0.0.1:5000/cb'], client_name: 'VS Code', extra: 1 })).toMatchObject({ client_name: 'VS Code' });
  });
  it('refuses bad redirect URIs with invalid_redirect_uri', () => {
    for (const uri of ['javascript:alert(1)', 'data:text/html,x', 'https://a.example/cb#f', 'http://evil.example/cb']) {
      expect(() => parseClientMetadata({ redirect_uris: [uri] }), uri).toThrow(expect.objectContaining({ code: 'invalid_redirect_uri' }));
    }
    expect(() => parseClientMetadata({ redirect_uris: [] })).toThrow(expect.objectContaining({ code: 'invalid_redirect_uri' }));
  });
  it('refuses other bad fields with invalid_client_metadata naming the field', () => {
    expect(() => parseClientMetadata({ redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] })).toThrow(/grant_types/);
    expect(() => parseClientMetadata({ redirect_uris: ['https://a.example/cb'], client_name: 5 })).toThrow(expect.objectContaining({ code: 'invalid_client_metadata', message: expect.stringMatching(/client_name/) }));
  });
});

describe('client-id metadata documents', () => {
  it('checks the form of the URL', () => {
    expect(clientIdUrlProblem(URL_ID)).toBeNull();
    expect(clientIdUrlProblem('http://client.example/c.json')).toMatch(/https/);
    expect(clientIdUrlProblem('https://client.example/')).toMatch(/path/);
    expect(clientIdUrlProblem('https://client.example/a/../c.json')).toMatch(/path/);
    expect(clientIdUrlProblem('https://client.example/c.json#x')).toMatch(/fragment/);
  });
  it('requires client_id to equal the URL and good redirect URIs', () => {
    expect(clientFromDocument(URL_ID, doc())).toMatchObject({ clientId: URL_ID, clientName: 'Example', document: true });
    expect(() => clientFromDocument(URL_ID, doc({ client_id: 'https://other.example/c.json' }))).toThrow(/must equal its URL/);
    expect(() => clientFromDocument(URL_ID, doc({ redirect_uris: ['javascript:alert(1)'] }))).toThrow(expect.objectContaining({ code: 'invalid_client_metadata' }));
    expect(() => clientFromDocument(URL_ID, 'not json')).toThrow(/not JSON/);
  });
});

describe('createClientDirectory', () => {
  const deps = { now: () => 1_000 } as unknown as Deps;
  const ports = (addresses: string[], body = doc()) => {
    const calls: string[] = [];
    const p: ClientDocumentPorts = {
      resolve: async () => addresses,
      fetch: async (url, address, limits) => {
        calls.push(`${url}@${address}:${limits.maxBytes}`);
        return { status: 200, body };
      },
    };
    return { p, calls };
  };
  it('fetches a public document once, pinned to the checked address, then answers from the cache', async () => {
    const { p, calls } = ports(['93.184.216.34']);
    const dir = createClientDirectory({ ports: p, allowPrivate: false });
    expect(await dir.get(URL_ID, deps)).toMatchObject({ clientName: 'Example' });
    await dir.get(URL_ID, deps);
    expect(calls).toEqual([`${URL_ID}@93.184.216.34:5120`]);
  });
  it('refuses loopback, private and metadata addresses unless private ones are allowed', async () => {
    for (const a of ['127.0.0.1', '10.0.0.5', '169.254.169.254']) {
      await expect(createClientDirectory({ ports: ports([a]).p, allowPrivate: false }).get(URL_ID, deps)).rejects.toMatchObject({ code: 'invalid_client' });
    }
    expect(await createClientDirectory({ ports: ports(['127.0.0.1']).p, allowPrivate: true }).get(URL_ID, deps)).toMatchObject({ document: true });
    await expect(createClientDirectory({ ports: ports(['169.254.169.254']).p, allowPrivate: true }).get(URL_ID, deps)).rejects.toMatchObject({ code: 'invalid_client' });
  });
  it('refuses a document whose client_id differs, or a failed fetch', async () => {
    await expect(createClientDirectory({ ports: ports(['93.184.216.34'], doc({ client_id: 'x' })).p, allowPrivate: false }).get(URL_ID, deps)).rejects.toThrow(/equal its URL/);
    const failing: ClientDocumentPorts = { resolve: async () => ['93.184.216.34'], fetch: async () => { throw new Error('larger than 5120 bytes'); } };
    await expect(createClientDirectory({ ports: failing, allowPrivate: false }).get(URL_ID, deps)).rejects.toThrow(/5120 bytes/);
  });
});
