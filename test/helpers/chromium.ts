/**
 * Debian's Chromium, as every browser test, the UI bench and the screenshots drive it through playwright-core.
 * `.ci/run` installs it with apt; where it is missing, a test skips saying why.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/** Why no browser test can run here, or undefined when they can. */
export function noChromium(): string | undefined {
  return existsSync(CHROMIUM)
    ? undefined
    : `chromium not installed: ${CHROMIUM} is missing (.ci/run installs it with apt; this machine could not)`;
}

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...ARGS, ...extraArgs] });
}
