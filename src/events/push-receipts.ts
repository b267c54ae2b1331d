/**
 * Expo's push receipts. A ticket Expo accepted becomes a receipt once Apple or Google answered,
 * and that is where a token of an uninstalled app usually shows (`DeviceNotRegistered`), not in
 * the ticket. Each accepted ticket is kept here with its device, and `delayMs` later its receipt is
 * asked for (POST `getReceipts` beside the push address, at most 1,000 ids a request); a device
 * reported not registered is dropped.
 *
 * Kept in memory, at most MAX_TRACKED tickets (the oldest go first): a restart forgets the tickets
 * not checked yet, and a dead token is then found by its next push's ticket or receipt. A receipt
 * that could not be read is asked for once more, one delay later; Expo keeps receipts for a day.
 */
import type { PushDeviceRepository } from '../domain/push.js';

const MAX_TRACKED = 100_000;
/** Expo's limit of ids in one getReceipts request. */
const IDS_PER_REQUEST = 1000;
const TRIES = 2;

interface Tracked {
  ticketId: string;
  userId: number;
  token: string;
  due: number;
  tries: number;
}

export interface PushReceiptsOptions {
  devices: Pick<PushDeviceRepository, 'drop'>;
  /** Expo's push address (EXPO_PUSH_URL): receipts are asked for at `getReceipts` beside it. */
  pushUrl: string;
  accessToken?: string;
  delayMs: number;
  timeoutMs: number;
  now?: () => number;
  onError?: (err: unknown, what: string) => void;
}

interface ExpoReceipt {
  status?: string;
  details?: { error?: string };
}

export class PushReceipts {
  /** In the order they came due: the delay is the same for every ticket. */
  private readonly queue: Tracked[] = [];
  private readonly url: string;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly o: PushReceiptsOptions) {
    this.url = new URL('getReceipts', o.pushUrl).href;
    this.now = o.now ?? Date.now;
  }

  start(): void {
    this.timer = setInterval(() => this.check(), Math.min(this.o.delayMs, 30_000));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Tickets Expo accepted for `userId`'s devices, to be checked `delayMs` from now. */
  track(userId: number, accepted: { ticketId: string; token: string }[]): void {
    const due = this.now() + this.o.delayMs;
    for (const { ticketId, token } of accepted) this.queue.push({ ticketId, userId, token, due, tries: 0 });
    if (this.queue.length > MAX_TRACKED) this.queue.splice(0, this.queue.length - MAX_TRACKED);
  }

  /** Reads the receipts that came due (one check at a time). */
  check(): Promise<void> {
    this.running ??= this.checkDue().finally(() => (this.running = undefined));
    return this.running;
  }

  private async checkDue(): Promise<void> {
    const now = this.now();
    let n = 0;
    while (n < this.queue.length && this.queue[n]!.due <= now) n++;
    const due = this.queue.splice(0, n);
    for (let i = 0; i < due.length; i += IDS_PER_REQUEST) await this.checkBatch(due.slice(i, i + IDS_PER_REQUEST));
  }

  private async checkBatch(batch: Tracked[]): Promise<void> {
    let receipts: Record<string, ExpoReceipt>;
    try {
      receipts = await this.fetchReceipts(batch.map((t) => t.ticketId));
    } catch (err) {
      this.o.onError?.(err, "reading Expo's push receipts");
      const later = this.now() + this.o.delayMs;
      for (const t of batch) if (++t.tries < TRIES) this.queue.push({ ...t, due: later });
      return;
    }
    const gone = batch.filter((t) => {
      const receipt = receipts[t.ticketId];
      return receipt?.status === 'error' && receipt.details?.error === 'DeviceNotRegistered';
    });
    for (const [userId, tokens] of byUser(gone)) {
      try {
        await this.o.devices.drop(userId, tokens);
      } catch (err) {
        this.o.onError?.(err, 'dropping devices Expo does not know');
      }
    }
  }

  private async fetchReceipts(ids: string[]): Promise<Record<string, ExpoReceipt>> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        'user-agent': 'Souk-Push/1',
        ...(this.o.accessToken ? { authorization: `Bearer ${this.o.accessToken}` } : {}),
      },
      body: JSON.stringify({ ids }),
      redirect: 'manual',
      signal: AbortSignal.timeout(this.o.timeoutMs),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`Expo's getReceipts answered HTTP ${res.status}`);
    const data = (JSON.parse(text) as { data?: unknown }).data;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error("Expo's getReceipts answered no receipts object");
    return data as Record<string, ExpoReceipt>;
  }
}

function byUser(tracked: Tracked[]): Map<number, string[]> {
  const users = new Map<number, string[]>();
  for (const t of tracked) users.set(t.userId, [...(users.get(t.userId) ?? []), t.token]);
  return users;
}
