import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'puppeteer-core'
import { WebError } from 'dsh-web'
import { treeResidentBytes } from './process-memory.js'
import type { VettingProxy } from './vetting-proxy.js'

export const DEFAULT_EXECUTABLE = '/usr/bin/chromium'

/** Whether Chromium's own sandbox can run here, and why not when it cannot. */
export interface SandboxState {
  enabled: boolean
  /** Why it is off (the reason `dsh doctor` and the provenance state). */
  reason?: string
}

function readNumber(path: string): number | undefined {
  try {
    return Number(readFileSync(path, 'utf8').trim())
  } catch {
    return undefined
  }
}

/**
 * Chromium's sandbox needs an unprivileged user and user namespaces (or the
 * setuid helper, which Debian does not ship). As root Chromium refuses to
 * start with it; where the kernel or AppArmor forbids unprivileged user
 * namespaces it fails to start. Both are detected here, never guessed from a
 * failed launch, so the state is known before anything runs.
 */
export function detectSandbox(uid = process.getuid?.() ?? -1): SandboxState {
  if (uid === 0) return { enabled: false, reason: 'this process runs as root, and Chromium does not run its sandbox for root: run dsh as an unprivileged user to have it' }
  if (readNumber('/proc/sys/kernel/unprivileged_userns_clone') === 0) {
    return { enabled: false, reason: 'the kernel forbids unprivileged user namespaces (kernel.unprivileged_userns_clone = 0), which the sandbox needs: sysctl -w kernel.unprivileged_userns_clone=1' }
  }
  if (readNumber('/proc/sys/user/max_user_namespaces') === 0) {
    return { enabled: false, reason: 'user namespaces are off (user.max_user_namespaces = 0), which the sandbox needs' }
  }
  if (readNumber('/proc/sys/kernel/apparmor_restrict_unprivileged_userns') === 1) {
    return { enabled: false, reason: 'AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1), which the sandbox needs' }
  }
  return { enabled: true }
}

/**
 * The switches every launch gets. The proxy (which `proxyUrl` names; each
 * page's context gets a proxy of its own) applies to loopback too; Chromium
 * resolves no name itself, the proxy's address being an IP literal it
 * never has to; no QUIC (UDP), no background, sync or component traffic.
 * WebRTC's UDP is held by a preference, not a switch (below).
 */
export function chromiumSwitches(proxyUrl: string, proxyHost: string, sandbox: SandboxState, rendererHeapMb: number): string[] {
  return [
    `--proxy-server=${proxyUrl}`,
    '--proxy-bypass-list=<-loopback>',
    // Chromium 150 maps IP literals through these rules too: the proxy's own address is the one exception.
    `--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE ${proxyHost}`,
    '--disable-quic',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-domain-reliability',
    '--disable-client-side-phishing-detection',
    '--disable-default-apps',
    '--disable-breakpad',
    '--no-pings',
    '--no-first-run',
    '--no-default-browser-check',
    // Each name exists in Chromium 150's binary (an unknown one is ignored without a word). AimEligibilityService
    // and PreconnectToSearch opened tunnels to www.google.com from every new context, through the page's own proxy.
    '--disable-features=NetworkTimeServiceQuerying,Translate,OptimizationHints,OptimizationGuideOnDeviceModel,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,PreconnectToSearch,LoadingPredictorUseLocalPredictions,NavigationPredictor,SearchPrefetchServicePrefetching,Prerender2,AimEligibilityService,AimServerEligibilityEnabled,AimServerRequestOnStartupEnabled,AimServerRequestOnIdentityChangeEnabled',
    '--mute-audio',
    `--js-flags=--max-old-space-size=${rendererHeapMb}`,
    ...(sandbox.enabled ? [] : ['--no-sandbox']),
  ]
}

/**
 * Preferences of the fresh profile. Measured on Debian's Chromium 150:
 * `--force-webrtc-ip-handling-policy=disable_non_proxied_udp` no longer has
 * any effect (STUN packets still reached a loopback UDP port), while this
 * preference stops them, in the default context and in every context made
 * from it.
 */
