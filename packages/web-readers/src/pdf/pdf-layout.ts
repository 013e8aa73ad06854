/**
 * A PDF page's text with its structure, from where pdf.js says each piece
 * of text stands: lines by baseline, cells by the gaps inside a line,
 * two columns read one after the other, tables where cells line up row
 * after row, headings by font size against the page's body text, list
 * items by their bullet (a bullet character, or a small shape drawn just
 * before the line: pdf-marks.ts), nested by where they start, paragraphs
 * by the space between lines. Markdown
 * gets `#` headings, `-` items and pipe tables; text gets the same lines
 * plainly (cells apart by tabs). A line set bold at the body's size,
 * standing apart, is a heading below those set larger (an engine's h4):
 * the weight is known where the page's drawing gave the fonts' names.
 */

import type { Mark, PageDrawing } from './pdf-drawing.js'

/** A text item of pdf.js's getTextContent. */
export interface PdfTextItem {
  str: string
  /** [scaleX, skewY, skewX, scaleY, x, y] of the text's baseline start, in points from the bottom left. */
  transform?: number[]
  width?: number
  hasEOL?: boolean
  fontName?: string
}

interface Run {
  text: string
  x: number
  end: number
  y: number
  size: number
  bold: boolean
}

interface Line {
  y: number
  size: number
  cells: Run[]
}

type Block = { kind: 'line'; line: Line } | { kind: 'table'; rows: Line[] }

/** A gap wider than this many font sizes ends a cell (a column's or a table's) in running text. */
const CELL_GAP = 1.5
/**
 * A gap wider than this many font sizes may still part two cells of a
 * table (an engine sets a table's cells a padding apart, about half a size):
 * such cells are kept apart only where rows line up as a table; elsewhere
 * they are joined again. A word space is about a quarter of a size.
 */
const TIGHT_CELL_GAP = 0.5
/** Of the body's size, what a heading's font is at least (an engine's h3 is 1.17 times its body). */
const HEADING_RATIO = 1.15
/** Lines of one larger size in a row, a line's leading apart, that are a paragraph set larger rather than a heading. */
const HEADING_MAX_LINES = 2
/** A heading is one short line. */
const HEADING_MAX_CHARS = 160
const BULLET = /^[•●▪◦‣∙·–—-]\s+/
/** Nesting deeper than this is shown at this depth. */
const MAX_LIST_DEPTH = 4

