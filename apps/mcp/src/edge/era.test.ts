import { classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quickRoute } from './era.js';

const META = { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

/** Bodies of every shape the edge may see: requests, notifications, responses, claims good and bad, broken messages. */
const body = fc.record(
  {
    jsonrpc: fc.constantFrom('2.0', '1.0', 2),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constant(null)),
    method: fc.oneof(fc.constantFrom('tools/call', 'initialize', 'ping', 'notifications/initialized', 'subscriptions/listen', 'server/discover'), fc.string({ maxLength: 6 }), fc.integer()),
    params: fc.oneof(
      fc.constant({}),
      fc.constant(null),
      fc.constant([]),
      fc.record({ name: fc.constant('whoami'), arguments: fc.constant({}) }),
      fc.record({ _meta: fc.constantFrom({}, META, { [PROTOCOL_VERSION_META_KEY]: 42 }, { [PROTOCOL_VERSION_META_KEY]: '2025-11-25' }, { ...META, [PROTOCOL_VERSION_META_KEY]: '2099-01-01' }, { other: 1 }, 'x') }),
    ),
    result: fc.constant({}),
    error: fc.constant({ code: -1, message: 'x' }),
  },
  { requiredKeys: [] },
);
const header = fc.constantFrom(undefined, '2025-11-25', '2025-06-18', '2024-11-05', '2026-07-28', '2099-01-01', 'garbage');

describe('quickRoute', () => {
  it('routes a body as the SDK classifies it whenever it decides at all', () => {
    fc.assert(
      fc.property(fc.oneof(body, fc.array(body, { maxLength: 2 }), fc.constant(null), fc.string()), header, (b, h) => {
        const quick = quickRoute(b, h);
        if (quick === undefined) return;
        const sdk = classifyInboundRequest({ httpMethod: 'POST', body: b, protocolVersionHeader: h });
        expect(quick === 'legacy', `${JSON.stringify(b)} with ${h}: SDK says ${sdk.kind}`).toBe(sdk.kind === 'legacy');
      }),
      { numRuns: 3000 },
    );
  });

  it('decides the ordinary calls of both eras itself', () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    expect(quickRoute(call, undefined)).toBe('legacy');
    expect(quickRoute(call, '2025-11-25')).toBe('legacy');
    expect(quickRoute({ jsonrpc: '2.0', method: 'notifications/initialized' }, '2025-11-25')).toBe('legacy');
    expect(quickRoute({ ...call, params: { ...call.params, _meta: META } }, '2026-07-28')).toBe('modern');
    // Left to the SDK: a response, a batch, initialize with a claim, a 2025-shaped call naming a modern revision.
    expect(quickRoute({ jsonrpc: '2.0', id: 1, result: {} }, undefined)).toBeUndefined();
    expect(quickRoute([call], undefined)).toBeUndefined();
    expect(quickRoute({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: META } }, '2026-07-28')).toBeUndefined();
    expect(quickRoute(call, '2026-07-28')).toBeUndefined();
  });
});
