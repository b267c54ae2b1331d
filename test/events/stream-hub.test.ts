/** The stream hub with a log, signals and sinks of its own: the slow consumer, batches, drain, gaps. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoggedEvent, StreamSink } from '../../src/domain/events.js';
import type { EventLog, EventSignals } from '../../src/domain/ports.js';
import { StreamHub } from '../../src/events/stream-hub.js';
import { until } from '../helpers/until.js';

class MemoryLog implements EventLog {
  events: LoggedEvent[] = [];
  reads = 0;
  add(n: number, payload = 'x') {
    for (let i = 0; i < n; i++) this.events.push({ seq: this.events.length + 1, type: 'message.new', payload, createdAt: Date.now() });
  }
  async after(_userId: number, afterSeq: number, limit: number) {
    this.reads++;
    return this.events.filter((e) => e.seq > afterSeq).slice(0, limit);
  }
  async lastSeq() {
    return this.events.length;
  }
  async prune() {
    return 0;
  }
}

class Signals implements EventSignals {
  users?: (ids: number[]) => void;
  gap?: () => void;
  subscribe(onUsers: (ids: number[]) => void, onGap: () => void) {
    this.users = onUsers;
    this.gap = onGap;
    return () => {};
  }
}

/** A client that takes nothing until told to: what is written stays buffered. */
class Sink implements StreamSink {
  text = '';
  pending = 0;
  ended = false;
  destroyed = false;
  private drains: (() => void)[] = [];
  private closers: (() => void)[] = [];
  write(chunk: string) {
    this.text += chunk;
    this.pending += chunk.length;
  }
  buffered() {
    return this.pending;
  }
  needsDrain() {
    return this.pending > 1000;
  }
  drained() {
    return new Promise<void>((resolve) => this.drains.push(resolve));
  }
  /** The client takes everything written so far. */
  take() {
    this.pending = 0;
    const drains = this.drains;
    this.drains = [];
    drains.forEach((d) => d());
  }
  end() {
    this.ended = true;
    this.closers.forEach((c) => c());
  }
  destroy() {
    this.destroyed = true;
    this.closers.forEach((c) => c());
  }
  onClose(listener: () => void) {
    this.closers.push(listener);
  }
  ids() {
    return [...this.text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  }
}

const tick = () => new Promise((r) => setTimeout(r, 10));

function hub(log: MemoryLog, signals: Signals, bufferBytes = 1_000_000) {
  const h = new StreamHub({
    log,
    signals,
    present: (e) => JSON.stringify(e.payload),
    heartbeatMs: 60_000,
    bufferBytes,
    streamsPerUser: 4,
    retentionMs: 60_000,
  });
  h.start();
  return h;
}

describe('StreamHub', () => {
  it('cuts a client that lets more than the buffer wait, and it resumes from where it was with Last-Event-ID', async () => {
    const log = new MemoryLog();
    const signals = new Signals();
    const h = hub(log, signals, 4096);
    const slow = new Sink();
    h.add({ userId: 1, lastEventId: undefined, sink: slow, stillValid: () => true });
    await tick();
    log.add(5, 'y'.repeat(2000));
    signals.users!([1]);
    await tick();
    assert.equal(slow.destroyed, true, 'dropped, not waited for');
    assert.equal(h.size, 0);
    // What was buffered is lost with the connection: the client got, say, the first two.
    const resumed = new Sink();
    h.add({ userId: 1, lastEventId: '2', sink: resumed, stillValid: () => true });
    await tick();
    resumed.take();
    await tick();
    assert.deepEqual(resumed.ids(), [3, 4, 5]);
    h.close();
  });

  it('reads a long backlog a batch at a time, each after the client took the last', async () => {
    const log = new MemoryLog();
    log.add(250);
    const signals = new Signals();
    const h = hub(log, signals);
    const sink = new Sink();
    h.add({ userId: 1, lastEventId: '0', sink, stillValid: () => true });
    await tick();
    assert.equal(sink.ids().length, 100, 'one batch, then it waits for drain');
    sink.take();
    await tick();
    assert.equal(sink.ids().length, 200);
    sink.take();
    await tick();
    assert.deepEqual(
      sink.ids(),
      Array.from({ length: 250 }, (_, i) => i + 1),
    );
    h.close();
    assert.equal(sink.ended, true);
  });

  it('reads again after a gap in the signals, and once per burst of signals', async () => {
    const log = new MemoryLog();
    const signals = new Signals();
    const h = hub(log, signals);
    const sink = new Sink();
    h.add({ userId: 1, lastEventId: undefined, sink, stillValid: () => true });
    await tick();
    log.add(2);
    signals.gap!();
    await tick();
    assert.deepEqual(sink.ids(), [1, 2]);
    const before = log.reads;
    log.add(1);
    for (let i = 0; i < 50; i++) signals.users!([1]);
    await tick();
    assert.ok(log.reads - before <= 2, `${log.reads - before} reads for one burst`);
    assert.deepEqual(sink.ids(), [1, 2, 3]);
    // Another user's signal reads nothing for this one.
    const reads = log.reads;
    signals.users!([2]);
    await tick();
    assert.equal(log.reads, reads);
    h.close();
  });

  it('spreads heartbeats: streams opened together come due apart, a turn writes a slice, a stream that sent an event needs none', async () => {
    const log = new MemoryLog();
    const signals = new Signals();
    let now = 0;
    const h = new StreamHub({
      log,
      signals,
      present: (e) => JSON.stringify(e.payload),
      heartbeatMs: 1000,
      bufferBytes: 1_000_000,
      streamsPerUser: 1,
      retentionMs: 60_000,
      now: () => now,
    });
    h.start();
    // Heartbeats counted per turn of the event loop: the first of a turn queues the count's end.
    let inTurn = 0;
    let mostInTurn = 0;
    class CountingSink extends Sink {
      heartbeats = 0;
      override write(chunk: string) {
        super.write(chunk);
        if (!chunk.startsWith(': heartbeat')) return;
        this.heartbeats++;
        if (inTurn++ === 0)
          setImmediate(() => {
            mostInTurn = Math.max(mostInTurn, inTurn);
            inTurn = 0;
          });
      }
    }
    // Each pass checks every stream's token once: passes are counted by the checks.
    let checks = 0;
    const N = 1000;
    const sinks = Array.from({ length: N }, (_, i) => {
      const sink = new CountingSink();
      h.add({ userId: i + 1, lastEventId: undefined, sink, stillValid: () => ++checks > 0 });
      return sink;
    });
    const pass = async () => {
      const done = checks + N;
      await until(() => checks >= done);
    };
    const beating = () => sinks.filter((s) => s.heartbeats > 0).length;

    // Half the interval on, about half the streams are due.
    now = 500;
    await pass();
    assert.ok(beating() > 0.4 * N && beating() < 0.6 * N, `${beating()} of ${N}`);
    // The first stream sends an event: its heartbeat waits a whole interval after it.
    now = 1000;
    log.add(1);
    signals.users!([1]);
    await until(() => sinks[0]!.ids().length === 1);
    const before = sinks[0]!.heartbeats;
    now = 1900;
    await pass();
    assert.equal(sinks[0]!.heartbeats, before);
    assert.ok(sinks.slice(1).every((s) => s.heartbeats > 0));
    now = 2000;
    await pass();
    assert.equal(sinks[0]!.heartbeats, before + 1);
    assert.ok(mostInTurn <= 256, `${mostInTurn} heartbeats in one turn`);
    h.close();
  });

  it('ends a stream once its token is no longer valid', async () => {
    const log = new MemoryLog();
    const h = hub(log, new Signals());
    const sink = new Sink();
    let valid = true;
    h.add({ userId: 1, lastEventId: undefined, sink, stillValid: () => valid });
    valid = false;
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal(sink.ended, true);
    assert.equal(h.size, 0);
    h.close();
  });
});