const PREFERENCES = {
  webrtc: { ip_handling_policy: 'disable_non_proxied_udp', multiple_routes_enabled: false, nonproxied_udp_enabled: false },
  // No preconnects or prefetches of Chromium's own (its default search engine's origin among them).
  net: { network_prediction_options: 2 },
  default_search_provider: { enabled: false },
  download: { prompt_for_download: false, default_directory: '/nonexistent' },
  profile: { default_content_setting_values: { geolocation: 2, notifications: 2, media_stream_camera: 2, media_stream_mic: 2, midi_sysex: 2, clipboard: 2, sensors: 2 } },
}

/** Why a browser ended: its reason, and whether it was its memory. */
export interface BrowserEnd {
  reason: string
  overMemory: boolean
  /** False when the provider itself was shut down: no browser follows. */
  restarts: boolean
}

export interface ChromiumOptions {
  executablePath: string
  /** Resident memory of the whole process tree; past it the browser is killed and started again at the next call. */
  memoryMb: number
  /** V8 heap of each renderer. */
  rendererHeapMb: number
  launchTimeoutMs: number
  /** A proxy that refuses everything: the browser's own traffic, outside any page's context. */
  startRefusingProxy: () => Promise<VettingProxy>
  /** How often the tree's memory is read. */
  memoryCheckMs?: number
}

export interface ChromiumStatus {
  executablePath: string
  found: boolean
  version?: string
  sandbox: SandboxState
  running: boolean
  /** The browser's process id while it runs (its process group is killed at the memory cap). */
  pid?: number
  /** Launches since the provider started. */
  launches: number
  /** Why the last browser ended, when it did not end by close(). */
  lastExit?: string
  /** The browser's own requests (outside any page) refused so far. */
  ownRequestsRefused: number
}

interface Running {
  browser: Browser
  pid: number
  userDataDir: string
  ownProxy: VettingProxy
  watchdog: NodeJS.Timeout
  /** Set once it is ending; the reason when it ended by itself or was killed. */
  ended?: string
  /** True when it was killed for its memory (the calls in it end with WEB_DOCUMENT_TOO_COMPLEX). */
  overMemory?: boolean
  exited: Promise<void>
}

/** The names of proxy variables Chromium would otherwise read: its child gets none of them. */
const PROXY_VARIABLES = /^(https?|all|no|ftp)_proxy$/i

/**
 * One Chromium process shared by every call: started at the first call,
 * started again after it died or was killed for its memory, its profile a
 * new empty folder each time, removed when it ends.
 */
export class ChromiumProcess {
  readonly sandbox: SandboxState = detectSandbox()
  private running?: Running
  private starting?: Promise<Running>
  private launches = 0
  private lastExit?: string
  private ownRefused = 0
  private version?: string
  private closed = false
  /** The end of the last browser that ended: its exit, its proxy closed, its profile removed. A new browser starts after it. */
  private cleanup?: Promise<void>

  constructor(private readonly options: ChromiumOptions) {}

  status(): ChromiumStatus {
    return {
      executablePath: this.options.executablePath,
      found: existsSync(this.options.executablePath),
      ...(this.version ? { version: this.version } : {}),
      sandbox: this.sandbox,
      running: this.running !== undefined && !this.running.ended,
      ...(this.running && !this.running.ended ? { pid: this.running.pid } : {}),
      launches: this.launches,
      ...(this.lastExit ? { lastExit: this.lastExit } : {}),
      ownRequestsRefused: this.ownRefused + (this.running?.ownProxy.refused.count ?? 0),
    }
  }

