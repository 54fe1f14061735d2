/**
 * The OpenAPI document at /api/v1/openapi.json against the routes themselves: the document is
 * well-formed OpenAPI 3.1, every operation it lists is called here, and every answer's status and
 * body are ones the document gives for that operation. A route added without being documented, or
 * answering other than its document says, fails this test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, hasEnded, makeToken, pollUntil, sheetForm, type ApiAnswer } from './api-support.js';
import { SAMPLES, startTestApp, type TestApp } from './support.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
  parameters?: { in: string; name: string; required?: boolean }[];
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, object>; securitySchemes?: Record<string, object> };
}

/** What the document's structure must be (the parts a client generator reads). */
const DOCUMENT_SHAPE = {
  type: 'object',
  required: ['openapi', 'info', 'paths', 'components'],
  properties: {
    openapi: { const: '3.1.0' },
    info: { type: 'object', required: ['title', 'version'] },
    paths: {
      type: 'object',
      minProperties: 1,
      additionalProperties: {
        type: 'object',
        propertyNames: { enum: ['get', 'post', 'put', 'delete', 'patch'] },
        additionalProperties: {
          type: 'object',
          required: ['responses'],
          properties: { responses: { type: 'object', minProperties: 1, propertyNames: { pattern: '^[1-5]\\d\\d$' }, additionalProperties: { type: 'object', required: ['description'] } } },
        },
      },
    },
    components: { type: 'object', required: ['securitySchemes'] },
  },
};

