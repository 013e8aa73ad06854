/**
 * pnpm bench:extract-speed [--baseline REF] [--rounds N] [--every K] [--set articles|wcxb|both]
 *
 * The time of main-content extraction against an earlier version of it, in
 * the same run: the extraction function (extractHtml) of this checkout and
 * the one of REF (a git commit, by default 3809335, the code of 2026-12-02
 * when issue 30 set its speed target: the median per page within x1.1),
 * called in one process on the same pages, interleaved page by page (which
 * of the two goes first alternates), so that the machine's load, which other
 * work changes from minute to minute, weighs on both alike. A fetch through
 * the provider (bench:extract, bench:wcxb) adds the worker, the network and
 * the decoding around this, the same for both versions; their medians follow
 * the load more than the code, and one version's run cannot be set beside
 * another's.
 *
 * REF is checked out in a temporary git worktree and installed there
 * offline from the pnpm store this checkout's install filled (its lockfile,
 * `--frozen-lockfile --offline`); the worktree goes at the end. Pages: the
 * shared article benchmark's 181 (`../shared/bench/article-extraction/`) and
 * every K-th page of the WCXB development split (`../shared/bench/wcxb-dev/`,
 * K = 3 by default: 453 pages), each read at the address it was crawled at,
 * text format, main content. Each page is read once by both to warm up, then
 * N rounds (3 by default); a page's time is its median over the rounds.
 * Printed per set: the median of the pages' times for each version, their
 * ratio (the target's figure), the median of the per-page ratios, and the
 * ratio of the totals.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { gunzipSync } from 'node:zlib'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    baseline: { type: 'string', default: '3809335' },
    rounds: { type: 'string', default: '3' },
    every: { type: 'string', default: '3' },
    set: { type: 'string', default: 'both' },
    articles: { type: 'string', default: resolve(root, '../shared/bench/article-extraction') },
    wcxb: { type: 'string', default: resolve(root, '../shared/bench/wcxb-dev') },
  },
})
const rounds = Number(values.rounds)
const every = Number(values.every)
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(every) || every < 1) {
  console.error('bench:extract-speed: --rounds and --every take a whole number of 1 or more.')
  process.exit(2)
}
if (!['articles', 'wcxb', 'both'].includes(values.set!)) {
  console.error(`bench:extract-speed: --set is articles, wcxb or both (not "${values.set}").`)
  process.exit(2)
}

for (const [flag, path, set] of [
  ['--articles', join(values.articles!, 'ground-truth.json'), 'articles'],
  ['--wcxb', join(values.wcxb!, 'metadata.json'), 'wcxb'],
] as const) {
  if (values.set !== 'both' && values.set !== set) continue
  if (existsSync(path)) continue
  console.error(`bench:extract-speed: ${path} does not exist. It looks for the shared benchmarks in ../shared/bench beside the clone; put them there, pass ${flag} with the folder, or --set the other one.`)
  process.exit(2)
}

type Extract = (input: { html: string; url: string; format: 'text'; extract: 'main' }) => unknown

const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim()
let commit: string
try {
  commit = git('rev-parse', '--verify', `${values.baseline}^{commit}`)
} catch {
  console.error(`bench:extract-speed: ${values.baseline} is not a commit of this clone; pass --baseline with one that is (a clone made with --depth may not hold the default, 3809335).`)
  process.exit(2)
}
/** The file that defines extractHtml at a commit: it moved between packages as the readers grew. */
function extractModule(treeish: string): string {
  const files = git('grep', '-l', 'export function extractHtml', treeish, '--', 'packages').split('\n').filter(Boolean)
  if (files.length !== 1) throw new Error(`bench:extract-speed: ${files.length} files define extractHtml at ${treeish}; expected one`)
  return files[0]!.slice(treeish.length + 1)
}

