/**
 * Which users got new events, on MySQL (no LISTEN/NOTIFY there): this process's units of work
 * tell their users as they commit (index.ts), and the events every instance writes are found by
 * polling the log, every EVENTS_POLL_MS, only while this process has streams open.
 *
 * The poll reads the log's auto-increment ids after the last one it saw. An id is taken when its
 * row is inserted, not when it commits, so a later id can be seen before an earlier one's
 * transaction commits: the ids skipped are kept as holes and looked for again at every poll until
 * they show up, or for HOLE_MS (a rolled-back transaction's id never does). When polling starts,
 * it reads back START_WINDOW ids, so that an event committed while a stream was opening is not
 * missed either.
 *
 * A signal is only a hint (ports.ts, EventSignals): each stream reads its user's log after its own
 * cursor, so a user told twice, by the commit here and again by the poll, still gets each event
 * once, in order.
 */
import { sql, type RawBuilder } from 'kysely';
import type { EventSignals } from '../../domain/ports.js';
import { rows, T, type Db, type MysqlContext } from './context.js';

/** Most ids read at one poll; a full batch polls again at once. */
const BATCH = 1000;
/** How long a skipped id is looked for: longer than any transaction of Souk's holds its events. */
const HOLE_MS = 60_000;
/** Most skipped ids looked for; beyond them the oldest are given up. */
const MAX_HOLES = 1000;
/** Ids read back when polling starts. */
const START_WINDOW = 1000;

/** An event's place in the log and whose it is. */
export interface LoggedId {
  id: number;
  userId: number;
}

/** What the poll reads of the log. */
export interface LogIds {
  /** The newest id (0 for an empty log). */
  newest(): Promise<number>;
  /** The ids after `afterId`, oldest first, at most `limit`. */
  after(afterId: number, limit: number): Promise<LoggedId[]>;
  /** Those of `ids` that are in the log. */
  among(ids: number[]): Promise<LoggedId[]>;
}

export function mysqlLogIds(db: Db, ctx: MysqlContext): LogIds {
  const table = T(ctx.t.soukEvents);
  const ids = async (query: RawBuilder<{ id: number | string; user_id: number | string }>) =>
    (await rows(db, query)).map((r) => ({ id: Number(r.id), userId: Number(r.user_id) }));
  return {
    newest: async () => Number((await rows(db, sql<{ id: number | null }>`select max(id) as id from ${table}`))[0]?.id ?? 0),
    after: (afterId, limit) => ids(sql`select id, user_id from ${table} where id > ${afterId} order by id limit ${limit}`),
    among: (wanted) => ids(sql`select id, user_id from ${table} where id in (${sql.join(wanted)})`),
  };
}

export class MysqlEventSignals implements EventSignals {
  private readonly users = new Set<(userIds: number[]) => void>();
  private readonly gaps = new Set<() => void>();
  /** Bumped by every start and stop: a poll of an earlier run changes nothing. */
  private run = 0;
  private polling = false;
  private timer: NodeJS.Timeout | undefined;
  /** The newest id seen; undefined until the run's first poll. */
  private lastId: number | undefined;
  /** Skipped ids, each with when it was first skipped (oldest first). */
  private readonly holes = new Map<number, number>();
  private failed = false;
  /** Polls that succeeded (tests watch them). */
  polls = 0;

  constructor(
    private readonly log: LogIds,
    private readonly pollMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  subscribe(onUsers: (userIds: number[]) => void, onGap: () => void): () => void {
    this.users.add(onUsers);
    this.gaps.add(onGap);
    return () => {
      this.users.delete(onUsers);
      this.gaps.delete(onGap);
    };
  }

  /** After a unit of work of this process committed: the users it recorded events for. */
  committed(userIds: Iterable<number>): void {
    const users = [...userIds];
    if (users.length > 0) this.tell(users);
  }

  streaming(open: boolean): void {
    if (open === this.polling) return;
    this.polling = open;
    this.run++;
    clearTimeout(this.timer);
    this.lastId = undefined;
    this.holes.clear();
    if (open) this.schedule(this.run, 0);
  }

  /** Stops polling for good. */
  close(): void {
    this.streaming(false);
    this.users.clear();
    this.gaps.clear();
  }

  private schedule(run: number, ms: number): void {
    this.timer = setTimeout(() => void this.poll(run), ms);
    this.timer.unref();
  }

  private async poll(run: number): Promise<void> {
    let more = false;
    try {
      more = await this.step(run);
      if (run === this.run && this.failed) {
        // Polls failed meanwhile (the database away): holes may have been given up on too soon.
        this.failed = false;
        for (const gap of this.gaps) gap();
      }
    } catch {
      this.failed = true;
    }
    if (run === this.run) this.schedule(run, more ? 0 : this.pollMs);
  }

  /** One poll: tells the users of the events found; true when there may be more to read. */
  private async step(run: number): Promise<boolean> {
    const start = this.lastId ?? Math.max(0, (await this.log.newest()) - START_WINDOW);
    const found = await this.log.after(start, BATCH);
    const back = this.holes.size > 0 ? await this.log.among([...this.holes.keys()]) : [];
    if (run !== this.run) return false;
    this.polls++;
    const now = this.now();
    const users = new Set<number>();
    for (const e of back) {
      this.holes.delete(e.id);
      users.add(e.userId);
    }
    let expected = start + 1;
    for (const e of found) {
      for (let id = Math.max(expected, e.id - MAX_HOLES); id < e.id; id++) this.holes.set(id, now);
      expected = e.id + 1;
      users.add(e.userId);
    }
    this.lastId = expected - 1;
    this.forgetHoles(now);
    if (users.size > 0) this.tell([...users]);
    return found.length === BATCH;
  }

  private forgetHoles(now: number): void {
    for (const [id, since] of this.holes) {
      if (this.holes.size <= MAX_HOLES && now - since < HOLE_MS) break;
      this.holes.delete(id);
    }
  }

  private tell(users: number[]): void {
    for (const listener of this.users) listener(users);
  }
}
