/**
 * Run history (the web app shows it), reconcile's watermarks, and the note of who holds the run lock.
 */
import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import { toRun, type RunRow } from '../run-row.js';
import type { LockHolder, RunFile, RunRecord } from '../types.js';

export class RunStore {
  private readonly insertRun: Statement;
  private readonly updateRun: Statement;
  private readonly selectRuns: Statement<[number], RunRow>;
  private readonly selectRun: Statement<[string], RunRow>;
  private readonly selectWatermark: Statement<[string], { value: string }>;
  private readonly upsertWatermark: Statement;
  private readonly selectSetting: Statement<[string], { value: string }>;
  private readonly upsertSetting: Statement;
  private readonly deleteSetting: Statement<[string]>;
  private readonly countRuns: Statement<[], { n: number }>;
  private readonly selectHolder: Statement<[], { pid: number; host: string; started_at: string; command: string | null }>;
  private readonly upsertHolder: Statement;
  private readonly deleteHolder: Statement;

  constructor(
    db: Database,
    private readonly now: () => Date,
    private readonly identity: { pid: number; host: string },
  ) {
    this.insertRun = db.prepare(`INSERT INTO runs (run_id, command, files, started_at, pid, host)
      VALUES (@runId, @command, @files, @now, @pid, @host)`);
    this.updateRun = db.prepare(`UPDATE runs SET finished_at = @now, summary = @summary, result_files = @resultFiles
      WHERE run_id = @runId`);
    this.selectRuns = db.prepare('SELECT * FROM runs ORDER BY seq DESC LIMIT ?');
    this.selectRun = db.prepare('SELECT * FROM runs WHERE run_id = ?');
    this.selectWatermark = db.prepare('SELECT value FROM watermarks WHERE name = ?');
    this.upsertWatermark = db.prepare(`INSERT INTO watermarks (name, value, updated_at) VALUES (@name, @value, @now)
      ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
    this.selectSetting = db.prepare('SELECT value FROM settings WHERE name = ?');
    this.upsertSetting = db.prepare(`INSERT INTO settings (name, value, updated_at) VALUES (@name, @value, @now)
      ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
    this.deleteSetting = db.prepare('DELETE FROM settings WHERE name = ?');
    this.countRuns = db.prepare('SELECT count(*) AS n FROM runs');
    this.selectHolder = db.prepare('SELECT pid, host, started_at, command FROM run_lock WHERE id = 1');
    this.upsertHolder = db.prepare(`INSERT OR REPLACE INTO run_lock (id, pid, host, started_at, command)
      VALUES (1, @pid, @host, @startedAt, @command)`);
    this.deleteHolder = db.prepare('DELETE FROM run_lock WHERE id = 1 AND pid = @pid AND host = @host AND started_at = @startedAt');
  }

  startRun(run: { command: string; files: readonly (string | RunFile)[] }): string {
    const runId = randomUUID();
    const files = run.files.map((f) => (typeof f === 'string' ? { file: f } : f));
    this.insertRun.run({ runId, command: run.command, files: JSON.stringify(files), now: this.timestamp(), ...this.identity });
    return runId;
  }

  finishRun(runId: string, result: { summary: unknown; resultFiles?: readonly string[] }): void {
    const { changes } = this.updateRun.run({
      runId,
      now: this.timestamp(),
      summary: JSON.stringify(result.summary ?? null),
      resultFiles: JSON.stringify(result.resultFiles ?? []),
    });
    if (changes === 0) throw new Error(`Ledger has no run '${runId}'.`);
  }

  listRuns(limit = 20): RunRecord[] {
    return this.selectRuns.all(limit).map(toRun);
  }

  getRun(runId: string): RunRecord | null {
    const row = this.selectRun.get(runId);
    return row ? toRun(row) : null;
  }

  getSetting(name: string): string | null {
    return this.selectSetting.get(name)?.value ?? null;
  }

  setSetting(name: string, value: string): void {
    this.upsertSetting.run({ name, value, now: this.timestamp() });
  }

  removeSetting(name: string): boolean {
    return this.deleteSetting.run(name).changes > 0;
  }

  runCount(): number {
    return this.countRuns.get()!.n;
  }

  getWatermark(name: string): string | null {
    return this.selectWatermark.get(name)?.value ?? null;
  }

  setWatermark(name: string, iso: string): void {
    if (Number.isNaN(Date.parse(iso))) throw new Error(`Watermark '${name}' must be an ISO 8601 date-time, not '${iso}'.`);
    this.upsertWatermark.run({ name, value: iso, now: this.timestamp() });
  }

  readLockHolder(): LockHolder | null {
    const row = this.selectHolder.get();
    return row ? { pid: row.pid, host: row.host, startedAt: row.started_at, command: row.command } : null;
  }

  /** Called once the OS lock is held; the row is a note for others, not the lock itself. */
  writeLockHolder(command: string | null): LockHolder {
    const holder: LockHolder = { ...this.identity, startedAt: this.timestamp(), command };
    this.upsertHolder.run(holder);
    return holder;
  }

  clearLockHolder(holder: LockHolder): void {
    this.deleteHolder.run({ pid: holder.pid, host: holder.host, startedAt: holder.startedAt });
  }

  private timestamp(): string {
    return this.now().toISOString();
  }
}