  /** The version line of the executable (`chromium --version`), without starting a browser. */
  readVersion(): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(this.options.executablePath, ['--version'], { timeout: 10_000 }, (error, stdout) => {
        if (error) reject(error)
        else resolve(stdout.trim())
      })
    })
  }

  /** A live browser: the running one, or a new one. */
  async acquire(): Promise<{ browser: Browser; ended: () => BrowserEnd | undefined; lost: () => void }> {
    if (this.closed) throw new WebError('WEB_FETCH_FAILED', 'The browser fetch provider has been shut down.')
    let running = this.running
    if (!running || running.ended || !running.browser.connected) {
      this.starting ??= this.launch().finally(() => (this.starting = undefined))
      running = await this.starting
    }
    const current = running
    return { browser: current.browser, ended: () => (current.ended ? { reason: current.ended, overMemory: current.overMemory === true, restarts: !this.closed } : undefined), lost: () => this.kill(current, current.ended ?? 'the browser stopped answering (it died, or was killed from outside)') }
  }

  private async launch(): Promise<Running> {
    if (!existsSync(this.options.executablePath)) {
      throw new WebError('WEB_PROVIDER_UNAVAILABLE', `No Chromium at ${this.options.executablePath}: install it (apt-get install chromium) or set executablePath in the web-fetch-browser row.`)
    }
    await this.cleanup
    const { launch } = await import('puppeteer-core')
    const userDataDir = mkdtempSync(join(tmpdir(), 'dsh-chromium-'))
    mkdirSync(join(userDataDir, 'Default'))
    writeFileSync(join(userDataDir, 'Default', 'Preferences'), JSON.stringify(PREFERENCES))
    const ownProxy = await this.options.startRefusingProxy()
    const env: Record<string, string> = {}
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !PROXY_VARIABLES.test(key)) env[key] = value
    let browser: Browser
    try {
      browser = await launch({
        executablePath: this.options.executablePath,
        headless: true,
        pipe: true,
        userDataDir,
        args: chromiumSwitches(ownProxy.url, '127.0.0.1', this.sandbox, this.options.rendererHeapMb),
        env,
        timeout: this.options.launchTimeoutMs,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      })
    } catch (error) {
      await ownProxy.close()
      rmSync(userDataDir, { recursive: true, force: true })
      throw new WebError('WEB_PROVIDER_UNAVAILABLE', `Chromium (${this.options.executablePath}) did not start: ${(error as Error)?.message?.split('\n')[0] ?? error}`, { cause: error })
    }
    this.launches++
    this.version ??= await browser.version().catch(() => undefined)
    const child = browser.process()!
    const pid = child.pid!
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve()
      else child.once('exit', () => resolve())
    })
    const running: Running = { browser, pid, userDataDir, ownProxy, exited, watchdog: undefined as unknown as NodeJS.Timeout }
    const limit = this.options.memoryMb * 1024 * 1024
    running.watchdog = setInterval(() => {
      const bytes = treeResidentBytes(pid)
      if (bytes > limit && !running.ended) running.overMemory = true
      if (bytes > limit) this.kill(running, `the browser's processes held ${Math.round(bytes / 1048576)} MB, over its memory cap of ${this.options.memoryMb} MB (memoryMb)`)
    }, this.options.memoryCheckMs ?? 250)
    running.watchdog.unref()
    browser.once('disconnected', () => this.kill(running, running.ended ?? 'the browser exited or its connection closed'))
    this.running = running
    return running
  }

  /** Ends a browser (the whole process group), removes its profile; the next call starts a new one. */
  private kill(running: Running, reason: string) {
    if (running.ended) return
    running.ended = reason
    this.lastExit = reason
    clearInterval(running.watchdog)
    try {
      process.kill(-running.pid, 'SIGKILL')
    } catch {}
    this.cleanup = running.exited.then(async () => {
      this.ownRefused += running.ownProxy.refused.count
      await running.ownProxy.close()
      rmSync(running.userDataDir, { recursive: true, force: true })
    })
    if (this.running === running) this.running = undefined
  }

  async close(): Promise<void> {
    this.closed = true
    const running = this.running ?? (await this.starting?.catch(() => undefined))
    if (running) {
      const reason = running.ended
      // Said to a call still rendering in it (its disconnection would otherwise be taken for a crash).
      running.ended ??= 'the browser fetch provider was shut down'
      await running.browser.close().catch(() => {})
      running.ended = undefined
      this.kill(running, reason ?? 'the browser fetch provider was shut down')
      if (!reason) this.lastExit = undefined
    }
    await this.cleanup
  }

}