const pages: { set: 'articles' | 'wcxb'; id: string; html: string; url: string }[] = []
if (values.set !== 'wcxb') {
  const truth = JSON.parse(readFileSync(join(values.articles!, 'ground-truth.json'), 'utf8')) as Record<string, { url: string }>
  for (const [id, { url }] of Object.entries(truth)) pages.push({ set: 'articles', id, url, html: gunzipSync(readFileSync(join(values.articles!, 'html', `${id}.html.gz`))).toString('utf8') })
}
if (values.set !== 'articles') {
  const ids = readdirSync(join(values.wcxb!, 'html'))
    .filter((file) => file.endsWith('.html.gz'))
    .map((file) => file.slice(0, -'.html.gz'.length))
    .sort()
  for (const id of ids.filter((_, index) => index % every === 0)) {
    const truth = JSON.parse(readFileSync(join(values.wcxb!, 'ground-truth', `${id}.json`), 'utf8')) as { url?: string }
    pages.push({ set: 'wcxb', id, url: truth.url?.trim() || `https://wcxb.example/${id}`, html: gunzipSync(readFileSync(join(values.wcxb!, 'html', `${id}.html.gz`))).toString('utf8') })
  }
}

const worktree = join(mkdtempSync(join(tmpdir(), 'dsh-extract-speed-')), 'baseline')
console.log(`baseline ${values.baseline} (${commit.slice(0, 10)}): checking out in ${worktree} and installing offline...`)
git('worktree', 'add', '--detach', worktree, commit)
try {
  execFileSync('npx', ['-y', 'pnpm@12.4.2', 'install', '--frozen-lockfile', '--offline', '--ignore-scripts'], { cwd: worktree, stdio: ['ignore', 'ignore', 'inherit'] })
  const ours = ((await import(pathToFileURL(join(root, extractModule('HEAD'))).href)) as { extractHtml: Extract }).extractHtml
  const theirs = ((await import(pathToFileURL(join(worktree, extractModule(commit))).href)) as { extractHtml: Extract }).extractHtml
  run(ours, theirs)
} finally {
  git('worktree', 'remove', '--force', worktree)
}

function run(ours: Extract, theirs: Extract) {
  const times = { ours: pages.map((): number[] => []), theirs: pages.map((): number[] => []) }
  const time = (extract: Extract, index: number, into?: number[][]) => {
    const page = pages[index]!
    const started = performance.now()
    try {
      extract({ html: page.html, url: page.url, format: 'text', extract: 'main' })
    } catch {}
    into?.[index]!.push(performance.now() - started)
  }
  for (const index of pages.keys()) {
    time(theirs, index)
    time(ours, index)
  }
  for (let round = 0; round < rounds; round++) {
    for (const index of pages.keys()) {
      if ((round + index) % 2) {
        time(theirs, index, times.theirs)
        time(ours, index, times.ours)
      } else {
        time(ours, index, times.ours)
        time(theirs, index, times.theirs)
      }
    }
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b)
    return sorted[Math.floor((sorted.length - 1) / 2)]!
  }
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0)
  console.log(`${rounds} rounds, interleaved; a page's time is its median over the rounds (target: ours within x1.1 of the baseline's median)`)
  console.log(`${'set'.padEnd(9)} ${'pages'.padStart(5)} ${'baseline ms'.padStart(11)} ${'ours ms'.padStart(8)} ${'median x'.padStart(9)} ${'per page x'.padStart(10)} ${'total x'.padStart(8)}`)
  for (const set of ['articles', 'wcxb'] as const) {
    const indexes = [...pages.keys()].filter((index) => pages[index]!.set === set)
    if (!indexes.length) continue
    const baseline = indexes.map((index) => median(times.theirs[index]!))
    const current = indexes.map((index) => median(times.ours[index]!))
    const ratios = indexes.map((_, position) => current[position]! / baseline[position]!)
    console.log(
      `${set.padEnd(9)} ${String(indexes.length).padStart(5)} ${median(baseline).toFixed(2).padStart(11)} ${median(current).toFixed(2).padStart(8)} ` +
        `${`x${(median(current) / median(baseline)).toFixed(3)}`.padStart(9)} ${`x${median(ratios).toFixed(3)}`.padStart(10)} ${`x${(sum(current) / sum(baseline)).toFixed(3)}`.padStart(8)}`,
    )
  }
}