describe('the OpenAPI document', () => {
  let web: TestApp;
  let doc: OpenApiDocument;
  let operator: string;
  let viewer: string;
  const ajv = new Ajv2020({ strict: false, allErrors: true }).addFormat('binary', true);
  const called = new Set<string>();

  /** Finds the documented operation of a concrete path (`/api/v1/jobs/abc` -> `/api/v1/jobs/{id}`). */
  const operationOf = (method: string, path: string): [string, Operation] => {
    const bare = path.split('?')[0]!;
    for (const [template, operations] of Object.entries(doc.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
      if (pattern.test(bare) && operations[method.toLowerCase()]) return [`${method} ${template}`, operations[method.toLowerCase()]!];
    }
    throw new Error(`${method} ${bare} is not in the OpenAPI document`);
  };

  /** Calls the API and checks the answer against the document. */
  const call = async (method: 'GET' | 'POST', path: string, options: Parameters<typeof callApi>[3] = {}): Promise<ApiAnswer> => {
    const answer = await callApi(web.app.url, method, path, options);
    return checked(method, path, answer);
  };
  const checked = (method: string, path: string, answer: ApiAnswer): ApiAnswer => {
    const [key, operation] = operationOf(method, path);
    called.add(key);
    const documented = operation.responses[String(answer.status)];
    expect(documented, `${key} answered ${answer.status}, which the document does not list`).toBeDefined();
    const mediaType = answer.contentType.split(';')[0]!.trim();
    const content = documented!.content?.[mediaType];
    expect(content, `${key} ${answer.status} answered ${mediaType}, which the document does not list`).toBeDefined();
    if (/json/.test(mediaType)) {
      const validate = ajv.compile({ ...content!.schema, components: doc.components });
      if (answer.status >= 400) expect(content!.schema, key).toEqual({ $ref: '#/components/schemas/Problem' });
      expect(validate(answer.body), `${key} ${answer.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    return answer;
  };

  beforeAll(async () => {
    web = await startTestApp({ accounts: [{ name: 'olga', role: 'operator', password: 'operator password 1' }, { name: 'vera', role: 'viewer', password: 'viewer password 1' }] });
    operator = await makeToken(web.ledgerPath, 'olga', 'erp');
    viewer = await makeToken(web.ledgerPath, 'vera', 'dashboard');
    doc = (await callApi(web.app.url, 'GET', '/api/v1/openapi.json')).body as OpenApiDocument;
  });
  afterAll(async () => {
    await web?.close();
  });

  it('is an OpenAPI 3.1 document whose schemas compile, with a bearer scheme', () => {
    const validate = ajv.compile(DOCUMENT_SHAPE);
    expect(validate(doc), ajv.errorsText(validate.errors)).toBe(true);
    expect(doc.components.securitySchemes).toMatchObject({ bearer: { type: 'http', scheme: 'bearer' } });
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const name of path.match(/\{(\w+)\}/g) ?? []) {
          expect(operation.parameters?.some((p) => p.in === 'path' && `{${p.name}}` === name && p.required), `${method} ${path} declares ${name}`).toBe(true);
        }
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const [type, media] of Object.entries(response.content ?? {})) expect(() => ajv.compile({ ...media.schema, components: doc.components }), `${method} ${path} ${status} ${type}`).not.toThrow();
        }
      }
    }
  });

  it('answers every operation as the document says', async () => {
    const valid = readFileSync(join(SAMPLES, 'orders-valid.csv'));
    const uploaded = await call('POST', '/api/v1/sheets', { token: operator, body: sheetForm('orders-valid.csv', valid) });
    expect(uploaded.status).toBe(201);
    const sheetId = (uploaded.body as { id: string }).id;
    await call('POST', '/api/v1/sheets', { token: operator, body: sheetForm('orders.csv', 'not,a,sheet\n') });
    await call('POST', '/api/v1/sheets', { token: operator, body: sheetForm('orders-valid.csv', valid, { mapping: 'no-such-profile' }) });
    await call('POST', '/api/v1/sheets', { token: operator, body: 'not multipart', headers: { 'content-type': 'text/plain' } });
    await call('GET', `/api/v1/sheets/${sheetId}?status=valid&page=1&pageSize=1`, { token: viewer });
    await call('GET', `/api/v1/sheets/${sheetId}?pageSize=0`, { token: viewer });
    await call('GET', '/api/v1/sheets/AAAAAAAAAAAAAAAA', { token: viewer });
    await call('POST', `/api/v1/sheets/${sheetId}/submit`, { token: viewer });
    await call('POST', '/api/v1/sheets/AAAAAAAAAAAAAAAA/submit', { token: operator });
    const submitted = await call('POST', `/api/v1/sheets/${sheetId}/submit`, { token: operator });
    expect(submitted.status).toBe(202);
    const jobId = (submitted.body as { jobId: string }).jobId;
    await call('GET', `/api/v1/jobs/${jobId}/result`, { token: viewer });
    checked('GET', `/api/v1/jobs/${jobId}`, await pollUntil(web.app.url, `/api/v1/jobs/${jobId}`, viewer, (job) => job.state === 'finished'));
    await call('GET', `/api/v1/jobs/${jobId}/result`, { token: viewer });
    await call('GET', `/api/v1/jobs/${jobId}/result?format=csv`, { token: viewer });
    await call('POST', `/api/v1/jobs/${jobId}/cancel`, { token: operator });
    await call('POST', '/api/v1/jobs/AAAAAAAAAAAAAAAA/cancel', { token: operator });
    await call('GET', '/api/v1/jobs/AAAAAAAAAAAAAAAA', { token: viewer });
    await call('POST', '/api/v1/reconciliations', { token: viewer });
    const started = await call('POST', '/api/v1/reconciliations', { token: operator });
    const reconciliation = (started.body as { id: string }).id;
    await call('GET', `/api/v1/reconciliations/${reconciliation}`, { token: viewer });
    const reconciled = await pollUntil(web.app.url, `/api/v1/reconciliations/${reconciliation}`, viewer, hasEnded);
    expect(reconciled.body).toMatchObject({ state: 'finished' });
    checked('GET', `/api/v1/reconciliations/${reconciliation}`, reconciled);
    await call('GET', '/api/v1/reconciliations/AAAAAAAAAAAAAAAA', { token: viewer });
    await call('GET', `/api/v1/reconciliations/${reconciliation}/workbook`, { token: viewer });
    await call('GET', '/api/v1/reconciliations/AAAAAAAAAAAAAAAA/workbook', { token: viewer });
    await call('GET', '/api/v1/runs?limit=5', { token: viewer });
    await call('GET', '/api/v1/runs');
    await call('GET', '/api/v1/runs', { token: 'obt_not-a-token' });

    const documented = Object.entries(doc.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    expect([...called].sort()).toEqual(documented.sort());
    // And every API route the app serves is in the document (its own address aside).
    const served = web.app.routes.filter((r) => r.url.startsWith('/api/v1/') && r.url !== '/api/v1/openapi.json').map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
    expect(served.sort()).toEqual(documented.sort());
  });
});