/** The page's text, structured for `format` ('markdown' or anything else: text). */
export function layoutPage(items: readonly PdfTextItem[], format: string, drawing: PageDrawing = {}): string {
  const lines = withDrawnBullets(toLines(toRuns(items, drawing.boldFonts)), drawing.marks ?? [])
  if (!lines.length) return ''
  const markdown = format === 'markdown'
  const body = bodySize(lines)
  const leading = typicalLeading(lines, body)
  const levelOf = headingLevels(lines, body, leading)
  const out: string[] = []
  let previous: Line | undefined
  // Where each open list level's items start, outermost first.
  let list: number[] = []
  for (const block of toBlocks(readingOrder(lines, leading))) {
    const first = block.kind === 'line' ? block.line : block.rows[0]!
    const heading = block.kind === 'line' ? levelOf(block.line) : undefined
    const apart = block.kind === 'table' || heading !== undefined || (previous !== undefined && (previous.y - first.y > leading * 1.6 || first.y > previous.y))
    if (out.length && apart) out.push('')
    const x = first.cells[0]!.x
    // A paragraph's gap or a line left of the list's items ends the list; an item's further lines keep it.
    if (apart || x < (list[0] ?? x) - 1) list = []
    if (block.kind === 'table') {
      out.push(...renderTable(block.rows, markdown))
      previous = block.rows.at(-1)
      out.push('')
      continue
    }
    const text = lineText(block.line, markdown)
    if (heading !== undefined) {
      out.push(markdown ? `${'#'.repeat(heading)} ${text}` : text, '')
    } else if (BULLET.test(text)) {
      while (list.length && list.at(-1)! > x + 1) list.pop()
      if (!list.length || list.at(-1)! < x - 1) list.push(x)
      const depth = Math.min(list.length, MAX_LIST_DEPTH) - 1
      out.push(markdown ? `${'  '.repeat(depth)}${text.replace(BULLET, '- ')}` : `${'  '.repeat(depth)}${text}`)
    } else {
      out.push(text)
    }
    previous = block.line
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim()
}

/**
 * A line with a small shape drawn just before its first cell, about as
 * large as a bullet of its size and at its height, is a list item: the
 * shape is its bullet. Filled or stroked, round or square: a disc, a
 * circle, a square.
 */
function withDrawnBullets(lines: Line[], marks: readonly Mark[]): Line[] {
  if (!marks.length) return lines
  return lines.map((line) => {
    const cell = line.cells[0]!
    if (BULLET.test(cell.text)) return line
    const size = line.size
    const bullet = marks.some((mark) => {
      const width = mark.end - mark.x
      const height = mark.top - mark.y
      const middle = (mark.y + mark.top) / 2
      return (
        mark.end <= cell.x + 0.1 * size &&
        cell.x - mark.end <= 2 * size &&
        width >= 0.15 * size && width <= 0.7 * size &&
        height >= 0.15 * size && height <= 0.7 * size &&
        middle >= line.y - 0.1 * size && middle <= line.y + 0.8 * size
      )
    })
    return bullet ? { ...line, cells: [{ ...cell, text: `• ${cell.text}` }, ...line.cells.slice(1)] } : line
  })
}

function toRuns(items: readonly PdfTextItem[], boldFonts: ReadonlySet<string> = new Set()): Run[] {
  const runs: Run[] = []
  for (const item of items) {
    if (typeof item.str !== 'string' || !item.str.trim()) continue
    const [a = 1, b = 0, c = 0, d = 1, x = 0, y = 0] = item.transform ?? []
    const size = Math.hypot(c, d) || Math.hypot(a, b) || 12
    const text = item.str.replace(/\s+/g, ' ')
    runs.push({ text, x, y, size, bold: item.fontName !== undefined && boldFonts.has(item.fontName), end: x + (item.width && item.width > 0 ? item.width : text.length * size * 0.5) })
  }
  return runs
}

/** Runs on one baseline form a line (top of the page first), cut into cells at every gap wider than a word space's two (toBlocks joins those of running text again). */
function toLines(runs: Run[]): Line[] {
  const sorted = [...runs].sort((p, q) => q.y - p.y || p.x - q.x)
  const rows: Run[][] = []
  for (const run of sorted) {
    const row = rows.at(-1)
    if (row && Math.abs(row[0]!.y - run.y) <= Math.max(1, 0.3 * Math.min(row[0]!.size, run.size))) row.push(run)
    else rows.push([run])
  }
  return rows.map((row) => {
    row.sort((p, q) => p.x - q.x)
    const cells: Run[] = []
    for (const run of row) {
      const cell = cells.at(-1)
      const gap = cell ? run.x - cell.end : Infinity
      if (cell && gap <= TIGHT_CELL_GAP * Math.max(cell.size, run.size)) {
        const space = gap > 0.15 * run.size && !cell.text.endsWith(' ') && !run.text.startsWith(' ')
        cells[cells.length - 1] = { ...cell, text: `${cell.text}${space ? ' ' : ''}${run.text}`, end: Math.max(cell.end, run.end), size: Math.max(cell.size, run.size), bold: cell.bold && run.bold }
      } else cells.push({ ...run })
    }
    return { y: row[0]!.y, size: Math.max(...row.map((run) => run.size)), cells: cells.map((cell) => ({ ...cell, text: cell.text.trim() })) }
  })
}

/**
 * Two columns are read left, then right, between the lines that span both
 * (a title, a figure's caption): a page is in two columns when at least
 * three lines start a wide cell at one gutter, to the right of the page's
 * middle third's start, and at least three end a wide cell before it. The
 * columns' baselines need not line up (an engine sets each column's
 * paragraphs on its own). A line on one side only stays the line it is;
 * what follows the last line of the right column (and the left column's
 * lines that go on below it), up to the next spanning line, is read after
 * both columns (a heading or a table below them).
 */
function readingOrder(lines: Line[], leading: number): Line[] {
  const left = Math.min(...lines.map((line) => line.cells[0]!.x))
  const right = Math.max(...lines.map((line) => line.cells.at(-1)!.end))
  const width = right - left
  if (width <= 0) return lines
  const gutter = findGutter(lines, left, width)
  if (gutter === undefined) return lines
  const ordered: Line[] = []
  let segment: { line: Line; left?: Line; right?: Line }[] = []
  const flush = () => {
    let last = -1
    segment.forEach((part, index) => (part.right ? (last = index) : 0))
    // The left column may run a line or more below the right one: its lines a leading apart still belong to it.
    while (last >= 0 && last + 1 < segment.length) {
      const above = segment.slice(0, last + 1).findLast((part) => part.left)?.left
      const next = segment[last + 1]!.line
      if (!above || above.y - next.y > leading * 1.6 || Math.abs(next.cells[0]!.x - above.cells[0]!.x) > 1 || next.size !== above.size) break
      last++
    }
    const inColumns = segment.slice(0, last + 1)
    ordered.push(...inColumns.flatMap((part) => (part.left ? [part.left] : [])), ...inColumns.flatMap((part) => (part.right ? [part.right] : [])))
    ordered.push(...segment.slice(last + 1).map((part) => part.line))
    segment = []
  }
  for (const line of lines) {
    const leftCells = line.cells.filter((cell) => cell.x < gutter - 1)
    const rightCells = line.cells.filter((cell) => cell.x >= gutter - 1)
    if (leftCells.some((cell) => cell.end > gutter + 1)) {
      flush()
      ordered.push(line)
      continue
    }
    // A line wholly on one side is kept as it is: headings are known by the line itself.
    if (!rightCells.length) segment.push({ line, left: line })
    else if (!leftCells.length) segment.push({ line, right: line })
    else segment.push({ line, left: { ...line, cells: leftCells }, right: { ...line, cells: rightCells } })
  }
  flush()
  return ordered
}

/** The x where a right column starts, if the page has two (see readingOrder). */
function findGutter(lines: Line[], left: number, width: number): number | undefined {
  const wide = (cell: Run) => cell.end - cell.x >= 0.25 * width
  const starts = new Map<number, number>()
  for (const line of lines) {
    for (const [index, cell] of line.cells.entries()) {
      if (cell.x < left + 0.35 * width || !wide(cell)) continue
      const before = line.cells[index - 1]
      if (before && cell.x - before.end <= CELL_GAP * cell.size) continue
      const at = Math.round(cell.x)
      starts.set(at, (starts.get(at) ?? 0) + 1)
    }
  }
  const [best] = [...starts].sort((p, q) => q[1] - p[1] || p[0] - q[0])
  if (!best || best[1] < 3) return undefined
  const gutter = best[0]
  const ends = lines.filter((line) => line.cells.some((cell) => cell.x < gutter - 1 && cell.end <= gutter - 1 && wide(cell))).length
  return ends >= 3 ? gutter : undefined
}

/**
 * Two or more lines in a row with the same number (two or more) of cells,
 * their starts lined up, are a table; in any other line, cells a running
 * text's gap apart are one again (inline bold or a link is its own run).
 */
function toBlocks(lines: Line[]): Block[] {
  const blocks: Block[] = []
  let index = 0
  while (index < lines.length) {
    const line = lines[index]!
    let end = index + 1
    if (line.cells.length >= 2) {
      while (end < lines.length && alignedRow(line, lines[end]!) && lines[end - 1]!.y > lines[end]!.y) end++
    }
    if (end - index >= 2) blocks.push({ kind: 'table', rows: lines.slice(index, end) })
    else blocks.push({ kind: 'line', line: joinTightCells(line) })
    index = Math.max(end, index + 1)
  }
  return blocks
}

function joinTightCells(line: Line): Line {
  if (line.cells.length < 2) return line
  const cells: Run[] = []
  for (const run of line.cells) {
    const cell = cells.at(-1)
    if (cell && run.x - cell.end <= CELL_GAP * Math.max(cell.size, run.size)) cells[cells.length - 1] = { ...cell, text: `${cell.text} ${run.text}`, end: Math.max(cell.end, run.end), size: Math.max(cell.size, run.size), bold: cell.bold && run.bold }
    else cells.push(run)
  }
  return cells.length === line.cells.length ? line : { ...line, cells }
}

function alignedRow(first: Line, other: Line): boolean {
  if (other.cells.length !== first.cells.length) return false
  const tolerance = Math.max(3, 0.5 * first.size)
  return first.cells.every((cell, column) => Math.abs(cell.x - other.cells[column]!.x) <= tolerance || Math.abs(cell.end - other.cells[column]!.end) <= tolerance)
}

function renderTable(rows: Line[], markdown: boolean): string[] {
  if (!markdown) return rows.map((row) => row.cells.map((cell) => cell.text).join('\t'))
  const cell = (text: string) => text.replace(/\|/g, '\\|')
  const [head, ...rest] = rows
  return [
    `| ${head!.cells.map((c) => cell(c.text)).join(' | ')} |`,
    `| ${head!.cells.map(() => '---').join(' | ')} |`,
    ...rest.map((row) => `| ${row.cells.map((c) => cell(c.text)).join(' | ')} |`),
  ]
}

function lineText(line: Line, markdown: boolean): string {
  return line.cells.map((cell) => cell.text).join(markdown ? ' ' : '\t')
}

/** The font size most of the page's characters are set in. */
function bodySize(lines: Line[]): number {
  const chars = new Map<number, number>()
  for (const line of lines) for (const cell of line.cells) chars.set(Math.round(cell.size * 2) / 2, (chars.get(Math.round(cell.size * 2) / 2) ?? 0) + cell.text.length)
  return [...chars].sort((p, q) => q[1] - p[1] || p[0] - q[0])[0]![0]
}

/**
 * The heading level of a line (undefined: not a heading): one short cell of
 * running text set larger than the body; the largest such size on the page
 * is 1, the next 2, any smaller 3. A function of the line, so that the part
 * of a line one column holds is judged as the line is.
 */
function headingLevels(lines: Line[], body: number, leading: number): (line: Line) => number | undefined {
  const larger = (line: Line) => {
    const joined = joinTightCells(line)
    return joined.cells.length === 1 && line.size >= body * HEADING_RATIO && joined.cells[0]!.text.length <= HEADING_MAX_CHARS
  }
  // A run of more than HEADING_MAX_LINES larger lines of one size, each close below the last, is a paragraph (a lead, a pull quote).
  const paragraphs = new Set<number>()
  let run: Line[] = []
  const close = () => {
    if (run.length > HEADING_MAX_LINES) for (const line of run) paragraphs.add(line.y)
    run = []
  }
  for (const line of lines) {
    const last = run.at(-1)
    if (!larger(line)) close()
    else if (last && last.size === line.size && last.y - line.y > 0 && last.y - line.y <= 1.6 * line.size) run.push(line)
    else {
      close()
      run = [line]
    }
  }
  close()
  const isHeading = (line: Line) => larger(line) && !paragraphs.has(line.y)
  const sizes = [...new Set(lines.filter(isHeading).map((line) => Math.round(line.size * 2) / 2))].sort((p, q) => q - p)
  const bold = boldHeadings(lines, body, leading)
  return (line) => {
    if (isHeading(line)) return Math.min(3, sizes.indexOf(Math.round(line.size * 2) / 2) + 1)
    if (bold.has(lineKey(line))) return Math.min(3, sizes.length) + 1
    return undefined
  }
}

const lineKey = (line: Line) => `${line.y}:${Math.round(line.cells[0]!.x)}`

/**
 * Lines wholly bold at about the body's size (an engine's h4), one short
 * cell that is no sentence, a paragraph's gap from the lines above and
 * below it that share its width (or the page's edge): headings below every
 * size of the page's larger ones. A bold line inside a paragraph, a bold
 * run-in at a paragraph's start and a bold table row are not.
 */
function boldHeadings(lines: Line[], body: number, leading: number): Set<string> {
  const headings = new Set<string>()
  const overlaps = (line: Line, other: Line) => other.cells[0]!.x < line.cells.at(-1)!.end && line.cells[0]!.x < other.cells.at(-1)!.end
  for (const [index, line] of lines.entries()) {
    const joined = joinTightCells(line)
    const cell = joined.cells[0]!
    if (joined.cells.length !== 1 || !cell.bold || line.size < body * 0.95 || line.size >= body * HEADING_RATIO) continue
    if (cell.text.length > HEADING_MAX_CHARS || /[.,;]$/.test(cell.text) || BULLET.test(cell.text)) continue
    const above = lines.slice(0, index).findLast((other) => overlaps(line, other))
    const below = lines.slice(index + 1).find((other) => overlaps(line, other))
    const apart = (upper: Line | undefined, lower: Line | undefined) => !upper || !lower || upper.y - lower.y > leading * 1.6
    if (apart(above, line) && apart(line, below)) headings.add(lineKey(line))
  }
  return headings
}

/**
 * The usual distance from one baseline to the next inside a paragraph: from
 * each line to the next below it that starts where it does, in its size
 * (so that two columns set on baselines of their own do not halve it).
 * Running text is set less than 1.6 sizes apart, a table's padded rows and
 * a paragraph's gap more: the median of the closer steps where there are a
 * few, else of those less than two and a half sizes apart (text set double
 * spaced); 1.2 sizes where no two lines are that close.
 */
function typicalLeading(lines: Line[], body: number): number {
  const steps = lines.flatMap((line, index) => {
    const below = lines.slice(index + 1, index + 8).find((other) => other.size === line.size && Math.abs(other.cells[0]!.x - line.cells[0]!.x) <= 1)
    const step = below ? line.y - below.y : 0
    return step > 0 && step < 2.5 * line.size ? [{ step, size: line.size }] : []
  })
  const close = steps.filter(({ step, size }) => step < 1.6 * size)
  const chosen = close.length >= 3 ? close : steps
  return chosen.length ? median(chosen.map(({ step }) => step)) : 1.2 * body
}

function median(values: number[]): number {
  const sorted = [...values].sort((p, q) => p - q)
  return sorted[sorted.length >> 1]!
}
