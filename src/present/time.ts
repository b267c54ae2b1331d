/** Times on the wire: `YYYY-MM-DD HH:MM:SS` in the site time zone (D6). */

export type TimeFormatter = (epochMs: number) => string;

export function timeFormatter(timeZone: string): TimeFormatter {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') {
    return (ms) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  }
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
  const formatSecond = (second: number) => {
    const p: Record<string, string> = {};
    for (const part of format.formatToParts(new Date(second * 1000))) p[part.type] = part.value;
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  };
  // formatToParts is slow, and a reply's times are mostly the same second (now): the last one is kept.
  let last = { second: NaN, text: '' };
  return (ms) => {
    const second = Math.floor(ms / 1000);
    if (second !== last.second) last = { second, text: formatSecond(second) };
    return last.text;
  };
}
