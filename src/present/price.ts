/** The listing price as the marketplace's HTML markup (D7). */

/** How the site writes prices: its currency settings. */
export interface PriceFormat {
  currencySymbol: string;
  position: 'left' | 'right' | 'left_space' | 'right_space';
  decimals: number;
  thousandsSeparator: string;
  decimalSeparator: string;
  /** Drops a fraction of zeros (`350.00` shows `350`), as the WordPress plugin does by default. */
  trimZeros?: boolean;
}

/** Rounds a decimal string half-up to `decimals` places without going through binary floats. */
export function roundDecimal(raw: string, decimals: number): { whole: string; fraction: string } {
  const [intPart = '0', fracPart = ''] = raw.split('.');
  const digits = (intPart.replace(/^0+(?=\d)/, '') + fracPart.padEnd(decimals + 1, '0').slice(0, decimals + 1)).split('').map(Number);
  const roundUp = (digits.pop() ?? 0) >= 5;
  if (roundUp) {
    let i = digits.length - 1;
    while (i >= 0 && digits[i] === 9) digits[i--] = 0;
    if (i >= 0) digits[i] = (digits[i] ?? 0) + 1;
    else digits.unshift(1);
  }
  const all = digits.join('');
  const cut = all.length - decimals;
  return { whole: all.slice(0, cut) || '0', fraction: all.slice(cut) };
}

function groupThousands(whole: string, separator: string): string {
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

/** An attribute value as WordPress's esc_attr writes it. */
const escapeAttribute = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' })[c] ?? c);

/**
 * The price's markup as the current plugin writes it (D7, second round):
 * `<div class="rtcl-price price-type-fixed"><span class="rtcl-price-amount amount"><bdi>...</bdi></span></div>`,
 * named after the listing's price type; `fixed`, the plugin's default, when the listing has none.
 */
export function formatAmount(raw: string, f: PriceFormat, priceType: string): string {
  if (raw === '') return '';
  const { whole, fraction } = roundDecimal(raw, f.decimals);
  const showFraction = f.decimals > 0 && !(f.trimZeros && /^0*$/.test(fraction));
  const number = groupThousands(whole, f.thousandsSeparator) + (showFraction ? f.decimalSeparator + fraction : '');
  const symbol = `<span class="rtcl-price-currencySymbol">${f.currencySymbol}</span>`;
  const inner = {
    left: symbol + number,
    left_space: `${symbol}&nbsp;${number}`,
    right: number + symbol,
    right_space: `${number}&nbsp;${symbol}`,
  }[f.position];
  const type = escapeAttribute(priceType || 'fixed');
  return `<div class="rtcl-price price-type-${type}"><span class="rtcl-price-amount amount"><bdi>${inner}</bdi></span></div>`;
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  nbsp: '\u00a0',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
};

/** Text with the HTML entities a currency symbol is written with (`&#36;`, `&#x62f;`, `&euro;`) decoded; others left as they are. */
export function decodeEntities(html: string): string {
  return html.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] !== '#') return NAMED_ENTITIES[name.toLowerCase()] ?? entity;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

/**
 * A price as plain text, as formatAmount shows it without the markup (`$1,150`, `1.150,50 €`):
 * what a message's text says of an offer, which every app shows as it is.
 */
export function priceText(raw: string, f: PriceFormat): string {
  const { whole, fraction } = roundDecimal(raw, f.decimals);
  const showFraction = f.decimals > 0 && !(f.trimZeros && /^0*$/.test(fraction));
  const number = groupThousands(whole, f.thousandsSeparator) + (showFraction ? f.decimalSeparator + fraction : '');
  const symbol = decodeEntities(f.currencySymbol);
  return { left: symbol + number, left_space: `${symbol} ${number}`, right: number + symbol, right_space: `${number} ${symbol}` }[
    f.position
  ];
}
