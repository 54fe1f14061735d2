/**
 * `npm run bench -- remote`: fetching an SFTP inbox over loopback with order-batch's reader (settle
 * checks, downloads to the work folder, whole-file checks) beside OpenSSH's own `sftp -b` fetching the
 * same files in the same run, against a throwaway sshd.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, rmSync, writeSync, closeSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startSshd } from '../test/support/sshd.js';
import { createStorePool } from '../src/remote/stores/open-store.js';
import { stageInputs } from '../src/remote/stage-inputs.js';

export interface RemoteFigures {
  label: string;
  files: number;
  bytes: number;
  orderBatchMs: number;
  sftpMs: number;
}

const SMALL_FILES = 1000;
const BIG_BYTES = 200 * 1024 * 1024;

function writeSmallSheets(folder: string): number {
  mkdirSync(folder, { recursive: true });
  let bytes = 0;
  for (let i = 0; i < SMALL_FILES; i++) {
    const text = `customerOrderId,orderDate,productId,quantity\nB-${i},2026-11-20T10:00:00Z,PRD-1001,1\n`.repeat(8);
    writeFileSync(join(folder, `sheet-${String(i).padStart(4, '0')}.csv`), text);
    bytes += text.length;
  }
  return bytes;
}

function writeBigSheet(folder: string): number {
  mkdirSync(folder, { recursive: true });
  const fd = openSync(join(folder, 'big.csv'), 'w');
  const row = Buffer.from('B-000001,2026-11-20T10:00:00Z,OtherMarketplace,Customer,1 Main St,Springfield,IL,62704,US,PRD-1001,1,5.00\n');
  const block = Buffer.concat(Array.from({ length: Math.floor(1_048_576 / row.length) }, () => row));
  let written = 0;
  while (written < BIG_BYTES) written += writeSync(fd, block, 0, Math.min(block.length, BIG_BYTES - written));
  closeSync(fd);
  return written;
}

export async function benchRemote(rounds = 3): Promise<RemoteFigures[]> {
  const root = mkdtempSync(join(tmpdir(), 'order-batch-bench-remote-'));
  const sshd = await startSshd(join(root, 'sshd'));
  try {
    const settings = { sshKeyPath: sshd.userKey, knownHostsPath: sshd.knownHosts, settleSeconds: 0 };
    const cases = [
      { label: `${SMALL_FILES} small sheets`, folder: join(root, 'small'), bytes: writeSmallSheets(join(root, 'small')), files: SMALL_FILES },
      { label: '1 sheet of 200 MB', folder: join(root, 'big'), bytes: writeBigSheet(join(root, 'big')), files: 1 },
    ];
    const figures: RemoteFigures[] = [];
    for (const c of cases) {
      let orderBatchMs = Infinity;
      let sftpMs = Infinity;
      for (let round = 0; round < rounds; round++) {
        const ours = join(root, `ours-${round}`);
        mkdirSync(ours, { recursive: true, mode: 0o700 });
        const pool = createStorePool(settings);
        const start = performance.now();
        const staged = await stageInputs([`${sshd.url}${c.folder}/`], { openStore: pool.open, workDir: ours, settleSeconds: 0, now: Date.now, sleep: async () => undefined });
        orderBatchMs = Math.min(orderBatchMs, performance.now() - start);
        await pool.closeAll();
        if (staged.files.length !== c.files) throw new Error(`fetched ${staged.files.length} of ${c.files} files: ${JSON.stringify(staged.waiting.slice(0, 3))}`);
        rmSync(ours, { recursive: true, force: true });

        const theirs = join(root, `sftp-${round}`);
        mkdirSync(theirs);
        writeFileSync(join(root, 'batch'), `lcd ${theirs}\ncd ${c.folder}\nget *\n`);
        const rawStart = performance.now();
        execFileSync('sftp', ['-q', '-b', join(root, 'batch'), '-i', sshd.userKey, '-o', `UserKnownHostsFile=${sshd.knownHosts}`, '-o', 'BatchMode=yes', '-P', String(sshd.port), `${sshd.user}@127.0.0.1`], { stdio: 'ignore' });
        sftpMs = Math.min(sftpMs, performance.now() - rawStart);
        rmSync(theirs, { recursive: true, force: true });
      }
      figures.push({ label: c.label, files: c.files, bytes: c.bytes, orderBatchMs, sftpMs });
    }
    return figures;
  } finally {
    await sshd.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
