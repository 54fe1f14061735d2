/**
 * A throwaway S3 for the tests: moto's server (`moto_server -H 127.0.0.1 -p 0`), the most faithful S3
 * imitation that installs here (MinIO is not in the registries this machine reaches). Missing, it skips
 * the S3 tests with a message outside CI and fails them in CI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

function findMoto(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'moto_server');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return null;
}

/** Why the S3 tests cannot run here, or null. */
export function motoMissing(): string | null {
  if (findMoto() !== null) return null;
  const reason = 'moto_server is not installed (pip install "moto[server]")';
  if (process.env.CI) throw new Error(`The S3 tests must run in CI, but ${reason}.`);
  process.stderr.write(`\nS3 tests skipped: ${reason}.\n\n`);
  return reason;
}

export interface S3Server {
  endpoint: string;
  /** What a CLI run needs to reach it: the endpoint, throwaway credentials and a region. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

// The SDK's notice about its future Node versions, in the test's own output, says nothing about the tests.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export const S3_SECRET = 'moto-secret-key-5521';

export async function startMoto(): Promise<S3Server> {
  const child = spawn(findMoto()!, ['-H', '127.0.0.1', '-p', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`moto_server did not start within 30 s: ${text}`)), 30_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /Running on (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`moto_server exited with ${code}: ${text}`)));
  });
  return {
    endpoint,
    env: { AWS_ENDPOINT_URL_S3: endpoint, AWS_ACCESS_KEY_ID: 'moto-key', AWS_SECRET_ACCESS_KEY: S3_SECRET, AWS_REGION: 'us-east-1' },
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
