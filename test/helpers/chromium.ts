/**
 * Debian's Chromium, headless, driven by playwright-core (the npm packages never download a browser):
 * the browser tests launch it alike, and skip when it is missing (scripts/ci/install-chromium.sh
 * installs it).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
// As the machine notes advise: without the background-networking flags Chromium tries to reach Google's hosts.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A test's `skip` option: false, or why it cannot run here. */
export const skipWithoutChromium = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: install Debian's chromium (scripts/ci/install-chromium.sh)`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}
