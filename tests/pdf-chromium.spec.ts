// PDFs printed by a real engine (issue 28, item 3): the corpus of
// bench:pdf-structure, written as HTML whose structure is known, printed by
// Debian's Chromium and read by the extraction pool as a fetch reads it.
// Chromium sets a table's cells a padding apart (not a wide gap), draws the
// discs of a bulleted list as shapes (not text), and starts each column's paragraphs on
// baselines of their own: the layout must read all that back.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { CORPUS, printPdf, score, toHtml } from '../bench/support/pdf-corpus.js'
import { ExtractPool } from '../packages/web-readers/src/workers/extract-pool.js'

const CHROMIUM = '/usr/bin/chromium'

// The test prerequisites (scripts/test-prerequisites.mjs) install Debian's chromium; without it there is nothing to print with.
describe('PDFs printed by Chromium, read with their structure', { skip: existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed` }, () => {
  let pool: ExtractPool
  let folder: string
  before(async () => {
    pool = new ExtractPool({ size: 1 })
    folder = await mkdtemp(join(tmpdir(), 'dsh-pdf-chromium-'))
  })
  after(async () => {
    await pool.close()
    await rm(folder, { recursive: true, force: true })
  })

  for (const doc of CORPUS) {
    it(`${doc.id}: every heading at its level, every table cell in its row and column, every paragraph whole and in order, every list item an item`, async () => {
      const bytes = await printPdf(CHROMIUM, toHtml(doc), folder, doc.id)
      const output = await pool.convert({ bytes, kind: 'pdf', url: `https://x.test/${doc.id}.pdf`, format: 'markdown', extract: 'main' }, new AbortController().signal)
      const result = score(doc, output.text)
      assert.equal(result.headingsLevel, result.headings, output.text)
      assert.equal(result.extraHeadings, 0, output.text)
      assert.equal(result.cellsPlaced, result.cells, output.text)
      // A paragraph that a page break cuts is not whole; the corpus's long document has one such break.
      const cut = output.text.split('--- page ').length - 2
      assert.ok(result.paragraphsWhole >= result.paragraphs - cut, output.text)
      assert.equal(result.paragraphsInOrder, result.paragraphsWhole, output.text)
      // Chromium's numbers are text; its bullets are shapes, read from the page's drawing (pdf-marks.ts).
      assert.equal(result.itemsAsItems, result.items, output.text)
      const numbered = doc.blocks.flatMap((block) => ('ol' in block ? block.ol : []))
      for (const item of numbered) assert.match(output.text, new RegExp(`^\\d+\\. ${item}$`, 'm'))
      const bulleted = doc.blocks.flatMap((block) => ('ul' in block ? block.ul : []))
      for (const item of bulleted) assert.ok(output.text.includes(`\n- ${item}`), `${item} is a list item:\n${output.text}`)
      assert.ok(output.text.startsWith("--- outline (the PDF's bookmarks) ---\n"), 'Chromium writes the headings as the outline')
    })
  }
})
