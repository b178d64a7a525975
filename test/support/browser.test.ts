import { describe, expect, it } from 'vitest';
import { findChromium, launchChromium, packagedChromium } from './browser.js';

describe('the browser the test suites launch', () => {
  it('comes with npm install: the packaged Chromium starts and renders a page', async () => {
    const browser = await launchChromium(await packagedChromium());
    try {
      const page = await browser.newPage();
      await page.setContent('<p id="answer"></p><script>document.getElementById("answer").textContent = String(6 * 7)</script>');
      expect(await page.textContent('#answer')).toBe('42');
      // Pages format dates in the browser's language: under the C locale it must still be a valid tag.
      expect(await page.evaluate(() => new Intl.DateTimeFormat(navigator.language).resolvedOptions().locale)).toBeTruthy();
    } finally {
      await browser.close();
    }
  });

  it('is the one CHROMIUM_PATH names, and a CHROMIUM_PATH that does not exist is an error that names it', async () => {
    const { executablePath } = await packagedChromium();
    await expect(findChromium({ CHROMIUM_PATH: executablePath })).resolves.toEqual({ executablePath });
    await expect(findChromium({ CHROMIUM_PATH: '/nonexistent/chromium' })).rejects.toThrow('CHROMIUM_PATH=/nonexistent/chromium does not exist');
  });
});
