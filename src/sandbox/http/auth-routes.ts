/** The two token endpoints (api-spec section 5) and the bearer check of every secured endpoint. */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { TokenClaims } from '../auth.js';
import { API_MESSAGES } from '../../contract/schemas.js';
import type { SandboxContext } from './context.js';
import { HttpProblem } from './problems.js';
import { asSandboxRequest, sendError, sendJson } from './respond.js';

/**
 * A route onRequest hook: 401 unless a valid, unexpired bearer token is presented. Callback style,
 * synchronous for a token seen before: the common case costs no promise.
 */
export function createAuthenticate(ctx: SandboxContext) {
  const conclude = (request: FastifyRequest, reply: FastifyReply, claims: TokenClaims | null, done: HookHandlerDoneFunction): void => {
    if (claims) {
      asSandboxRequest(request).sbClient = claims;
      done();
      return;
    }
    reply.header('www-authenticate', 'Bearer');
    sendError(request, reply, 401, API_MESSAGES.unauthorized);
  };
  return function authenticate(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) return conclude(request, reply, null, done);
    const token = match[1]!;
    const cached = ctx.tokens.verifyCached(token);
    if (cached !== undefined) return conclude(request, reply, cached, done);
    ctx.tokens.verify(token).then(
      (claims) => conclude(request, reply, claims, done),
      (error: unknown) => done(error as Error),
    );
  };
}

function stringField(body: Record<string, unknown>, name: string): string | null | undefined {
  const value = body[name];
  if (value === undefined || value === null || typeof value === 'string') return value;
  throw new HttpProblem(400, `Field '${name}' must be a string.`, [{ field: name, message: 'must be a string' }]);
}

const FORM_HOW = 'Send multipart/form-data with GrantType, ClientId and ClientSecret.';

/**
 * The token form's fields. Anything the multipart reader cannot take is the caller's body, not the
 * sandbox's fault: a body that is not multipart, cut short, with a bad boundary or part header, a file,
 * or more parts than the form has, each a 400 that says so (not the 500 of an error the sandbox did not expect).
 */
async function readTokenForm(request: FastifyRequest): Promise<Record<string, string>> {
  const fields: Record<string, string> = {};
  try {
    // No file part ever comes: the reader's files limit is 0.
    for await (const part of request.parts()) if (part.type === 'field' && typeof part.value === 'string') fields[part.fieldname] = part.value;
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    throw new HttpProblem(400, `${describeFormProblem(error)} ${FORM_HOW}`);
  }
  return fields;
}

/** The multipart reader's limits have codes; busboy's own complaints about the body (cut short, no boundary) are plain Errors. */
function describeFormProblem(error: unknown): string {
  switch ((error as { code?: unknown } | null)?.code) {
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return 'The token form has more parts than GrantType, ClientId and ClientSecret.';
    case 'FST_FILES_LIMIT':
      return 'The token form takes fields only, not a file.';
    case 'FST_PROTO_VIOLATION':
      return 'The token form has a field name that is not allowed.';
    default:
      return 'The multipart body could not be read (cut short, or not multipart/form-data as its content type says).';
  }
}

export async function registerAuthRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  // Multipart parsing lives in its own context: only the oauth endpoint accepts form data.
  await app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fields: 10, fieldSize: 4096, fieldNameSize: 100, files: 0, parts: 10 },
    });
    scope.post('/api/v0/oauth/token', async (request, reply) => {
      if (!request.isMultipart()) throw new HttpProblem(415, FORM_HOW);
      const body = await readTokenForm(request);
      const grantType = stringField(body, 'GrantType');
      if (grantType !== 'client_credentials') {
        throw new HttpProblem(400, "GrantType must be 'client_credentials'.", [{ field: 'GrantType', message: "must be 'client_credentials'" }]);
      }
      const issued = await ctx.tokens.issue(stringField(body, 'ClientId'), stringField(body, 'ClientSecret'));
      if (!issued) return sendError(request, reply, 401, API_MESSAGES.unauthorized);
      return sendJson(request, reply, 200, { accessToken: issued.token, tokenType: 'bearer', expiresIn: issued.expiresIn });
    });
  });

  app.post('/api/v0/auth/getToken', async (request, reply) => {
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new HttpProblem(400, 'Send a JSON object { "clientId": "...", "secret": "..." }.');
    }
    const record = body as Record<string, unknown>;
    const issued = await ctx.tokens.issue(stringField(record, 'clientId'), stringField(record, 'secret'));
    if (!issued) return sendError(request, reply, 401, API_MESSAGES.unauthorized);
    return sendJson(request, reply, 200, { token: issued.token });
  });
}
