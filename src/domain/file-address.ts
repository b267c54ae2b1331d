/**
 * Whether an attachment's address may be stored: a message's `files[].url` is shown to the other
 * participant, printed by a WordPress site and may be fetched by whatever reads the chat, so an
 * address naming this machine or its network (loopback, private, link-local, unspecified,
 * multicast, or any other range not routed on the internet) is refused. WHATWG's URL parser reads
 * the host first, so every spelling of an IPv4 address (`127.1`, `0x7f000001`, `2130706433`) comes
 * out dotted; ipaddr.js names its range, an IPv4-mapped IPv6 address as its IPv4 one. A name is
 * not resolved (what it resolves to can change after the check): only `localhost` and its
 * subdomains, which RFC 6761 reserves for this machine, are refused by name.
 */
import ipaddr from 'ipaddr.js';

function hostOf(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return host.toLowerCase().replace(/\.+$/, '');
}

export function isPublicAddress(url: string): boolean {
  const host = hostOf(url);
  if (host === undefined || host === '') return false;
  if (host === 'localhost' || host.endsWith('.localhost')) return false;
  if (!ipaddr.isValid(host)) return true;
  const parsed = ipaddr.parse(host);
  const address =
    parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  return address.range() === 'unicast';
}

/** The address's host and path as a server reads them: dot segments resolved, percent-encoding decoded, slashes single, in lower case. */
function hostAndPath(url: string): { host: string; path: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  let path = parsed.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Left as sent: a server cannot decode it either.
  }
  // Parsed again for the dot segments decoding made; a decoded `?` or `#` is still part of the path.
  path = new URL(path.replace(/\/{2,}/g, '/').replace(/[?#]/g, encodeURIComponent), 'http://x').pathname;
  return { host: parsed.hostname.toLowerCase(), path: path.toLowerCase() };
}

/**
 * Whether the address names a file Souk stored (under `<files address>/chat/`, FILES_URL's or the
 * bucket's), however spelled: a message may carry such a file only by uploading it, so that a
 * user cannot make their message show, or claim, another user's upload.
 */
export function namesStoredFile(url: string, filesAddresses: readonly string[]): boolean {
  const named = hostAndPath(url);
  if (named === undefined) return false;
  return filesAddresses.some((address) => {
    const files = hostAndPath(address.replace(/\/*$/, '/'));
    return files !== undefined && named.host === files.host && named.path.startsWith(`${files.path}chat/`);
  });
}
