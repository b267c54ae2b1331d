/**
 * The group of client addresses that failed authentications are counted under. An IPv4 address
 * is its own group. An IPv6 address is grouped with its /64: a single subscriber is usually given
 * a whole /64, so counting each address apart would give one client 2^64 budgets.
 */
import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** The eight 16-bit groups of a valid IPv6 address (zone removed, "::" and a dotted IPv4 tail expanded). */
function hextets(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = (dotted[1] as string).split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * "a.b.c.d" for IPv4 (an IPv4-mapped IPv6 address included), "x:x:x:x::/64" for IPv6, and the
 * text itself for anything else (a socket that has no address any more).
 */
export function addressGroup(address: string): string {
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped) return mapped[1] as string;
  if (isIPv4(address) || !isIPv6(address.replace(/%.*$/, ''))) return address;
  return `${hextets(address)
    .slice(0, 4)
    .map((h) => h.toString(16))
    .join(':')}::/64`;
}
