// PDFs read with their structure (issue 28, item 3): headings by font size,
// two columns in reading order, tables where cells line up, list items,
// paragraphs. Each PDF is written by the test (pdf-writer.ts) and read by the
// real document processes of the extraction pool.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ExtractPool } from '../../web-readers/src/workers/extract-pool.js'
import { signal } from './helpers.js'
import { type PdfPage, type PdfRun, writePdf } from './pdf-writer.js'

/** Lines top-down from `y`, `leading` points apart. */
function column(x: number, y: number, texts: string[], leading = 14, size = 12): PdfRun[] {
  return texts.map((text, index) => ({ text, x, y: y - index * leading, size }))
}

describe('a PDF read with its structure', () => {
  let pool: ExtractPool
  before(() => {
    pool = new ExtractPool({ size: 1 })
  })
  after(async () => {
    await pool.close()
  })

  async function read(runs: PdfRun[], format: 'markdown' | 'text' = 'markdown', page: Omit<PdfPage, 'runs'> = {}): Promise<string> {
    const output = await pool.convert({ bytes: new Uint8Array(writePdf([{ ...page, runs }])), kind: 'pdf', url: 'https://x.test/a.pdf', format, extract: 'main' }, signal())
    return output.text.replace(/^--- page 1 ---\n/, '')
  }

  it('makes headings of lines set larger than the body, largest first, and keeps paragraphs apart', async () => {
    const runs = [
      { text: 'Annual report', x: 72, y: 740, size: 22, bold: true },
      ...column(72, 700, ['The year in one page of text,', 'set in the body size.']),
      { text: 'Results', x: 72, y: 650, size: 16 },
      ...column(72, 620, ['Revenue grew by a tenth.']),
      ...column(72, 580, ['A second paragraph, after a gap.']),
      { text: 'Outlook', x: 72, y: 540, size: 16 },
      ...column(72, 510, ['More of the same.']),
    ]
    assert.equal(
      await read(runs),
      '# Annual report\n\nThe year in one page of text,\nset in the body size.\n\n## Results\n\nRevenue grew by a tenth.\n\nA second paragraph, after a gap.\n\n## Outlook\n\nMore of the same.',
    )
    assert.equal(
      await read(runs, 'text'),
      'Annual report\n\nThe year in one page of text,\nset in the body size.\n\nResults\n\nRevenue grew by a tenth.\n\nA second paragraph, after a gap.\n\nOutlook\n\nMore of the same.',
    )
  })

  it('makes a heading of a line set bold at the body size and standing apart (an h4), below the larger ones; not a bold run-in, a bold line inside a paragraph or a bold sentence', async () => {
    const runs = [
      { text: 'Setup', x: 72, y: 740, size: 16 },
      ...column(72, 710, ['Install the packages first.']),
      { text: 'Checking the log', x: 72, y: 680, bold: true },
      ...column(72, 654, ['The log names each step.']),
      { text: 'Note:', x: 72, y: 624, bold: true },
      { text: 'keep the log.', x: 106, y: 624 },
      ...column(72, 594, ['A paragraph whose']),
      { text: 'middle line is bold', x: 72, y: 580, bold: true },
      ...column(72, 566, ['and its last is not.']),
      { text: 'A bold sentence on its own.', x: 72, y: 536, bold: true },
    ]
    assert.equal(
      await read(runs),
      '# Setup\n\nInstall the packages first.\n\n## Checking the log\n\nThe log names each step.\n\nNote: keep the log.\n\nA paragraph whose\nmiddle line is bold\nand its last is not.\n\nA bold sentence on its own.',
    )
  })

  it('reads two columns one after the other, below a title that spans both (was: each line of the left column run into the right one)', async () => {
    const left = ['The left column begins here', 'and carries on for a while', 'with the first half of the', 'argument, to its end.']
    const right = ['The right column follows it', 'on the same lines of the', 'page, with the second half', 'of the argument.']
    const text = await read([{ text: 'A paper in two columns, with a title that spans them both', x: 72, y: 740, size: 12 }, ...column(72, 700, left), ...column(320, 700, right)])
    assert.equal(text, `A paper in two columns, with a title that spans them both\n\n${left.join('\n')}\n\n${right.join('\n')}`)
  })

  it('makes a table of rows whose cells line up, a markdown table with its first row as the head, tab-separated in text', async () => {
    const rows = [['Package', 'Version', 'Node'], ['dsh-web', '0.1.0', '20.19'], ['undici', '7.16', '20.18']]
    const runs: PdfRun[] = [
      ...column(72, 740, ['Dependencies and the Node they need:']),
      ...rows.flatMap((cells, row) => cells.map((text, cell) => ({ text, x: 72 + cell * 150, y: 700 - row * 16 }))),
      ...column(72, 600, ['After the table.']),
    ]
    assert.equal(
      await read(runs),
      'Dependencies and the Node they need:\n\n| Package | Version | Node |\n| --- | --- | --- |\n| dsh-web | 0.1.0 | 20.19 |\n| undici | 7.16 | 20.18 |\n\nAfter the table.',
    )
    assert.equal(await read(runs, 'text'), 'Dependencies and the Node they need:\n\nPackage\tVersion\tNode\ndsh-web\t0.1.0\t20.19\nundici\t7.16\t20.18\n\nAfter the table.')
  })

  it('makes list items of bulleted lines in markdown, and keeps the bullets in text', async () => {
    const runs = column(72, 740, ['Before you start:', '• install Node 20', '• run the tests'])
    assert.equal(await read(runs), 'Before you start:\n- install Node 20\n- run the tests')
    assert.equal(await read(runs, 'text'), 'Before you start:\n• install Node 20\n• run the tests')
  })

  it('makes list items of lines with a bullet drawn as a shape before them (as Chromium prints a <ul>), nested by where they start', async () => {
    const runs = [
      ...column(72, 740, ['Before you start:']),
      ...column(90, 726, ['install Node 20 and the packages the tests', 'need, from Debian', 'run the tests']),
      ...column(108, 684, ['one suite', 'another']),
      ...column(90, 656, ['read the report']),
      ...column(72, 628, ['After the list.']),
    ]
    // Each bullet 4 points across, its middle about a third of the size above the baseline, 6 points before the text.
    const bullet = (x: number, y: number, shape: 'disc' | 'square' = 'disc') => ({ x: x - 10, y: y + 2, size: 4, shape })
    const marks = [bullet(90, 726), bullet(90, 698), bullet(108, 684, 'square'), bullet(108, 670, 'square'), bullet(90, 656)]
    assert.equal(
      await read(runs, 'markdown', { marks }),
      'Before you start:\n- install Node 20 and the packages the tests\nneed, from Debian\n- run the tests\n  - one suite\n  - another\n- read the report\n\nAfter the list.',
    )
    assert.equal(
      await read(runs, 'text', { marks }),
      'Before you start:\n• install Node 20 and the packages the tests\nneed, from Debian\n• run the tests\n  • one suite\n  • another\n• read the report\n\nAfter the list.',
    )
  })

  it('makes no list item of a line beside a shape that is no bullet: a figure, a dot far from the text, one above the line', async () => {
    const runs = column(72, 740, ['A line beside a figure.', 'A line with a dot far before it.', 'A line below a dot.'])
    const page: Omit<PdfPage, 'runs'> = {
      rectangles: [[20, 720, 40, 40]],
      marks: [
        { x: 20, y: 728, size: 4, shape: 'disc' },
        { x: 62, y: 722, size: 4, shape: 'disc' },
      ],
    }
    assert.equal(await read(runs, 'markdown', page), 'A line beside a figure.\nA line with a dot far before it.\nA line below a dot.')
  })

  it("keeps a table whose cells are only a padding apart (as an engine sets them), and joins a line's runs that are not a table", async () => {
    // Cells 7 points apart at 12 points: less than the 1.5 sizes that part cells of running text.
    const rows = [['Item', 'Q1', 'Q2'], ['Disks', '120', '140'], ['Network', '40', '42']]
    const runs: PdfRun[] = [
      ...rows.flatMap((cells, row) => cells.map((text, cell) => ({ text, x: 72 + cell * 52, y: 700 - row * 18 }))),
      // One line of running text in three runs (a bold word in it), 7 points apart: one line, not a row.
      { text: 'A sentence with a', x: 72, y: 600 },
      { text: 'bold', x: 72 + 7 + 17 * 6, y: 600, bold: true },
      { text: 'word in it.', x: 72 + 14 + 21 * 6, y: 600 },
    ]
    assert.equal(await read(runs), '| Item | Q1 | Q2 |\n| --- | --- | --- |\n| Disks | 120 | 140 |\n| Network | 40 | 42 |\n\nA sentence with a bold word in it.')
  })

  it("reads two columns whose baselines do not line up, the left one a line longer, and what comes below them after both", async () => {
    const left = ['The left column starts a little lower', 'than the right one does, and it', 'carries the first half of the text', 'down one line further than the right.']
    const right = ['The right column begins higher up', 'because its first paragraph has', 'no margin above it on this page.']
    const text = await read([
      ...column(72, 700, left),
      ...column(320, 706, right),
      { text: 'Below both', x: 72, y: 620, size: 16 },
      ...column(72, 596, ['A line under the columns, on the left.']),
    ])
    assert.equal(text, `${left.join('\n')}\n\n${right.join('\n')}\n\n## Below both\n\nA line under the columns, on the left.`.replace('## ', '# '))
  })

  it('takes a line 1.17 times the body (an h3) for a heading, and not a lead paragraph set larger over several lines', async () => {
    const runs = [
      ...column(72, 740, ['A lead paragraph set a little larger', 'than the body, over three lines of', 'text, is a paragraph and not headings.'], 16, 13),
      { text: 'Small heading', x: 72, y: 680, size: 14 },
      ...column(72, 656, ['Body text at twelve points, which most of the page is', 'set in, line after line, so that it is the body.', 'More body text.']),
    ]
    const text = await read(runs)
    assert.equal(text, 'A lead paragraph set a little larger\nthan the body, over three lines of\ntext, is a paragraph and not headings.\n\n# Small heading\n\nBody text at twelve points, which most of the page is\nset in, line after line, so that it is the body.\nMore body text.')
  })
})
