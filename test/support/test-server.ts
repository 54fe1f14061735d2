/**
 * A scriptable HTTP server on 127.0.0.1, port 0, for the client tests: it records every request and
 * answers each route with a queue of scripted replies (the last one repeats), e.g. "429 with
 * Retry-After: 2, then 201", "reset the socket", "hang past the timeout".
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { Response } from 'undici';

export interface RecordedRequest {
  method: string;
  /** Raw path as sent, encoding intact, without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  text: string;
}

export type Reply = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  /** Scripts `METHOD path`: each request takes the next reply; the last one answers all later requests. */
  route(method: string, path: string, ...replies: Reply[]): void;
  /** Requests to one route, in order. */
  requestsTo(method: string, path: string): RecordedRequest[];
  close(): Promise<void>;
}

export async function startTestServer(): Promise<TestServer> {
  const routes = new Map<string, Reply[]>();
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = req.url ?? '/';
      const q = raw.indexOf('?');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: q === -1 ? raw : raw.slice(0, q),
        query: new URLSearchParams(q === -1 ? '' : raw.slice(q + 1)),
        headers: req.headers,
        text: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      const queue = routes.get(`${recorded.method} ${recorded.path}`);
      const reply = queue && queue.length > 1 ? queue.shift() : queue?.[0];
      if (!reply) return json(404, { message: `No route ${recorded.method} ${recorded.path}`, requestId: 'req-404' })(recorded, res);
      Promise.resolve(reply(recorded, res)).catch((error: unknown) => {
        res.statusCode = 599;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route(method, path, ...replies) {
      routes.set(`${method} ${path}`, replies);
    },
    requestsTo(method, path) {
      return requests.filter((r) => r.method === method && r.path === path);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

export function text(status: number, body: string, contentType = 'text/plain', headers: Record<string, string> = {}): Reply {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': contentType, ...headers });
    res.end(body);
  };
}

/** Drops the connection without an answer, after the whole request arrived. */
export function reset(): Reply {
  return (req, res) => {
    void req;
    res.socket?.resetAndDestroy();
  };
}

/** Never answers (the server's close() ends the socket). */
export function hang(): Reply {
  return () => undefined;
}

const TEST_KEY = new TextEncoder().encode('test-signing-key-of-at-least-32-bytes!');

/** A real HS256 JWT whose claims the client reads (it never verifies). */
export async function makeJwt(claims: { iat?: number; exp?: number; sub?: string }): Promise<string> {
  const jwt = new SignJWT({ sub: claims.sub ?? 'client' }).setProtectedHeader({ alg: 'HS256' });
  if (claims.iat !== undefined) jwt.setIssuedAt(claims.iat);
  if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp);
  return jwt.sign(TEST_KEY);
}

/** The fields of a multipart/form-data request, parsed by undici's own multipart parser. */
export async function parseForm(req: RecordedRequest): Promise<Record<string, string>> {
  const form = await new Response(req.text, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
  const fields: Record<string, string> = {};
  for (const [name, value] of form.entries()) fields[name] = typeof value === 'string' ? value : '[file]';
  return fields;
}

/** Scripts the oauth endpoint to issue token-1, token-2, ... each living `expiresIn` seconds. */
export function issueOAuthTokens(server: TestServer, expiresIn = 3600): void {
  let issued = 0;
  server.route('POST', '/api/v0/oauth/token', (req, res) => {
    issued++;
    void req;
    json(200, { accessToken: `token-${issued}`, tokenType: 'bearer', expiresIn })(req, res);
  });
}
