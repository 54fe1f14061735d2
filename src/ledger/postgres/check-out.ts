import type pg from 'pg';

/**
 * A connection taken from the pool, listened to while it is out: the pool listens to idle connections
 * only, and a connection lost while one is taken (the database crashing between a transaction's
 * statements) would be an unhandled 'error' event, a crash of the whole process. The loss fails the
 * connection's pending and next queries (node-postgres does that), and the pool drops it when it is
 * given back.
 */
export async function checkOut(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => (lost ??= error);
  client.on('error', onError);
  const release = client.release.bind(client);
  client.release = (error?: Error | boolean) => {
    client.removeListener('error', onError);
    release(error ?? lost);
  };
  return client;
}
