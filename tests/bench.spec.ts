// The benchmarks as a new contributor runs them from a clone.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

describe('bench:extract', () => {
  it('without the shared benchmark beside the clone, exits 2 saying what it needs and how to point at it', async () => {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolveRun) => {
      execFile(process.execPath, ['--import', 'tsx', join(root, 'bench', 'extract.ts'), '--data', join(root, 'no-such-benchmark'), '--limit', '1'], { cwd: root }, (error, _stdout, stderr) =>
        resolveRun({ code: error ? (error.code as number) : 0, stderr }),
      )
    })
    assert.equal(code, 2, stderr)
    assert.match(stderr, /no-such-benchmark\/ground-truth\.json does not exist\. This run needs the article-extraction benchmark .* pass --data with its path\./)
  })
})

describe('bench:find-query', () => {
  it('without the shared benchmark beside the clone, exits 2 saying what it needs and how to point at it', async () => {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolveRun) => {
      execFile(process.execPath, ['--import', 'tsx', join(root, 'bench', 'find-query.ts'), '--data', join(root, 'no-such-benchmark')], { cwd: root }, (error, _stdout, stderr) =>
        resolveRun({ code: error ? (error.code as number) : 0, stderr }),
      )
    })
    assert.equal(code, 2, stderr)
    assert.match(stderr, /no-such-benchmark\/ground-truth\.json does not exist\. This run needs the article-extraction benchmark .* pass --data with its path\./)
  })
})

describe("WCXB's metric (bench/support/word-f1.ts)", () => {
  it('is word-level F1 over lower-cased word multisets, with the empty cases as the benchmark scores them', async () => {
    const { wordF1 } = await import('../bench/support/word-f1.js')
    assert.equal(wordF1('The cat sat', 'the CAT sat'), 1)
    // 2 of 3 predicted words overlap ("the" once, "cat"), reference 4 words: P = 2/3, R = 2/4.
    assert.equal(wordF1('the cat the mat', 'the cat dog').toFixed(6), ((2 * (2 / 3) * (2 / 4)) / (2 / 3 + 2 / 4)).toFixed(6))
    assert.equal(wordF1('', ''), 1)
    assert.equal(wordF1('', 'something'), 0)
    assert.equal(wordF1('something', ''), 0)
    assert.equal(wordF1('Größe café_au_lait', 'größe, CAFÉ_AU_LAIT!'), 1)
  })

  it('rates snippets found and boilerplate absent, ignoring case and runs of white space', async () => {
    const { snippetRates } = await import('../bench/support/word-f1.js')
    assert.deepEqual(snippetRates({ with: ['Main   Point', 'missing words'], without: ['cookie banner'] }, 'the main point\nis here. Cookie  Banner'), { with: 0.5, without: 0 })
    assert.deepEqual(snippetRates({}, 'anything'), {})
  })
})
