/**
 * What `dsh doctor` learns of the renderer (FetchProvider.check): Chromium
 * found, its version, its sandbox on or off and why, and the loopback
 * self-test that a page's egress is contained. Nothing leaves loopback.
 */
import { WebError } from 'dsh-web'
import type { BrowserFetcher } from './browser-fetcher.js'
import { selfTestContainment } from './self-test.js'

export async function checkBrowser(fetcher: BrowserFetcher, timeoutMs: number | undefined): Promise<string> {
  const status = fetcher.status()
  if (!status.found) throw new WebError('WEB_PROVIDER_UNAVAILABLE', `No Chromium at ${status.executablePath}: apt-get install chromium, or set executablePath in the web-fetch-browser row.`)
  const report = await selfTestContainment({ executablePath: status.executablePath, timeoutMs })
  const sandbox = report.sandbox.enabled ? 'sandbox on' : `sandbox off (${report.sandbox.reason ?? 'no reason given'})`
  if (!report.contained) {
    const failed = report.checks.filter((check) => !check.ok)
    throw new WebError(
      'WEB_PROVIDER_UNAVAILABLE',
      `${report.version ?? 'Chromium'} at ${status.executablePath}, ${sandbox}: the loopback self-test found its egress not contained (${failed.map((check) => `${check.name}: ${check.detail}`).join('; ')}). Do not render with it; see docs/security.md, "Rendering".`,
    )
  }
  return `${report.version ?? 'Chromium'} at ${status.executablePath}, ${sandbox}; the loopback self-test held (${report.checks.map((check) => check.name).join(', ')})`
}
