/**
 * The API's errors as `application/problem+json` (RFC 9457): one stable `type` per case, so another
 * system can branch on it; `title` is the case in words, `detail` this occurrence. Sheet problems
 * carry the issue code of PRODUCT.md section 3 in `code`.
 */
import type { FastifyReply } from 'fastify';

/** Every case the API answers with, by its `type` slug. */
export const PROBLEMS = {
  'unauthorized': { status: 401, title: 'A valid API token is needed' },
  'forbidden': { status: 403, title: "The token's account may not do this" },
  'cross-site': { status: 403, title: 'Refused: the request came from another web site' },
  'not-found': { status: 404, title: 'Not found' },
  'bad-request': { status: 400, title: 'Request not understood' },
  'no-file': { status: 400, title: 'No file in the upload' },
  'unknown-mapping': { status: 422, title: 'No mapping profile of that name' },
  'sheet-unreadable': { status: 422, title: 'The sheet could not be read' },
  'sheet-not-checked': { status: 409, title: 'The sheet is not checked yet' },
  'sheet-needs-mapping': { status: 409, title: "The sheet's columns need a mapping first" },
  'nothing-to-submit': { status: 422, title: 'The sheet has no valid order to submit' },
  'no-api': { status: 409, title: 'No order API is configured' },
  'job-finished': { status: 409, title: 'The job has finished already' },
  'no-result': { status: 404, title: 'The job has no result file' },
  'too-large': { status: 413, title: 'The upload is too large' },
  'too-many-requests': { status: 429, title: 'Too many requests' },
  'unavailable': { status: 503, title: 'The ledger cannot be reached right now' },
  'internal': { status: 500, title: 'Internal error' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemType = keyof typeof PROBLEMS;

export const PROBLEM_TYPE_PREFIX = 'urn:order-batch:problem:';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  /** The issue code (PRODUCT.md section 3) of a sheet problem. */
  code?: string;
  /** The sheet or job concerned. */
  id?: string;
}

export function problemOf(type: ProblemType, detail: string, extra: { instance?: string; code?: string; id?: string } = {}): Problem {
  const { status, title } = PROBLEMS[type];
  return { type: `${PROBLEM_TYPE_PREFIX}${type}`, title, status, detail, ...extra };
}

/** Sends the problem; `retryAfterSeconds` for 429 (and 503). */
export function sendProblem(reply: FastifyReply, type: ProblemType, detail: string, extra: { code?: string; id?: string; retryAfterSeconds?: number } = {}): FastifyReply {
  const { retryAfterSeconds, ...rest } = extra;
  const problem = problemOf(type, detail, { instance: reply.request.url.split('?')[0]!, ...rest });
  if (retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(retryAfterSeconds))));
  // The serializer of the route's schemas does not know this shape: sent as JSON text.
  return reply.code(problem.status).header('cache-control', 'no-store').type(PROBLEM_CONTENT_TYPE).serializer(JSON.stringify).send(problem);
}
