/** `order-batch sandbox`: start the sandbox and say where it is and how to log in. src/cli/sandbox.ts parses the flags. */
import { startSandbox } from './index.js';
import type { SandboxOptions } from './options.js';

export async function runSandbox(options: SandboxOptions & { print: (line: string) => void }): Promise<{ close(): Promise<void> }> {
  const { print, ...rest } = options;
  const sandbox = await startSandbox(rest);
  // Scripts wait for this exact first line; nothing may be printed before it.
  print(`listening ${sandbox.url}`);
  print(`client id: ${sandbox.clientId}`);
  print(`client secret: ${sandbox.clientSecret}`);
  print(`read-only client id: ${sandbox.readOnlyClient.clientId}`);
  print(`read-only client secret: ${sandbox.readOnlyClient.clientSecret}`);
  print(`try: FULFILLMENT_BASE_URL=${sandbox.url} FULFILLMENT_CLIENT_ID=${sandbox.clientId} FULFILLMENT_CLIENT_SECRET=${sandbox.clientSecret}`);
  return { close: () => sandbox.close() };
}
