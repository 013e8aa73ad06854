/**
 * A PDF page's text with its structure, from where pdf.js says each piece
 * of text stands: lines by baseline, cells by the gaps inside a line,
 * two columns read one after the other, tables where cells line up row
 * after row, headings by font size against the page's body text, list
 * items by their bullet, paragraphs by the space between lines. Markdown
 * gets `#` headings, `-` items and pipe tables; text gets the same lines
 * plainly (cells apart by tabs). Font weight is not read: pdf.js gives it
 * only once a page is drawn, which reading text never does.
 */

/** A text item of pdf.js's getTextContent. */
export interface PdfTextItem {
  str: string
  /** [scaleX, skewY, skewX, scaleY, x, y] of the text's baseline start, in points from the bottom left. */
  transform?: number[]
  width?: number
  hasEOL?: boolean
}

interface Run {
  text: string
  x: number
  end: number
  y: number
  size: number
}

interface Line {
  y: number
  size: number
  cells: Run[]
}

type Block = { kind: 'line'; line: Line } | { kind: 'table'; rows: Line[] }

/** A gap wider than this many font sizes ends a cell (a column's or a table's). */
const CELL_GAP = 1.5
/** Of the body's size, what a heading's font is at least. */
const HEADING_RATIO = 1.2
/** A heading is one short line. */
const HEADING_MAX_CHARS = 160
const BULLET = /^[•●▪◦‣∙·–—-]\s+/

/** The page's text, structured for `format` ('markdown' or anything else: text). */
export function layoutPage(items: readonly PdfTextItem[], format: string): string {
  const lines = toLines(toRuns(items))
  if (!lines.length) return ''
  const markdown = format === 'markdown'
  const body = bodySize(lines)
  const levels = headingLevels(lines, body)
  const leading = typicalLeading(lines, body)
  const out: string[] = []
  let previous: Line | undefined
  for (const block of toBlocks(readingOrder(lines))) {
    const first = block.kind === 'line' ? block.line : block.rows[0]!
    const heading = block.kind === 'line' ? levels.get(block.line) : undefined
    const apart = block.kind === 'table' || heading !== undefined || (previous !== undefined && (previous.y - first.y > leading * 1.6 || first.y > previous.y))
    if (out.length && apart) out.push('')
    if (block.kind === 'table') {
      out.push(...renderTable(block.rows, markdown))
      previous = block.rows.at(-1)
      out.push('')
      continue
    }
    const text = lineText(block.line, markdown)
    if (heading !== undefined) {
      out.push(markdown ? `${'#'.repeat(heading)} ${text}` : text, '')
    } else {
      out.push(markdown && BULLET.test(text) ? text.replace(BULLET, '- ') : text)
    }
    previous = block.line
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim()
}

function toRuns(items: readonly PdfTextItem[]): Run[] {
  const runs: Run[] = []
  for (const item of items) {
    if (typeof item.str !== 'string' || !item.str.trim()) continue
    const [a = 1, b = 0, c = 0, d = 1, x = 0, y = 0] = item.transform ?? []
    const size = Math.hypot(c, d) || Math.hypot(a, b) || 12
    const text = item.str.replace(/\s+/g, ' ')
    runs.push({ text, x, y, size, end: x + (item.width && item.width > 0 ? item.width : text.length * size * 0.5) })
  }
  return runs
}

/** Runs on one baseline form a line (top of the page first), cut into cells at wide gaps. */
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
      if (cell && gap <= CELL_GAP * Math.max(cell.size, run.size)) {
        const space = gap > 0.15 * run.size && !cell.text.endsWith(' ') && !run.text.startsWith(' ')
        cells[cells.length - 1] = { ...cell, text: `${cell.text}${space ? ' ' : ''}${run.text}`, end: Math.max(cell.end, run.end), size: Math.max(cell.size, run.size) }
      } else cells.push({ ...run })
    }
    return { y: row[0]!.y, size: Math.max(...row.map((run) => run.size)), cells: cells.map((cell) => ({ ...cell, text: cell.text.trim() })) }
  })
}

/**
 * Two columns are read left, then right, between the lines that span both
 * (a title, a figure's caption): a page is in two columns when at least
 * three lines hold two wide cells either side of one gutter.
 */
function readingOrder(lines: Line[]): Line[] {
  const left = Math.min(...lines.map((line) => line.cells[0]!.x))
  const right = Math.max(...lines.map((line) => line.cells.at(-1)!.end))
  const width = right - left
  if (width <= 0) return lines
  const wide = (cell: Run) => cell.end - cell.x >= 0.25 * width
  const split = lines.filter((line) => line.cells.length === 2 && wide(line.cells[0]!) && wide(line.cells[1]!) && line.cells[1]!.x >= left + 0.35 * width)
  if (split.length < 3) return lines
  const gutter = median(split.map((line) => line.cells[1]!.x))
  const ordered: Line[] = []
  let leftColumn: Line[] = []
  let rightColumn: Line[] = []
  const flush = () => {
    ordered.push(...leftColumn, ...rightColumn)
    leftColumn = []
    rightColumn = []
  }
  for (const line of lines) {
    const leftCells = line.cells.filter((cell) => cell.x < gutter - 1)
    const rightCells = line.cells.filter((cell) => cell.x >= gutter - 1)
    if (leftCells.some((cell) => cell.end > gutter + 1)) {
      flush()
      ordered.push(line)
      continue
    }
    if (leftCells.length) leftColumn.push({ ...line, cells: leftCells })
    if (rightCells.length) rightColumn.push({ ...line, cells: rightCells })
  }
  flush()
  return ordered
}

/** Two or more lines in a row with the same number (two or more) of cells, their starts lined up, are a table. */
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
    else blocks.push({ kind: 'line', line })
    index = Math.max(end, index + 1)
  }
  return blocks
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

/** Heading lines and their level: the largest size is 1, the next 2, any smaller 3. */
function headingLevels(lines: Line[], body: number): Map<Line, number> {
  const headings = lines.filter((line) => line.cells.length === 1 && line.size >= body * HEADING_RATIO && line.cells[0]!.text.length <= HEADING_MAX_CHARS)
  const sizes = [...new Set(headings.map((line) => Math.round(line.size * 2) / 2))].sort((p, q) => q - p)
  return new Map(headings.map((line) => [line, Math.min(3, sizes.indexOf(Math.round(line.size * 2) / 2) + 1)]))
}

/**
 * The usual distance from one baseline to the next inside a paragraph: of
 * lines in one size, less than two and a half sizes apart (a paragraph's
 * gap is more); 1.2 sizes where no two lines are that close.
 */
function typicalLeading(lines: Line[], body: number): number {
  const steps = lines.slice(1).flatMap((line, index) => {
    const above = lines[index]!
    const step = above.y - line.y
    return step > 0 && above.size === line.size && step < 2.5 * line.size ? [step] : []
  })
  return steps.length ? median(steps) : 1.2 * body
}

function median(values: number[]): number {
  const sorted = [...values].sort((p, q) => p - q)
  return sorted[sorted.length >> 1]!
}
