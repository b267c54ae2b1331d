import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEntities, formatAmount, priceText } from '../../src/present/price.js';
import type { PriceFormat } from '../../src/present/price.js';

const dollars: PriceFormat = { currencySymbol: '&#36;', position: 'left', decimals: 2, thousandsSeparator: ',', decimalSeparator: '.' };
/** The current plugin's markup (D7, second round), named after the listing's price type. */
const wrap = (inner: string, type = 'fixed') =>
  `<div class="rtcl-price price-type-${type}"><span class="rtcl-price-amount amount"><bdi>${inner}</bdi></span></div>`;
const symbol = (s: string) => `<span class="rtcl-price-currencySymbol">${s}</span>`;

describe('listing amount (D7)', () => {
  it("renders the interface's example", () => {
    assert.equal(formatAmount('1200', dollars, ''), wrap(`${symbol('&#36;')}1,200.00`));
  });

  it("names the listing's price type, escaped as an attribute; fixed when it has none", () => {
    assert.equal(formatAmount('1200', dollars, 'negotiable'), wrap(`${symbol('&#36;')}1,200.00`, 'negotiable'));
    assert.equal(formatAmount('1200', dollars, 'a"b'), wrap(`${symbol('&#36;')}1,200.00`, 'a&quot;b'));
    assert.equal(formatAmount('1200', dollars, ''), wrap(`${symbol('&#36;')}1,200.00`));
  });

  it('is empty when there is no price', () => {
    assert.equal(formatAmount('', dollars, ''), '');
  });

  for (const [raw, shown] of [
    ['0', '0.00'],
    ['5', '5.00'],
    ['999.999', '1,000.00'],
    ['1.005', '1.01'],
    ['1234567.891', '1,234,567.89'],
    ['0007', '7.00'],
    ['99999999999999.995', '100,000,000,000,000.00'],
  ] as const) {
    it(`rounds half up without binary float errors: ${raw} -> ${shown}`, () => {
      assert.equal(formatAmount(raw, dollars, ''), wrap(`${symbol('&#36;')}${shown}`));
    });
  }

  it('follows the currency settings: symbol, position, decimals and separators', () => {
    const euros: PriceFormat = {
      currencySymbol: '&euro;',
      position: 'right_space',
      decimals: 0,
      thousandsSeparator: '.',
      decimalSeparator: ',',
    };
    assert.equal(formatAmount('1234567.5', euros, ''), wrap(`1.234.568&nbsp;${symbol('&euro;')}`));
    assert.equal(formatAmount('12.5', { ...euros, position: 'left_space', decimals: 1 }, ''), wrap(`${symbol('&euro;')}&nbsp;12,5`));
    assert.equal(formatAmount('12.5', { ...dollars, position: 'right' }, ''), wrap(`12.50${symbol('&#36;')}`));
  });
});

describe("an offer's price in a message's text", () => {
  it('is the amount as formatAmount shows it, without the markup, its symbol decoded', () => {
    assert.equal(priceText('1150', dollars), '$1,150.00');
    assert.equal(priceText('1150.5', { ...dollars, trimZeros: true }), '$1,150.50');
    assert.equal(priceText('1150', { ...dollars, trimZeros: true }), '$1,150');
    const euros: PriceFormat = {
      currencySymbol: '&euro;',
      position: 'right_space',
      decimals: 2,
      thousandsSeparator: '.',
      decimalSeparator: ',',
    };
    assert.equal(priceText('1150.5', euros), '1.150,50 €');
    assert.equal(priceText('7', { ...dollars, currencySymbol: '&#x62f;.&#x625;', position: 'left_space', decimals: 0 }), 'د.إ 7');
    assert.equal(priceText('7', { ...dollars, currencySymbol: '&#82;&#36;' }), 'R$7.00');
  });

  it('leaves an entity it does not know as it is', () => {
    assert.equal(decodeEntities('&unknown; &amp; &#0;'), '&unknown; & &#0;');
  });
});
