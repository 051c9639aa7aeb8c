import { operations, type OperationSpec } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './test/harness.js';

/** The SDK's operations manifest must describe exactly the operations of the OpenAPI document the API serves. */

interface OpenApiOperation {
  operationId: string;
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

const refName = (schema: { $ref?: string } | undefined): string | null => schema?.$ref?.replace('#/components/schemas/', '') ?? null;

/** An OpenAPI operation in the shape of a manifest entry. */
function describeOperation(path: string, method: string, op: OpenApiOperation): OperationSpec {
  const success = Object.keys(op.responses).filter((code) => code.startsWith('2'));
  expect(success, `${op.operationId}: one success status`).toHaveLength(1);
  const status = Number(success[0]) as OperationSpec['status'];
  const content = op.responses[success[0]!]!.content ?? {};
  const texts = Object.keys(content).filter((type) => type !== 'application/json');
  return {
    method: method.toUpperCase() as OperationSpec['method'],
    path,
    status,
    response: refName(content['application/json']?.schema),
    body: refName(op.requestBody?.content['application/json']?.schema),
    query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
    ...(texts.length ? { text: texts.join(',') } : {}),
  };
}

describe('SDK contract with the OpenAPI document', () => {
  let h: Harness;
  let doc: OpenApiDocument;
  let served: Map<string, OperationSpec>;

  beforeAll(async () => {
    h = await startHarness();
    const res = await fetch(`${h.base}/v1/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as OpenApiDocument;
    served = new Map();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) served.set(op.operationId, describeOperation(path, method, op));
    }
  });
  afterAll(() => h.close());

  it('names the same operations: every OpenAPI operation has an SDK entry and every SDK entry exists', () => {
    expect([...served.keys()].sort()).toEqual(Object.keys(operations).sort());
  });

  it('agrees on method, path, status, body and answer schemas, query parameters and text forms', () => {
    for (const [id, spec] of Object.entries(operations) as Array<[string, OperationSpec]>) {
      const actual = served.get(id);
      if (!actual) continue; // reported by the test above
      expect({ ...spec, query: [...spec.query].sort() }, id).toEqual({ ...actual, query: [...actual.query].sort() });
    }
  });

  it('covers every /v1 path of the document', () => {
    for (const path of Object.keys(doc.paths)) expect(path.startsWith('/v1/'), path).toBe(true);
  });

  it('treats as pages exactly the answers shaped {data, nextCursor, total} (the activity log\'s adds totalCapped)', () => {
    for (const [id, spec] of Object.entries(operations) as Array<[string, OperationSpec]>) {
      if (!spec.response) continue;
      const schema = doc.components.schemas[spec.response];
      expect(schema, `${id}: ${spec.response} is a component`).toBeDefined();
      const keys = Object.keys(schema!.properties ?? {}).sort();
      // The activity log's count stops at a cap and says so (`totalCapped`): the envelope plus that one flag.
      if (spec.response === 'ActivityPage') expect(keys, id).toEqual(['data', 'nextCursor', 'total', 'totalCapped']);
      else if (spec.response.endsWith('Page')) expect(keys, id).toEqual(['data', 'nextCursor', 'total']);
      // The time report is the report object itself (spec: "Response: Time report object"); its `data` holds the rows.
      else if (spec.response === 'TimeReport') expect(keys, id).toEqual(['data', 'from', 'groupBy', 'to', 'totalHours', 'totalSeconds']);
      else expect(keys, id).toEqual(['data']);
    }
  });
});
