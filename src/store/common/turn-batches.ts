/**
 * What callers ask for in one turn of the event loop, handed on together: the read batches of the
 * MySQL and PostgreSQL stores (mysql/read-batch.ts, postgres/read-batch.ts), which send each batch
 * in one round trip.
 */

export interface TurnBatching {
  /** The most in one batch: more would make the first callers wait on the last ones' work. */
  most: number;
  /**
   * After how many turns the batch leaves: 1, once every request whose bytes arrived in this turn
   * has asked; 2, also what those asked for in the turn after (lookups gathered in one turn).
   */
  turns: 1 | 2;
}

/** `ask(item)` joins the batch of this turn; `send` gets the batches, in the order asked, at most `most` each. */
export function turnBatches<T>(send: (batch: T[]) => void, { most, turns }: TurnBatching): (item: T) => void {
  let waiting: T[] = [];
  const flush = () => {
    const all = waiting;
    waiting = [];
    for (let i = 0; i < all.length; i += most) send(all.slice(i, i + most));
  };
  const schedule = turns === 1 ? () => setImmediate(flush) : () => setImmediate(() => setImmediate(flush));
  return (item) => {
    if (waiting.length === 0) schedule();
    waiting.push(item);
  };
}
