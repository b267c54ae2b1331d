/** Times on the wire: `YYYY-MM-DD HH:MM:SS` in the site time zone (D6). */

export type TimeFormatter = (epochMs: number) => string;

/** A fixed offset such as `+05:30` (WordPress's `gmt_offset`, which no IANA zone may match), in seconds. */
export function fixedOffsetSeconds(timeZone: string): number | undefined {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(timeZone);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60) : undefined;
}

/** `timeZone`: an IANA zone, or a fixed offset such as `+05:30`. */
export function timeFormatter(timeZone: string): TimeFormatter {
  const offset = fixedOffsetSeconds(timeZone);
  const formatSecond =
    offset !== undefined
      ? (second: number) => utcSecond(second + offset)
      : timeZone === 'UTC' || timeZone === 'Etc/UTC'
        ? utcSecond
        : zonedSecond(timeZone);
  // A reply's four times are mostly this second (now); a conversation that already existed adds
  // the second it was created in. The last two seconds formatted are kept.
  let last = { second: NaN, text: '' };
  let previous = last;
  return (ms) => {
    const second = Math.floor(ms / 1000);
    if (second === last.second) return last.text;
    if (second !== previous.second) previous = { second, text: formatSecond(second) };
    const found = previous;
    previous = last;
    last = found;
    return found.text;
  };
}

const DAY_S = 86_400;
/** "00" to "59": the hour, minute and second fields. */
const PAIRS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));
/** Days 0000-01-01 to 9999-12-31 from 1970-01-01, where toISOString writes a four-digit year. */
const FIRST_DAY = -719_528;
const LAST_DAY = 2_932_896;
// A read writes a time for every message: the date of each day is made once (a favourites page
// spans many days), the time of day from the table, instead of a Date and its ISO text each time.
const dates = new Map<number, string>();

/** The plain path: a whole second since the epoch as `YYYY-MM-DD HH:MM:SS` in UTC. */
export function isoUtcSecond(second: number): string {
  return new Date(second * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** The same text as isoUtcSecond (a test holds them equal), for a whole second, faster. */
export function utcSecond(second: number): string {
  const day = Math.floor(second / DAY_S);
  if (day < FIRST_DAY || day > LAST_DAY || !Number.isInteger(second)) return isoUtcSecond(second);
  let date = dates.get(day);
  if (date === undefined) {
    // Some 11 years of days at most; past that, start again.
    if (dates.size >= 4096) dates.clear();
    dates.set(day, (date = isoUtcSecond(day * DAY_S).slice(0, 11)));
  }
  const s = second - day * DAY_S;
  return `${date}${PAIRS[Math.floor(s / 3600)]}:${PAIRS[Math.floor(s / 60) % 60]}:${PAIRS[s % 60]}`;
}

function zonedSecond(timeZone: string): (second: number) => string {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  // formatToParts is slow: the cache above calls it once per second at most.
  return (second) => {
    const p: Record<string, string> = {};
    for (const part of format.formatToParts(new Date(second * 1000))) p[part.type] = part.value;
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  };
}

/** A time as `YYYY-MM-DD HH:MM:SS` in UTC, as WordPress's `_gmt` dates. */
export const utcTime: TimeFormatter = (ms) => utcSecond(Math.floor(ms / 1000));

const twoDigits = (n: number) => String(n).padStart(2, '0');

/**
 * The offset from UTC of a time formatted in the site time zone, as PHP writes a DateTime's
 * offset (`+01:00`): derived from that formatted time, so the two always agree.
 */
export function utcOffsetOf(localTime: string, epochMs: number): string {
  const minutes = Math.round((Date.parse(`${localTime.replace(' ', 'T')}Z`) - Math.floor(epochMs / 1000) * 1000) / 60_000);
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${twoDigits(Math.floor(abs / 60))}:${twoDigits(abs % 60)}`;
}
