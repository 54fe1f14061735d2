/** A loopback address nothing answers on, held for the length of a test. */
import { createServer } from 'node:net';

/**
 * An address where connections are refused until a server is started on it, for "the API is down
 * (then up again)": 127.0.0.2 (all of 127.0.0.0/8 is loopback) on a port this process holds on
 * 127.0.0.1 meanwhile, so no other process is given that port. A port picked, let go and used
 * later could be taken in between; this one cannot, so a sandbox started on it later
 * (`--host 127.0.0.2 --port <port>`) always gets it.
 */
export async function holdQuietAddress(): Promise<{ host: string; port: number; release(): Promise<void> }> {
  const holder = createServer();
  await new Promise<void>((resolve, reject) => {
    holder.once('error', reject);
    holder.listen(0, '127.0.0.1', resolve);
  });
  const address = holder.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { host: '127.0.0.2', port, release: () => new Promise<void>((resolve) => holder.close(() => resolve())) };
}
