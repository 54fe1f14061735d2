/**
 * The API's JSON schemas: fastify validates requests and serializes responses with them, and
 * @fastify/swagger builds the OpenAPI document from the same objects, so the document says what the
 * routes do.
 */
const str = { type: 'string' } as const;
const int = { type: 'integer', minimum: 0 } as const;
const nullable = <T extends object>(schema: T) => ({ anyOf: [schema, { type: 'null' }] }) as const;
const counts = { type: 'object', additionalProperties: { type: 'integer' }, description: 'a count per status' } as const;

export const ID_PARAMS = { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{16}$' } } } as const;

export const PROBLEM_SCHEMA = {
  $id: 'Problem',
  type: 'object',
  description: 'RFC 9457 problem details; `type` is stable per case (urn:order-batch:problem:...).',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: str,
    title: str,
    status: { type: 'integer' },
    detail: str,
    instance: str,
    code: { type: 'string', description: 'the issue code of a sheet problem (README, issue codes)' },
    id: str,
  },
} as const;

const problemRef = { $ref: 'Problem#' } as const;
const problemResponse = (description: string) => ({ description, content: { 'application/problem+json': { schema: problemRef } } });

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  404: 'no such thing (or no longer kept)',
  409: 'not possible in its present state: the type says why',
  413: 'the upload is larger than the limit',
  422: 'understood, but not usable: the type says why (a sheet problem carries its issue code)',
};

/** Problem answers of these statuses besides the common ones. */
export function problems(...statuses: (keyof typeof PROBLEM_DESCRIPTIONS)[]) {
  return Object.fromEntries(statuses.map((status) => [status, problemResponse(PROBLEM_DESCRIPTIONS[status]!)]));
}

/** The answers every route may give besides its own. */
export const COMMON_PROBLEMS = {
  400: problemResponse('the request is not understood'),
  401: problemResponse('no token, or a token that is unknown, revoked, expired or of a disabled account'),
  403: problemResponse("the token's account may not do this"),
  429: problemResponse('too many requests, or too much work waiting: wait the seconds of Retry-After'),
  503: problemResponse("the ledger (the database) cannot be reached right now: ask again after Retry-After's seconds"),
} as const;

export const SHEET_PROBLEM = {
  type: 'object',
  required: ['row', 'column', 'code', 'severity', 'message'],
  properties: {
    row: nullable({ type: 'integer' }),
    column: nullable(str),
    code: { type: 'string', description: 'an issue code (README, issue codes)' },
    severity: { type: 'string', enum: ['error', 'warning'] },
    message: str,
  },
} as const;

const SHEET_STATES = ['waiting', 'checking', 'checked', 'unreadable', 'failed'] as const;

export const SHEET_SUMMARY = {
  type: 'object',
  required: ['id', 'fileName', 'state'],
  properties: {
    id: str,
    fileName: str,
    state: { type: 'string', enum: SHEET_STATES, description: 'waiting and checking: ask again at its Location' },
    ahead: { type: 'integer', description: 'uploads checked before this one (waiting)' },
    sha256: str,
    checkedAsOf: str,
    mapping: nullable(str),
    needsMapping: { type: 'boolean', description: "no mapping profile fits the sheet's columns: upload it again with a mapping" },
    orders: { type: 'object', required: ['valid', 'invalid'], properties: { valid: int, invalid: int, total: int } },
    rows: int,
    rowsWithWarnings: int,
    error: { type: 'object', required: ['code', 'message'], properties: { code: str, message: str } },
  },
} as const;

