/** The listing price as the marketplace's HTML markup (D7). */

/** How the site writes prices: its currency settings. */
export interface PriceFormat {
  currencySymbol: string;
  position: 'left' | 'right' | 'left_space' | 'right_space';
  decimals: number;
  thousandsSeparator: string;
  decimalSeparator: string;
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

export function formatAmount(raw: string, f: PriceFormat): string {
  if (raw === '') return '';
  const { whole, fraction } = roundDecimal(raw, f.decimals);
  const number = groupThousands(whole, f.thousandsSeparator) + (f.decimals > 0 ? f.decimalSeparator + fraction : '');
  const symbol = `<span class="rtcl-price-currencySymbol">${f.currencySymbol}</span>`;
  const inner = {
    left: symbol + number,
    left_space: `${symbol}&nbsp;${number}`,
    right: number + symbol,
    right_space: `${number}&nbsp;${symbol}`,
  }[f.position];
  return `<span class="rtcl-price-amount amount">${inner}</span>`;
}