export const SHEET_VERDICT = {
  ...SHEET_SUMMARY,
  properties: {
    ...SHEET_SUMMARY.properties,
    fileProblems: { type: 'array', items: SHEET_PROBLEM },
    items: {
      type: 'array',
      description: 'the orders of this page, each with its rows and their problems',
      items: {
        type: 'object',
        required: ['customerOrderId', 'status', 'rows', 'problems'],
        properties: { customerOrderId: nullable(str), status: { type: 'string', enum: ['valid', 'invalid'] }, rows: { type: 'array', items: { type: 'integer' } }, problems: { type: 'array', items: SHEET_PROBLEM } },
      },
    },
    page: { type: 'object', required: ['number', 'size', 'totalItems'], properties: { number: { type: 'integer' }, size: { type: 'integer' }, totalItems: int } },
    next: nullable(str),
    links: { type: 'object', properties: { submit: str, resultWorkbook: str, fixCsv: str } },
  },
} as const;

export const VERDICT_QUERY = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['all', 'valid', 'invalid'], default: 'all' },
    page: { type: 'integer', minimum: 1, default: 1 },
    pageSize: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
  },
} as const;

export const JOB_STATES_API = ['queued', 'running', 'finished', 'canceled', 'failed'] as const;

export const JOB = {
  type: 'object',
  required: ['id', 'state', 'summary', 'sheetId', 'fileName'],
  properties: {
    id: str,
    state: { type: 'string', enum: JOB_STATES_API },
    summary: counts,
    progress: { type: 'object', required: ['done', 'total'], properties: { done: int, total: int } },
    sheetId: str,
    fileName: str,
    createdBy: str,
    createdAt: str,
    startedAt: nullable(str),
    finishedAt: nullable(str),
    cancelRequested: { type: 'boolean' },
    error: str,
    notice: str,
    result: nullable({ type: 'string', description: 'where to download the result workbook (finished jobs)' }),
  },
} as const;

export const JOB_ACCEPTED = { type: 'object', required: ['jobId'], properties: { jobId: str, state: { type: 'string', enum: JOB_STATES_API } } } as const;

export const RESULT_QUERY = { type: 'object', properties: { format: { type: 'string', enum: ['xlsx', 'csv'], default: 'xlsx' } } } as const;

export const RECONCILIATION = {
  type: 'object',
  required: ['id', 'state'],
  properties: {
    id: str,
    state: { type: 'string', enum: ['queued', 'running', 'finished', 'failed'], description: 'queued and running: ask again at its Location' },
    createdBy: str,
    createdAt: str,
    startedAt: nullable(str),
    asOf: str,
    summary: counts,
    orders: int,
    exceptions: {
      type: 'array',
      items: { type: 'object', required: ['customerOrderId', 'type', 'detail'], properties: { customerOrderId: str, marketplaceOrderId: nullable(str), type: str, detail: str } },
    },
    exceptionsLeftOff: int,
    workbook: nullable(str),
    error: str,
  },
} as const;

export const RECONCILIATION_ACCEPTED = { type: 'object', required: ['id'], properties: { id: str, state: { type: 'string', enum: ['queued'] } } } as const;

export const RUNS = {
  type: 'object',
  required: ['runs'],
  properties: {
    runs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['runId', 'command', 'startedAt', 'finishedAt', 'files'],
        properties: {
          runId: str,
          command: str,
          startedAt: str,
          finishedAt: nullable(str),
          files: { type: 'array', items: { type: 'object', required: ['file'], properties: { file: str, sha256: str, rows: int, orders: int } } },
          summary: { type: 'object', additionalProperties: true },
          jobId: nullable(str),
        },
      },
    },
  },
} as const;

export const RUNS_QUERY = { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 } } } as const;

export const UPLOAD_BODY = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'the order sheet: CSV or XLSX' },
    mapping: { type: 'string', description: 'a mapping profile to read its columns with (built-in or saved); default: detected' },
    sheet: { type: 'string', description: 'the worksheet of an XLSX file; default: the first' },
  },
} as const;

/** A JSON response body under its media type. */
export function json(description: string, schema: object) {
  return { description, content: { 'application/json': { schema } } };
}

/** A file response. */
export function file(description: string, types: readonly string[]) {
  return { description, content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) };
}
